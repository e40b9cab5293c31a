"""Each strategy shape's life through the gateway, in live mode against the sandbox and on
paper (the venue's engine on the sandbox's prices), on a margin account at option level 3:
placed for more contracts than the venue's quotes ever display
(at most 150 a side), so the first look fills part and the reconciler follows the order
through its partial fills to the full fill, the hold ending at the premium the venue says
filled; then the contracts' expiration, in the money where the shape can be assigned (a
covered call's shares delivered, a cash-secured put's bought) and settled in cash where it
cannot (a long option, a spread's legs), the order's reservation staying at the premium that
filled."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway
from options_kit import (
    account_data,
    account_orders,
    answer_data,
    at_natural,
    leg,
    near_money,
    option_gateway,
    option_journal,
    option_policy,
)

from ordergate.ledger import FilingStatus
from ordergate.policy import PolicyConfig
from ordergate.venues import OptionAccount

pytestmark = pytest.mark.anyio

UNITS = 151  # one more than a look ever fills
LOOKS = 60  # bound on the looks followed to the full fill
BIG = '"100000000"'
CASH = Decimal("50000000")


@pytest.fixture(params=[True, False], ids=["live", "paper"])
def live(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def _policy() -> PolicyConfig:
    rules = option_policy(
        limits='max_order_usd = "100000000"\nmax_daily_usd = "100000000"\nmax_open_orders = 100',
        max_contracts="10000",
        max_premium_usd=BIG,
        max_daily_premium_usd=BIG,
        max_loss_usd=BIG,
    )
    return replace(rules, paper_cash_usd=CASH)


@dataclass(frozen=True, slots=True)
class Life:
    """What the order's life left: the filing's statuses as the reconciler saw them, the
    venue's order, the hold, and the account's holdings of AAPL after the expiration."""

    statuses: list[FilingStatus]
    sent: dict[str, Any]
    held: Decimal
    held_after_expiry: Decimal
    before: OptionAccount
    after: OptionAccount


async def _live(
    gw: Gateway,
    legs: list[dict[str, Any]],
    strategy: str,
    *,
    shock: str | None = None,
    quantity: int = UNITS,
) -> Life:
    placed = await gw.call("place_option_order", at_natural(gw, legs, quantity=quantity))
    data = answer_data(placed)
    assert data["status"] == "submitted", (data["reasons"], data["message"])
    filing_id = data["filing_id"]
    assert option_journal(gw, filing_id)["strategy"] == strategy
    statuses: list[FilingStatus] = []
    for _ in range(LOOKS):  # one second (one look) at a time
        gw.clock.advance(timedelta(seconds=1))
        await gw.guard.reconcile()
        status = gw.ledger.filing(filing_id).status
        if not statuses or statuses[-1] is not status:
            statuses.append(status)
        if status.terminal:
            break
    (sent,) = [o for o in await account_orders(gw) if o["id"] == data["order_id"]]
    held = _held(gw)
    filled_at = gw.clock.now()
    lane = gw.guard.venue.options
    assert lane is not None
    before = await lane.holdings(gw.account, "AAPL")
    if shock is not None:
        gw.venue.admin("shock", {"symbol": "AAPL", "pct": shock})
    expiry = date.fromisoformat(gw.ledger.filing(filing_id).terms["legs"][0]["expiry"])
    gw.clock.set(datetime.combine(expiry, time(21, 1), UTC))
    await gw.guard.reconcile()
    after = await lane.holdings(gw.account, "AAPL")
    held_after = gw.ledger.rolling_spend(gw.account, now=filled_at, kind="option_order").notional
    return Life(statuses, sent, held, held_after, before, after)


def _held(gw: Gateway) -> Decimal:
    return gw.ledger.rolling_spend(gw.account, kind="option_order").notional


def _followed_to_the_fill(life: Life, quantity: int = UNITS) -> None:
    """Working, partly filled, then filled; the hold at the premium the venue says filled."""
    assert life.statuses[-2:] == [FilingStatus.PARTIALLY_FILLED, FilingStatus.FILLED]
    assert set(life.statuses[:-2]) <= {FilingStatus.SUBMITTED}, life.statuses
    assert life.sent["processed_quantity"] == str(quantity)
    assert all(len(item["executions"]) > 1 for item in life.sent["legs"])
    assert life.held == Decimal(life.sent["processed_premium"])
    assert life.held_after_expiry == life.held


def _opened(life: Life, legs: list[dict[str, Any]], quantity: int = UNITS) -> None:
    """Each leg held (long or short) before the expiration, none after it."""
    assert life.before.contracts == {
        item["option_id"]: Decimal(quantity if item["side"] == "buy" else -quantity)
        for item in legs
    }
    assert life.after.contracts == {}


async def test_a_long_call_partly_fills_then_fills_and_settles_in_cash_at_expiry(
    tmp_path: Path, live: bool
) -> None:
    async with option_gateway(tmp_path, live=live, config=_policy(), venue_cash=CASH) as gw:
        legs = [leg(near_money(gw, "call")["id"])]
        life = await _live(gw, legs, "long_call", shock="10")
        cash_before = life.before.cash
    _followed_to_the_fill(life)
    _opened(life, legs)
    assert life.after.shares == life.before.shares == 0  # never exercised on its own
    assert cash_before is not None and life.after.cash is not None
    assert life.after.cash > cash_before  # in the money: its intrinsic value paid in cash


async def test_a_cash_secured_put_partly_fills_then_fills_and_is_assigned_at_expiry(
    tmp_path: Path, live: bool
) -> None:
    async with option_gateway(tmp_path, live=live, config=_policy(), venue_cash=CASH) as gw:
        legs = [leg(near_money(gw, "put", -1)["id"], "sell")]
        life = await _live(gw, legs, "cash_secured_put", shock="-10")
    _followed_to_the_fill(life)
    _opened(life, legs)
    assert life.after.shares == UNITS * 100  # assigned: bought at the strike


async def test_a_covered_call_partly_fills_then_fills_and_is_assigned_at_expiry(
    tmp_path: Path, live: bool
) -> None:
    async with option_gateway(tmp_path, live=live, config=_policy(), venue_cash=CASH) as gw:
        shares = UNITS * 100
        bought = await account_data(
            gw,
            "place_equity_order",
            {
                "account_number": gw.account,
                "symbol": "AAPL",
                "side": "buy",
                "type": "market",
                "quantity": str(shares),
                "ref_id": "2f0c6c3e-5a8e-4a55-9d55-3c1f7a6b0c11",
            },
        )
        assert bought["order"]["id"]
        for _ in range(LOOKS):
            gw.clock.advance(timedelta(seconds=1))
            lane = gw.guard.venue.options
            assert lane is not None
            if (await lane.holdings(gw.account, "AAPL")).shares == shares:
                break
        legs = [leg(near_money(gw, "call", 1)["id"], "sell")]
        life = await _live(gw, legs, "covered_call", shock="10")
    _followed_to_the_fill(life)
    _opened(life, legs)
    assert life.before.shares == shares
    assert life.after.shares == 0  # assigned: the shares delivered at the strike


async def test_a_debit_vertical_partly_fills_then_fills_and_settles_in_cash_at_expiry(
    tmp_path: Path, live: bool
) -> None:
    async with option_gateway(tmp_path, live=live, config=_policy(), venue_cash=CASH) as gw:
        legs = [leg(near_money(gw, "call")["id"]), leg(near_money(gw, "call", 2)["id"], "sell")]
        life = await _live(gw, legs, "debit_vertical", shock="10")
    _followed_to_the_fill(life)
    _opened(life, legs)
    assert life.after.shares == 0  # a spread's short leg is covered: settled, not assigned


async def test_a_credit_vertical_partly_fills_then_fills_and_settles_in_cash_at_expiry(
    tmp_path: Path, live: bool
) -> None:
    async with option_gateway(tmp_path, live=live, config=_policy(), venue_cash=CASH) as gw:
        legs = [
            leg(near_money(gw, "put")["id"], "sell"),
            leg(near_money(gw, "put", -2)["id"]),
        ]
        life = await _live(gw, legs, "credit_vertical", shock="-10")
    _followed_to_the_fill(life)
    _opened(life, legs)
    assert life.after.shares == 0


async def test_an_iron_condor_partly_fills_then_fills_and_settles_in_cash_at_expiry(
    tmp_path: Path, live: bool
) -> None:
    async with option_gateway(tmp_path, live=live, config=_policy(), venue_cash=CASH) as gw:
        legs = [
            leg(near_money(gw, "put", -2)["id"]),
            leg(near_money(gw, "put", -1)["id"], "sell"),
            leg(near_money(gw, "call", 1)["id"], "sell"),
            leg(near_money(gw, "call", 2)["id"]),
        ]
        life = await _live(gw, legs, "iron_condor", shock="10")
    _followed_to_the_fill(life)
    _opened(life, legs)
    assert life.after.shares == 0
