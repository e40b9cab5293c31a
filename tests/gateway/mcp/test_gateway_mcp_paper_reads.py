"""Paper is the whole loop: in paper mode the account reads an agent makes through the gateway
are the venue's own engine's answers on the paper book, in the venue's own schemas, marked
paper; the account list still comes from the upstream; live mode passes through (issues 15 §1
and 24 §1). Over real loopback HTTP in front of a real sandbox venue. A paper market order
fills as the venue's do, once the clock has moved (``_settle``)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp_gateway_kit import OTHER_TOKEN, Gateway, gateway, policy

from ordergate.gateway.mcp._paper import ENGINE, FORWARD, PAPER_GUIDE, REFUSE, paper_entry
from ordergate.inventory import load_inventory
from ordergate.venues.paper import ANSWERED

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


async def _settle(gw: Gateway) -> None:
    """The venue's clock moves past a market order's fill, and the reconciler books it."""
    gw.clock.advance(timedelta(seconds=2))
    await gw.guard.reconcile()


@pytest.mark.req("gateway.paper.reads-from-book")
async def test_a_paper_order_reads_back_through_orders_positions_and_portfolio_marked_paper(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        placed = await gw.call("place_equity_order", _buy(gw.account))
        await _settle(gw)
        order_id = placed["structuredContent"]["data"]["order_id"]
        account = {"account_number": gw.account}
        orders = await gw.call("get_equity_orders", account)
        one = await gw.call("get_equity_orders", {**account, "order_id": order_id})
        positions = await gw.call("get_equity_positions", account)
        portfolio = await gw.call("get_portfolio", account)
        venue_orders = gw.venue.data("get_equity_orders", account)
        view = await gw.guard.reader.read(gw.account, None)
    assert placed["structuredContent"]["data"]["paper"] is True
    _validate("get_equity_orders", orders)
    _validate("get_equity_orders", one)
    _validate("get_portfolio", portfolio)
    [order] = _paper(orders)["orders"]
    assert _paper(one)["orders"] == [order]
    assert order["id"] == order_id
    assert order["ref_id"] == placed["structuredContent"]["data"]["filing_id"]
    assert (order["symbol"], order["side"], order["state"]) == ("SPY", "buy", "filled")
    [execution] = order["executions"]
    assert Decimal(execution["quantity"]) == 2 and Decimal(execution["price"]) > 0
    [position] = _paper(positions)["positions"]
    assert position["symbol"] == "SPY" and Decimal(position["quantity"]) == 2
    data = _paper(portfolio)
    cash = Decimal(100000) - 2 * Decimal(execution["price"])
    assert Decimal(data["cash"]) == cash
    assert view.cash == cash
    # Answered by the engine on the paper book: nothing was sent to the venue's real book.
    assert gw.backend.forwarded == []
    assert venue_orders["orders"] == []


async def test_paper_positions_have_the_fields_the_venue_lists_for_a_position(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        await gw.call("place_equity_order", _buy(gw.account))
        gw.venue.data("place_equity_order", {**_buy(gw.account), "ref_id": str(uuid.uuid4())})
        await _settle(gw)
        venue_rows = gw.venue.data("get_equity_positions", {"account_number": gw.account})
        paper = await gw.call("get_equity_positions", {"account_number": gw.account})
    [row] = _paper(paper)["positions"]
    [venue_row] = venue_rows["positions"]
    assert set(row) == set(venue_row)
    assert {key: type(value) for key, value in row.items()} == {
        key: type(venue_row[key]) for key in row
    }


async def test_paper_orders_are_filtered_by_the_venues_own_filters(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        spy = await gw.call("place_equity_order", _buy(gw.account))
        aapl = await gw.call("place_equity_order", _buy(gw.account, "AAPL", "1"))
        await _settle(gw)
        account = {"account_number": gw.account}
        newest_first = await gw.call("get_equity_orders", account)
        by_symbol = await gw.call("get_equity_orders", {**account, "symbol": "SPY"})
        by_state = await gw.call("get_equity_orders", {**account, "state": "cancelled"})
    ids = [r["structuredContent"]["data"]["order_id"] for r in (aapl, spy)]
    assert [order["id"] for order in _paper(newest_first)["orders"]] == ids
    assert [order["symbol"] for order in _paper(by_symbol)["orders"]] == ["SPY"]
    assert _paper(by_state)["orders"] == []


async def test_a_paper_read_of_another_account_is_refused_and_nothing_is_sent(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        orders = await gw.refusal("get_equity_orders", {"account_number": "5QR00000"})
        portfolio = await gw.refusal("get_portfolio", {"account_number": "5QR00000"})
        positions = await gw.refusal("get_equity_positions", {"account_number": "5QR00000"})
    assert orders["code"] == portfolio["code"] == positions["code"]
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
        new_tool = await gw.refusal("get_margin_balances", {"account_number": gw.account})
        quotes = await gw.call("get_equity_quotes", {"symbols": ["SPY"]})
        accounts = await gw.call("get_accounts")
    assert new_tool["code"] == "PAPER_NOT_ANSWERED"
    # The quotes are market data (the paper market adds no slippage here) and the account
    # list is the upstream's: both forwarded unchanged.
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
    assert _paper(positions)["positions"] == []
    _validate("get_portfolio", portfolio)
    assert Decimal(_paper(portfolio)["cash"]) == Decimal(_paper(portfolio)["total_value"])
    assert Decimal(_paper(portfolio)["cash"]) == 100000


@pytest.mark.req("gateway.paper.realized-pnl")
async def test_paper_realized_pnl_is_the_engines_on_the_rhs_account(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        await gw.call("place_equity_order", _buy(gw.account))
        await _settle(gw)
        await gw.call("place_equity_order", {**_buy(gw.account, quantity="1"), "side": "sell"})
        await _settle(gw)
        accounts = await gw.call("get_accounts")
        [agentic] = [
            a
            for a in accounts["structuredContent"]["data"]["accounts"]
            if a["account_number"] == gw.account
        ]
        rhs = {"account_number": agentic["rhs_account_number"]}
        pnl = await gw.call("get_realized_pnl", rhs)
        history = await gw.call("get_pnl_trade_history", rhs)
    _paper(pnl)
    assert len(_paper(history)["trades"]) == 1


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


def test_every_captured_read_is_the_engines_or_forwarded_on_paper() -> None:
    inventory = load_inventory()
    for name, spec in inventory.items():
        if spec.tool_class.value != "read":
            continue
        entry = paper_entry(name, {"inputSchema": spec.input_schema})
        if name in ANSWERED:
            assert entry == ENGINE, name
        elif name not in ("get_equity_quotes", "get_crypto_quotes"):
            assert entry in (FORWARD, REFUSE), name
    assert paper_entry("get_cash_history", None) == REFUSE
    assert paper_entry("get_everything", {"inputSchema": {"properties": {}}}) == FORWARD
    assert paper_entry("review_equity_order", None) == ENGINE
    assert paper_entry("get_accounts", None) == FORWARD


@pytest.mark.req("gateway.record.fills")
async def test_gate_record_shows_each_filing_with_its_terms_status_fills_and_a_grade_slot(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        placed = await gw.call("place_equity_order", _buy(gw.account))
        await _settle(gw)
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
    assert (Decimal(fill["quantity"]), fill["fees"]) == (Decimal(2), "0.00")
    assert Decimal(filled["filled_quantity"]) == 2
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
        await _settle(gw)
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
        cancel = await gw.call("cancel_equity_order", {**account, "order_id": order_id})
        gw.clock.advance(timedelta(seconds=2))
        ended = await gw.call("get_equity_orders", {**account, "state": "cancelled"})
    [position] = _paper(held)["positions"]
    assert Decimal(position["shares_held_for_sells"]) == 1
    [queued] = _paper(open_order)["orders"]
    assert queued["state"] in ("queued", "confirmed", "unconfirmed")
    assert (queued["type"], Decimal(queued["price"])) == ("limit", above)
    assert cancel["isError"] is False, cancel
    _validate("get_equity_orders", ended)
    [cancelled] = _paper(ended)["orders"]
    assert cancelled["id"] == order_id and cancelled["executions"] == []


async def test_an_order_held_for_approval_is_not_yet_a_paper_order(tmp_path: Path) -> None:
    async with gateway(tmp_path, config=policy('approval = "always"')) as gw:
        held = await gw.call("place_equity_order", _buy(gw.account))
        orders = await gw.call("get_equity_orders", {"account_number": gw.account})
    assert held["structuredContent"]["data"]["status"] == "pending_approval"
    assert _paper(orders)["orders"] == []
