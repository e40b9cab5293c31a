"""The numbers behind a refusal through the guard, on paper and against the sandbox venue, at
stage A (the estimate) and at stage B (the review of an approved order): open orders, the
day's orders, positions held, the breakers' equity and marks, and the quote's spread, each
named with its policy key. (Each code's boundary, one order, cent, second or bp either side,
is pinned on the policy's own decision in ``test_refusal_figures.py``.)"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from guard_kit import Desk, buy, desk, limit_buy, policy

from ordergate.execution import Outcome
from ordergate.ledger import FilingStatus
from ordergate.policy import Stage

pytestmark = pytest.mark.anyio

LIVE = pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
HELD = 'approval = "always"\n[limits]\nduplicate_window_s = 0'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _resting(d: Desk, symbol: str) -> Decimal:
    """A limit price 5 % under the bid: inside the open policy's collar, and resting."""
    return (Decimal(d.quote(symbol)["bid_price"]) * Decimal("0.95")).quantize(Decimal("0.01"))


async def _two_held(d: Desk) -> Outcome:
    """Two buys held for approval (each an open order and one of the day's): the first."""
    first = await d.guard.submit(buy("SPY"), identity="agent")
    second = await d.guard.submit(buy("SPY", quantity=Decimal(2)), identity="agent")
    assert first.status is second.status is FilingStatus.PENDING_APPROVAL
    return first


def _refused_at(outcome: Outcome, stage: Stage, code: str) -> str:
    assert outcome.status is FilingStatus.REFUSED and outcome.stage is stage, outcome
    assert code in outcome.reasons
    return outcome.message


@LIVE
async def test_max_open_orders_names_the_open_count_at_stage_a_and_at_review(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live, config=policy(HELD)) as d:
        first = await _two_held(d)
        narrow = d.guard.narrowed(policy(f"{HELD}\nmax_open_orders = 1"))
        message = _refused_at(
            await narrow.submit(buy("SPY", quantity=Decimal(3)), identity="agent"),
            Stage.ESTIMATE,
            "max_open_orders",
        )
        assert (
            "max_open_orders: 2 open orders (2 filed here, 0 at the broker not filed here) "
            "(limits.max_open_orders = 1)"
        ) in message
        # At review the order under review is not its own open order: the other one is.
        assert first.approval_id is not None
        message = _refused_at(
            await narrow.approve(first.approval_id, by="owner"), Stage.REVIEW, "max_open_orders"
        )
        assert "max_open_orders: 1 open orders (1 filed here, 0 at the broker" in message


@LIVE
async def test_max_orders_per_day_names_the_rolling_count_at_stage_a_and_at_review(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live, config=policy(HELD)) as d:
        first = await _two_held(d)
        narrow = d.guard.narrowed(policy(f"{HELD}\nmax_orders_per_day = 1"))
        message = _refused_at(
            await narrow.submit(buy("SPY", quantity=Decimal(3)), identity="agent"),
            Stage.ESTIMATE,
            "max_orders_per_day",
        )
        assert (
            "max_orders_per_day: 2 orders filed in the last 24 h (limits.max_orders_per_day = 1)"
        ) in message
        assert first.approval_id is not None
        message = _refused_at(
            await narrow.approve(first.approval_id, by="owner"), Stage.REVIEW, "max_orders_per_day"
        )
        assert "max_orders_per_day: 1 orders filed in the last 24 h" in message


@LIVE
async def test_max_positions_names_the_positions_held_at_stage_a_and_at_review(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live, config=policy(HELD)) as d:
        placed = await d.guard_with(policy()).submit(buy("SPY"), identity="agent")
        d.step(5)
        await d.guard.reconcile()
        assert d.ledger.filing(placed.filing_id).status is FilingStatus.FILLED
        held = await d.guard.submit(buy("QQQ"), identity="agent")
        assert held.approval_id is not None
        narrow = d.guard.narrowed(policy(f"{HELD}\nmax_positions = 1"))
        expected = (
            "max_positions: 1 positions held, and this order opens another "
            "(limits.max_positions = 1)"
        )
        refused = await narrow.submit(buy("AAPL"), identity="agent")
        assert expected in _refused_at(refused, Stage.ESTIMATE, "max_positions")
        reviewed = await narrow.approve(held.approval_id, by="owner")
        assert expected in _refused_at(reviewed, Stage.REVIEW, "max_positions")


@LIVE
async def test_the_breakers_name_equity_and_its_marks_at_stage_a_and_at_review(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live, config=policy(HELD)) as d:
        held = await d.guard.submit(buy("SPY"), identity="agent")
        assert held.approval_id is not None
        # The first decision of the day started the session at the equity (nothing filled).
        session = d.ledger.controls.session_start_equity(d.account)
        assert session is not None
        equity = session.equity
        # A peak 20 % above equity, and the session begun $1,000 above it.
        peak = equity * Decimal("1.25")
        d.ledger.controls.set_high_water_mark(peak, account=d.account)
        d.ledger.controls.set_session_start_equity(
            session.session, equity + 1000, account=d.account
        )
        drawn = f"drawdown_halt: equity ${equity:.2f} is ${peak - equity:.2f} (20.00 %) below "
        lost = f"daily_loss_halt: equity ${equity:.2f} is $1000.00 below the session's start"
        refused = await d.guard.submit(buy("SPY", quantity=Decimal(2)), identity="agent")
        message = _refused_at(refused, Stage.ESTIMATE, "drawdown_halt")
        assert drawn in message and "(limits.drawdown_halt_bps = 1000, 10 %)" in message
        assert lost in message and "(limits.daily_loss_halt_usd = $250.00)" in message
        reviewed = await d.guard.approve(held.approval_id, by="owner")
        message = _refused_at(reviewed, Stage.REVIEW, "daily_loss_halt")
        assert drawn in message and lost in message


@LIVE
async def test_spread_too_wide_names_the_bid_the_ask_and_the_spread_at_stage_a_and_at_review(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live, config=policy(HELD)) as d:
        # The venue quotes AAPL two bps wide.
        held = await d.guard.submit(limit_buy("AAPL", str(_resting(d, "AAPL"))), identity="a")
        assert held.approval_id is not None
        narrow = d.guard.narrowed(policy(f"{HELD}\nmax_spread_bps = 1"))
        refused = await narrow.submit(buy("AAPL", quantity=Decimal(2)), identity="agent")
        message = _refused_at(refused, Stage.ESTIMATE, "spread_too_wide")
        quote = d.quote("AAPL")
        assert f"spread_too_wide: bid ${quote['bid_price']}, ask ${quote['ask_price']}" in message
        assert "bps of the mid (limits.max_spread_bps = 1)" in message
        reviewed = await narrow.approve(held.approval_id, by="owner")
        message = _refused_at(reviewed, Stage.REVIEW, "spread_too_wide")
        assert "bps of the mid (limits.max_spread_bps = 1)" in message
