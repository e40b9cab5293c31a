"""Paper is the whole loop: in paper mode the account reads an agent makes through the gateway
answer from the paper book, in the venue's own schemas, marked paper; market data still comes
from the upstream; live mode passes through (issue 15 §1). Over real loopback HTTP in front of
a real sandbox venue."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp_gateway_kit import OTHER_TOKEN, gateway, policy

from ordergate.core import OrderState, Side
from ordergate.gateway.mcp._paper_reads import (
    ACCOUNT_READS,
    FORWARD,
    PAPER_GUIDE,
    REFUSE,
    paper_entry,
)
from ordergate.inventory import load_inventory
from ordergate.policy import Proposal
from ordergate.venues.paper import PaperOrder, order_wire

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _validate(tool: str, result: dict[str, Any]) -> None:
    """``result`` conforms to the output schema captured from the venue for ``tool``."""
    schema = load_inventory()[tool].output_schema
    assert schema is not None
    Draft202012Validator(schema).validate(result["structuredContent"])


def _buy(account: str, symbol: str = "SPY", quantity: str = "2") -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": symbol,
        "side": "buy",
        "type": "market",
        "quantity": quantity,
    }


def _paper(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result
    assert result["structuredContent"]["guide"] == PAPER_GUIDE
    assert result["structuredContent"]["guide"].startswith("Paper:")
    data: dict[str, Any] = result["structuredContent"]["data"]
    return data


@pytest.mark.req("gateway.paper.reads-from-book")
async def test_a_paper_order_reads_back_through_orders_positions_and_portfolio_marked_paper(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        placed = await gw.call("place_equity_order", _buy(gw.account))
        order_id = placed["structuredContent"]["data"]["order_id"]
        account = {"account_number": gw.account}
        orders = await gw.call("get_equity_orders", account)
        one = await gw.call("get_equity_orders", {**account, "order_id": order_id})
        positions = await gw.call("get_equity_positions", account)
        portfolio = await gw.call("get_portfolio", account)
        venue_orders = gw.venue.data("get_equity_orders", account)
        book = gw.guard.reader.read  # the guard's own view of the paper account
        view = await book(gw.account, None)
    assert placed["structuredContent"]["data"]["status"] == "filled"
    _validate("get_equity_orders", orders)
    _validate("get_equity_orders", one)
    _validate("get_portfolio", portfolio)
    [order] = _paper(orders)["orders"]
    assert _paper(one)["orders"] == [order]
    assert order["id"] == order_id
    assert order["ref_id"] == placed["structuredContent"]["data"]["filing_id"]
    assert (order["symbol"], order["side"], order["state"]) == ("SPY", "buy", "filled")
    assert order["quantity"] == order["cumulative_quantity"] == "2"
    [execution] = order["executions"]
    assert execution["quantity"] == "2" and Decimal(execution["price"]) > 0
    assert execution["fees"] == order["fees"] == "0.00"
    assert order["average_price"] == execution["price"].rstrip("0").rstrip(".")
    [position] = _paper(positions)["positions"]
    assert position["symbol"] == "SPY" and position["quantity"] == "2"
    assert Decimal(position["cost_basis"]) == 2 * Decimal(execution["price"])
    assert position["shares_available_for_sells"] == "2"
    data = _paper(portfolio)
    cash = Decimal(100000) - 2 * Decimal(execution["price"])
    assert Decimal(data["cash"]) == cash
    assert Decimal(data["buying_power"]["buying_power"]) == cash
    assert view.equity is not None and Decimal(data["total_value"]) == view.equity.quantize(
        Decimal("0.01")
    )
    # Answered from the paper book: nothing was sent to the venue, whose real book is empty.
    assert gw.backend.forwarded == []
    assert venue_orders["orders"] == []


async def test_paper_positions_have_the_fields_the_venue_lists_for_a_position(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        await gw.call("place_equity_order", _buy(gw.account))
        gw.venue.data("place_equity_order", {**_buy(gw.account), "ref_id": str(uuid.uuid4())})
        gw.clock.advance(timedelta(minutes=1))  # the venue fills on its own clock
        venue_rows = gw.venue.data("get_equity_positions", {"account_number": gw.account})
        paper = await gw.call("get_equity_positions", {"account_number": gw.account})
    [row] = _paper(paper)["positions"]
    [venue_row] = venue_rows["positions"]
    # The book keeps no acquisition instants: every other field the venue lists is there.
    assert set(row) == set(venue_row) - {"created_at", "updated_at"}
    assert {key: type(value) for key, value in row.items()} == {
        key: type(venue_row[key]) for key in row
    }


@pytest.mark.req("gateway.paper.own-orders-only")
async def test_another_identitys_paper_orders_never_show(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        placed = await gw.call("place_equity_order", _buy(gw.account))
        order_id = placed["structuredContent"]["data"]["order_id"]
        account = {"account_number": gw.account}
        theirs = await gw.call("get_equity_orders", account, token=OTHER_TOKEN)
        by_id = await gw.call(
            "get_equity_orders", {**account, "order_id": order_id}, token=OTHER_TOKEN
        )
        mine = await gw.call("get_equity_orders", account)
    assert _paper(theirs)["orders"] == []
    assert _paper(by_id)["orders"] == []
    assert [order["id"] for order in _paper(mine)["orders"]] == [order_id]


async def test_paper_orders_are_filtered_as_the_venue_filters_them(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        spy = await gw.call("place_equity_order", _buy(gw.account))
        aapl = await gw.call("place_equity_order", _buy(gw.account, "AAPL", "1"))
        account = {"account_number": gw.account}
        newest_first = await gw.call("get_equity_orders", account)
        by_symbol = await gw.call("get_equity_orders", {**account, "symbol": "spy"})
        by_state = await gw.call("get_equity_orders", {**account, "state": "cancelled"})
        by_agent = await gw.call("get_equity_orders", {**account, "placed_agent": "user"})
        later = await gw.call("get_equity_orders", {**account, "created_at_gte": "2100-01-01Z"})
        bad_instant = await gw.refusal("get_equity_orders", {**account, "created_at_gte": "soon"})
        cursor = await gw.refusal("get_equity_orders", {**account, "cursor": "next"})
    ids = [r["structuredContent"]["data"]["order_id"] for r in (aapl, spy)]
    assert [order["id"] for order in _paper(newest_first)["orders"]] == ids
    assert [order["symbol"] for order in _paper(by_symbol)["orders"]] == ["SPY"]
    assert _paper(by_state)["orders"] == _paper(by_agent)["orders"] == []
    assert _paper(later)["orders"] == []
    assert bad_instant["code"] == cursor["code"] == "INVALID_ARGUMENT"


async def test_a_paper_read_of_another_account_is_refused_and_nothing_is_sent(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        orders = await gw.refusal("get_equity_orders", {"account_number": "5QR00000"})
        portfolio = await gw.refusal("get_portfolio", {"account_number": "5QR00000"})
        positions = await gw.refusal("get_equity_positions", {"account_number": "5QR00000"})
    assert orders["code"] == portfolio["code"] == positions["code"] == "NOT_THE_PAPER_ACCOUNT"
    assert gw.backend.forwarded == []


@pytest.mark.req("gateway.paper.fail-closed")
async def test_an_account_read_the_paper_book_cannot_answer_is_refused_never_passed_through(
    tmp_path: Path,
) -> None:
    unknown = {
        "name": "get_margin_balances",
        "inputSchema": {
            "type": "object",
            "properties": {"account_number": {"type": "string"}},
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True},
    }
    async with gateway(tmp_path, extra_tools=[unknown]) as gw:
        lots = await gw.refusal(
            "get_equity_tax_lots", {"account_number": gw.account, "symbol": "SPY"}
        )
        new_tool = await gw.refusal("get_margin_balances", {"account_number": gw.account})
        quotes = await gw.call("get_equity_quotes", {"symbols": ["SPY"]})
        accounts = await gw.call("get_accounts")
    assert lots["code"] == new_tool["code"] == "PAPER_NOT_ANSWERED"
    # Market data and the account list still come from the upstream, unchanged.
    assert quotes["isError"] is False and accounts["isError"] is False
    assert quotes["structuredContent"]["guide"] != PAPER_GUIDE
    assert gw.backend.forwarded == [
        ("get_equity_quotes", {"symbols": ["SPY"]}),
        ("get_accounts", {}),
    ]


async def test_paper_positions_and_portfolio_of_an_empty_account_are_cash_only(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        positions = await gw.call("get_equity_positions", {"account_number": gw.account})
        portfolio = await gw.call("get_portfolio", {"account_number": gw.account})
        cursor = await gw.refusal(
            "get_equity_positions", {"account_number": gw.account, "cursor": "x"}
        )
    assert _paper(positions)["positions"] == []
    _validate("get_portfolio", portfolio)
    assert _paper(portfolio)["cash"] == _paper(portfolio)["total_value"] == "100000.00"
    assert cursor["code"] == "INVALID_ARGUMENT"


@pytest.mark.req("gateway.paper.live-unchanged")
async def test_in_live_mode_account_reads_pass_through_unchanged(tmp_path: Path) -> None:
    async with gateway(tmp_path, live=True) as gw:
        placed = await gw.call("place_equity_order", _buy(gw.account))
        account = {"account_number": gw.account}
        direct = gw.venue.data("get_equity_orders", account)
        orders = await gw.call("get_equity_orders", account)
        lots = await gw.call("get_equity_tax_lots", {**account, "symbol": "SPY"})
    assert placed["structuredContent"]["data"]["paper"] is False
    assert orders["structuredContent"]["data"] == direct
    assert orders["structuredContent"]["guide"] != PAPER_GUIDE
    assert lots["isError"] is False
    assert ("get_equity_orders", account) in gw.backend.forwarded


def test_every_captured_tool_that_reads_the_account_is_in_the_one_table() -> None:
    inventory = load_inventory()
    assert set(ACCOUNT_READS) <= set(inventory)
    for name, spec in inventory.items():
        if spec.tool_class.value != "read" or name in ACCOUNT_READS:
            continue
        # Everything else the venue lists as a read is market data: forwarded on paper.
        assert paper_entry(name, {"inputSchema": spec.input_schema}) == FORWARD, name
    assert paper_entry("get_cash_history", None) == REFUSE
    assert paper_entry("get_everything", {"inputSchema": {"properties": {}}}) == FORWARD
    assert paper_entry("review_equity_order", None) is ACCOUNT_READS["review_equity_order"]


@pytest.mark.req("gateway.record.fills")
async def test_gate_record_shows_each_filing_with_its_terms_status_fills_and_a_grade_slot(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        placed = await gw.call("place_equity_order", _buy(gw.account))
        refused = await gw.call("place_equity_order", _buy(gw.account, quantity="1000"))
        orders = await gw.call("get_equity_orders", {"account_number": gw.account})
        result = await gw.call("gate_record")
        theirs = await gw.call("gate_record", token=OTHER_TOKEN)
    data = result["structuredContent"]["data"]
    assert data["paper"] is True
    newest, filled = data["filings"]
    assert newest["filing_id"] == refused["structuredContent"]["data"]["filing_id"]
    assert (newest["status"], newest["fills"], newest["filled_quantity"]) == ("refused", [], "0")
    assert newest["average_price"] is None and newest["grade"] is None
    assert filled["filing_id"] == placed["structuredContent"]["data"]["filing_id"]
    assert (filled["status"], filled["symbol"], filled["side"]) == ("filled", "SPY", "buy")
    [execution] = _paper(orders)["orders"][0]["executions"]
    [fill] = filled["fills"]
    assert Decimal(fill["price"]) == Decimal(execution["price"])
    assert (fill["quantity"], fill["fees"], fill["id"]) == ("2", "0.00", execution["id"])
    assert filled["filled_quantity"] == "2"
    assert Decimal(filled["average_price"]) == Decimal(execution["price"])
    assert filled["grade"] is None
    assert theirs["structuredContent"]["data"]["filings"] == []


async def test_gate_record_in_live_mode_shows_fills_without_inventing_fees(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path, live=True) as gw:
        await gw.call("place_equity_order", _buy(gw.account))
        gw.clock.advance(timedelta(minutes=1))
        await gw.guard.reconcile()
        result = await gw.call("gate_record")
    data = result["structuredContent"]["data"]
    assert data["paper"] is False
    [filing] = data["filings"]
    [fill] = filing["fills"]
    assert fill["fees"] is None and fill["quantity"] == "2"


async def test_a_resting_then_cancelled_paper_order_shows_its_hold_and_its_end(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        await gw.call("place_equity_order", _buy(gw.account))
        quote = gw.venue.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
        above = (Decimal(quote["bid_price"]) * Decimal("1.05")).quantize(Decimal("0.01"))
        rest = {**_buy(gw.account, quantity="1"), "side": "sell", "type": "limit"}
        resting = await gw.call(
            "place_equity_order", {**rest, "limit_price": str(above), "time_in_force": "gtc"}
        )
        order_id = resting["structuredContent"]["data"]["order_id"]
        account = {"account_number": gw.account}
        held = await gw.call("get_equity_positions", account)
        open_order = await gw.call("get_equity_orders", {**account, "order_id": order_id})
        await gw.call("cancel_equity_order", {**account, "order_id": order_id})
        ended = await gw.call("get_equity_orders", {**account, "state": "cancelled"})
    [position] = _paper(held)["positions"]
    assert position["shares_held_for_sells"] == position["shares_available_for_sells"] == "1"
    [queued] = _paper(open_order)["orders"]
    assert queued["state"] in ("queued", "confirmed") and queued["last_transaction_at"] is None
    assert (queued["type"], queued["price"]) == ("limit", str(above))
    _validate("get_equity_orders", ended)
    [cancelled] = _paper(ended)["orders"]
    assert cancelled["id"] == order_id and cancelled["executions"] == []
    assert cancelled["last_transaction_at"] is not None


async def test_an_order_held_for_approval_is_not_yet_a_paper_order(tmp_path: Path) -> None:
    async with gateway(tmp_path, config=policy('approval = "always"')) as gw:
        held = await gw.call("place_equity_order", _buy(gw.account))
        orders = await gw.call("get_equity_orders", {"account_number": gw.account})
    assert held["structuredContent"]["data"]["status"] == "pending_approval"
    assert _paper(orders)["orders"] == []


async def test_paper_holdings_without_a_price_are_refused_rather_than_valued_at_a_guess(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        await gw.call("place_equity_order", _buy(gw.account))
        gw.venue.faults(drop_before=1)
        positions = await gw.refusal("get_equity_positions", {"account_number": gw.account})
        gw.venue.faults(drop_before=1)
        portfolio = await gw.refusal("get_portfolio", {"account_number": gw.account})
    assert positions["code"] == portfolio["code"] == "PAPER_PRICE_UNKNOWN"


def test_a_rejected_paper_order_carries_its_reason_on_the_wire() -> None:
    now = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
    order = PaperOrder(
        order_id="paper-1",
        ref_id=uuid.uuid4(),
        account="5QR00001",
        proposal=Proposal(symbol="SPY", side=Side.BUY, notional=Decimal("25")),
        state=OrderState.REJECTED,
        triggered=False,
        reject_reason="insufficient_buying_power",
        created_at=now,
        updated_at=now + timedelta(seconds=1),
    )
    wire = order_wire(order)
    assert wire["reject_reason"] == "insufficient_buying_power"
    assert wire["quantity"] is None and wire["average_price"] is None
    assert wire["dollar_based_amount"] == {"amount": "25.00", "currency_code": "USD"}
    assert wire["last_transaction_at"] == "2026-12-01T15:00:01.000000Z"
