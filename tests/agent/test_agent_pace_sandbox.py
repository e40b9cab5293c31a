"""The wall's pace checks through the agent runtime: the rebalancer's orders on the sandbox,
through the guard, on a stepped clock. The same order again inside ``duplicate_window_s`` is
refused ``duplicate_order``, and an order past ``max_orders_per_minute`` ``order_rate``, each
to the second and the order, naming its numbers; nothing refused reaches the venue."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from agent_kit import POLICY, AgentRun, agent_on_sandbox, settle, status

from ordergate.agent import AgentState, Tick
from ordergate.ledger import FilingStatus, UnknownFilingError

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
# $100 an order: each tick buys the same $100 of SPY and of VTI, far from their targets.
SMALL_ORDERS = POLICY.replace('max_order_usd = "3000"', 'max_order_usd = "100"')


def _limits(extra: str) -> str:
    return SMALL_ORDERS.replace("[limits]\n", f"[limits]\n{extra}\n")


async def _tick(run: AgentRun) -> Tick:
    tick = await run.agent.tick()
    assert tick.state is AgentState.RUNNING, tick.plan.rationale
    assert [(i.symbol, str(i.notional)) for i, _ in tick.orders] == [
        ("SPY", "100.00"),
        ("VTI", "100.00"),
    ]
    return tick


async def _filled(run: AgentRun) -> None:
    """A tick whose two orders the venue takes (``submitted``) and fills once settled."""
    tick = await _tick(run)
    assert all(o.status is FilingStatus.SUBMITTED for _, o in tick.orders), tick.orders
    await settle(run)
    assert all(status(run, o) is FilingStatus.FILLED for _, o in tick.orders), tick.orders


def _at(run: AgentRun, seconds: int) -> None:
    """The clock ``seconds`` after the first tick (settling moved it on meanwhile)."""
    run.clock.set(OPEN + timedelta(seconds=seconds))


def _never_sent(run: AgentRun, tick: Tick) -> None:
    orders = run.running.guard.ledger.orders
    for _, outcome in tick.orders:
        assert outcome.status is FilingStatus.REFUSED and outcome.order_id is None
        with pytest.raises(UnknownFilingError):
            orders.get(outcome.filing_id)


@pytest.mark.anyio
@pytest.mark.req("wall.duplicate-order")
async def test_the_rebalancers_same_order_inside_the_window_is_refused_duplicate_order(
    tmp_path: Path,
) -> None:
    policy = _limits("duplicate_window_s = 30")
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=policy) as run:
        await _filled(run)
        _at(run, 29)
        again = await _tick(run)
        assert [o.reasons for _, o in again.orders] == [("duplicate_order",)] * 2
        _never_sent(run, again)
        for _, outcome in again.orders:
            assert "duplicate_order: 1 order(s) with the same terms" in outcome.message
            assert "limits.duplicate_window_s = 30" in outcome.message
        _at(run, 30)
        await _filled(run)


@pytest.mark.anyio
@pytest.mark.req("wall.order-rate")
async def test_the_rebalancers_order_past_max_orders_per_minute_is_refused_order_rate(
    tmp_path: Path,
) -> None:
    policy = _limits("duplicate_window_s = 0\nmax_orders_per_minute = 3")
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=policy) as run:
        await _filled(run)
        _at(run, 3)
        # The third order of the minute is at the cap and goes; the fourth is past it.
        third, fourth = (outcome for _, outcome in (await _tick(run)).orders)
        assert third.status is FilingStatus.SUBMITTED, third
        assert fourth.reasons == ("order_rate",) and fourth.order_id is None
        assert "order_rate: 3 orders accepted from you in the last minute" in fourth.message
        assert "limits.max_orders_per_minute = 3" in fourth.message
        await settle(run)
        assert status(run, third) is FilingStatus.FILLED
        _at(run, 59)  # 59 s after the first tick: still three
        held = await _tick(run)
        assert [o.reasons for _, o in held.orders] == [("order_rate",)] * 2
        _never_sent(run, held)
        _at(run, 60)  # the first tick's two are a minute old
        await _filled(run)


@pytest.mark.anyio
async def test_the_rebalancers_order_past_max_orders_per_day_is_refused_naming_the_days_count(
    tmp_path: Path,
) -> None:
    policy = _limits("duplicate_window_s = 0").replace(
        "max_orders_per_day = 200", "max_orders_per_day = 3"
    )
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=policy) as run:
        await _filled(run)
        _at(run, 60)
        # The third order of the day is under the cap and goes; the fourth meets it.
        third, fourth = (outcome for _, outcome in (await _tick(run)).orders)
        assert third.status is FilingStatus.SUBMITTED, third
        await settle(run)
        assert status(run, third) is FilingStatus.FILLED
        assert fourth.reasons == ("max_orders_per_day",) and fourth.order_id is None
        assert (
            "max_orders_per_day: 3 orders filed in the last 24 h (limits.max_orders_per_day = 3)"
        ) in fourth.message
