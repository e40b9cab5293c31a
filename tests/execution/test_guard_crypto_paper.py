"""Paper crypto end to end through the guard: the MCP crypto lane over the paper caller, the
venue's own crypto desk in the engine filling on the upstream's crypto quotes (a real sandbox
venue on loopback). Market and limit buys and sells, by units and by dollars, a partial fill,
a cancel, a rejection; the reservations end at what filled; nothing reaches the upstream's
own crypto desk. The REST lane on paper trades the same book, and is held to no rate."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from client_testkit import rhs_account_number
from guard_kit import Desk, desk, policy

from ordergate.client.crypto_rest import BURST, PER_MINUTE
from ordergate.core import CryptoOrderType, Side
from ordergate.execution import CRYPTO_KIND
from ordergate.ledger import FilingStatus
from ordergate.policy import CryptoProposal
from ordergate.venues.paper import PaperVenue

pytestmark = pytest.mark.anyio
BOUND_S = 10

CRYPTO = """
[crypto]
pairs = ["BTC-USD", "ETH-USD"]
max_order_usd = "40000"
max_position_pct = "100"
price_collar_bps = 500
"""
D = Decimal


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def rhs(d: Desk) -> str:
    return rhs_account_number(d.venue)


def crypto(d: Desk, **fields: Any) -> CryptoProposal:
    terms: dict[str, Any] = {
        "pair": "BTC-USD",
        "side": Side.BUY,
        "asset_quantity": D("0.01"),
        "account": rhs(d),
    }
    terms.update(fields)
    return CryptoProposal(**terms)


async def paper_orders(d: Desk) -> list[dict[str, Any]]:
    assert isinstance(d.port, PaperVenue)
    with anyio.fail_after(BOUND_S):
        listed = await d.port.caller.call("get_crypto_orders", {"rhs_account_number": rhs(d)})
    orders: list[dict[str, Any]] = listed["orders"]
    return orders


def upstream_orders(d: Desk) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = d.venue.data(
        "get_crypto_orders", {"rhs_account_number": rhs(d)}
    )["orders"]
    return listed


async def follow(d: Desk, filing_id: object, steps: int = 10) -> FilingStatus:
    for _ in range(steps):
        status = d.ledger.filing(filing_id).status
        if status.terminal:
            return status
        d.step(1)
        await d.guard.reconcile()
    return d.ledger.filing(filing_id).status


def filled_notional(d: Desk, filing_id: object) -> Decimal:
    return sum((f.notional for f in d.ledger.orders.executions(filing_id)), D(0))


async def test_a_paper_market_buy_by_units_is_placed_on_the_engine_and_reconciled_to_its_fills(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy(CRYPTO)) as d:
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is FilingStatus.SUBMITTED and outcome.order_id
        record = d.ledger.filing(outcome.filing_id)
        assert record.kind == CRYPTO_KIND
        assert (record.terms["lane"], record.terms["pair"]) == ("mcp", "BTC-USD")
        [order] = await paper_orders(d)
        assert (order["id"], order["ref_id"]) == (outcome.order_id, str(outcome.filing_id))
        assert await follow(d, outcome.filing_id) is FilingStatus.FILLED
        filled = filled_notional(d, outcome.filing_id)
        assert filled > 0
        assert d.ledger.rolling_spend(d.account).notional == filled
        assert upstream_orders(d) == []  # nothing reached a market


async def test_a_paper_buy_by_dollars_and_a_sell_by_units_end_at_what_filled(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy(CRYPTO)) as d:
        bought = await d.guard.submit_crypto(
            crypto(d, pair="ETH-USD", asset_quantity=None, quote_amount=D("500.00")),
            identity="a",
        )
        assert await follow(d, bought.filing_id) is FilingStatus.FILLED
        units = sum((f.quantity for f in d.ledger.orders.executions(bought.filing_id)), D(0))
        assert units > 0
        sold = await d.guard.submit_crypto(
            crypto(d, pair="ETH-USD", side=Side.SELL, asset_quantity=units), identity="a"
        )
        assert sold.status is FilingStatus.SUBMITTED
        assert await follow(d, sold.filing_id) is FilingStatus.FILLED
        assert d.ledger.rolling_spend(d.account).notional == filled_notional(d, bought.filing_id)
        assert upstream_orders(d) == []


async def test_a_paper_limit_sell_rests_and_a_cancel_through_the_guard_ends_it(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy(CRYPTO + "price_collar_bps = 10000\n")) as d:
        bought = await d.guard.submit_crypto(crypto(d, asset_quantity=D("0.02")), identity="a")
        assert await follow(d, bought.filing_id) is FilingStatus.FILLED
        resting = await d.guard.submit_crypto(
            crypto(d, order_type=CryptoOrderType.LIMIT, limit_price=D("50000.00")), identity="a"
        )
        assert resting.status is FilingStatus.SUBMITTED
        held = d.ledger.rolling_spend(d.account).notional
        assert held == filled_notional(d, bought.filing_id) + D("500.00")
        d.step(2)
        cancelled = await d.guard.cancel(resting.filing_id, identity="a")
        assert cancelled.status is FilingStatus.CANCELLED
        assert d.ledger.rolling_spend(d.account).notional == filled_notional(d, bought.filing_id)
        states = {o["id"]: o["state"] for o in await paper_orders(d)}
        assert states[resting.order_id] == "canceled"


async def test_a_big_paper_buy_fills_over_several_executions_partially_filled_in_between(
    tmp_path: Path,
) -> None:
    wide = policy('[limits]\nmax_daily_usd = "100000"\n' + CRYPTO)
    async with desk(tmp_path, config=wide) as d:
        # The desk executes at most $25000 a look: 0.3 BTC takes two looks or more.
        outcome = await d.guard.submit_crypto(crypto(d, asset_quantity=D("0.3")), identity="a")
        seen = set()
        for _ in range(10):
            d.step(1)
            await d.guard.reconcile()
            seen.add(d.ledger.filing(outcome.filing_id).status)
        assert FilingStatus.PARTIALLY_FILLED in seen
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        assert len(d.ledger.orders.executions(outcome.filing_id)) >= 2
        assert d.ledger.rolling_spend(d.account).notional == filled_notional(d, outcome.filing_id)


async def test_a_paper_order_the_engine_refuses_is_recorded_and_holds_nothing(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy(CRYPTO)) as d:
        # More than the paper book's cash: the engine refuses it as the venue would.
        outcome = await d.guard.submit_crypto(crypto(d, asset_quantity=D("0.7")), identity="a")
        status = await follow(d, outcome.filing_id)
        assert status in (FilingStatus.REJECTED, FilingStatus.FAILED, FilingStatus.REFUSED)
        assert d.ledger.rolling_spend(d.account).notional == 0
        assert await paper_orders(d) == []


async def test_both_paper_lanes_trade_one_book_a_buy_on_the_mcp_lane_is_sold_on_the_rest_lane(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy(CRYPTO)) as d:
        bought = await d.guard.submit_crypto(crypto(d, asset_quantity=D("0.02")), identity="a")
        assert await follow(d, bought.filing_id) is FilingStatus.FILLED
        d.guard.use_policy(policy(CRYPTO + 'route = "rest"\n'))
        # Only what the MCP lane bought is there to sell: the REST lane reads the same book.
        sold = await d.guard.submit_crypto(
            crypto(d, side=Side.SELL, asset_quantity=D("0.02")), identity="a"
        )
        assert sold.status is FilingStatus.SUBMITTED, sold
        lanes = [d.ledger.filing(f).terms["lane"] for f in (bought.filing_id, sold.filing_id)]
        assert lanes == ["mcp", "rest"]
        assert await follow(d, sold.filing_id) is FilingStatus.FILLED
        listed = {o["ref_id"]: o["state"] for o in await paper_orders(d)}
        assert listed == {str(bought.filing_id): "filled", str(sold.filing_id): "filled"}
        assert upstream_orders(d) == []


async def test_the_paper_rest_lane_answers_past_the_apis_burst_without_waiting(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy(CRYPTO)) as d:
        assert isinstance(d.port, PaperVenue)
        lane = d.port.crypto.named("rest")
        assert lane is not None
        # Held to the API's rate, the 50 requests past the burst would wait 30 s at least.
        extra, bound_s = 50, 25
        assert extra * 60 / PER_MINUTE > bound_s
        with anyio.fail_after(bound_s):
            for _ in range(BURST + extra):
                assert await lane.quote("BTC-USD") is not None
