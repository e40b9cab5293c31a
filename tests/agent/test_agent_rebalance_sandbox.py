"""The rebalancing agent on the sandbox venue, through the guard, on a stepped clock."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from agent_kit import POLICY, agent_on_sandbox, settle, status
from turn_testkit import impatient_turns, turn_held_elsewhere

from ordergate.agent import DECISION, DROPPED, ORDER, AgentState
from ordergate.core import Side, SteppedClock
from ordergate.ledger import FilingStatus

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.mark.anyio
@pytest.mark.req("agent.guard-only")
async def test_one_tick_in_the_regular_session_files_sells_before_buys_and_fills_on_paper(
    tmp_path: Path,
) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN) as run:
        tick = await run.agent.tick()
        assert tick.state is AgentState.RUNNING
        assert [intent.symbol for intent, _ in tick.orders] == ["SPY", "VTI"]
        assert all(intent.side is Side.BUY for intent, _ in tick.orders)
        for _, outcome in tick.orders:
            record = run.running.guard.ledger.filing(outcome.filing_id)
            assert record.identity == "rebalancer"
            # Placed, unconfirmed: the venue confirms and fills a moment later.
            assert outcome.status is FilingStatus.SUBMITTED, outcome
        await settle(run)
        assert [status(run, outcome) for _, outcome in tick.orders] == [FilingStatus.FILLED] * 2
        entries = run.running.guard.ledger.journal.entries()
        decisions = [entry for entry in entries if entry.kind == DECISION]
        orders = [entry for entry in entries if entry.kind == ORDER]
        assert len(decisions) == 1 and len(orders) == 2
        assert decisions[0].detail["snapshot_digest"] == tick.snapshot.digest
        # The tick's three entries name one snapshot, stored once under its digest.
        agents = decisions + orders
        assert {entry.detail["snapshot_digest"] for entry in agents} == {tick.snapshot.digest}
        assert all("snapshot" not in entry.detail for entry in entries)
        journal = run.running.guard.ledger.journal
        assert journal.snapshot(tick.snapshot.digest) == tick.snapshot.as_json()
        assert {entry.filing_id for entry in orders} == {o.filing_id for _, o in tick.orders}


@pytest.mark.anyio
async def test_intents_while_another_process_holds_the_accounts_turn_are_journalled_unfiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    impatient_turns(monkeypatch)
    async with agent_on_sandbox(tmp_path / "home", start=OPEN) as run:
        with turn_held_elsewhere(tmp_path / "home" / "ledger.db"):
            tick = await run.agent.tick()
        entries = run.running.guard.ledger.journal.entries()
        spend = run.running.guard.ledger.rolling_spend(run.running.guard.account)
    assert tick.orders == ()
    dropped = [entry.why for entry in entries if entry.kind == DROPPED]
    assert len(dropped) == 2 and all("account_busy" in why for why in dropped)
    assert spend.orders == 0


@pytest.mark.anyio
async def test_the_rebalancer_converges_within_its_bands_over_ticks(tmp_path: Path) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN) as run:
        ticks = await run.agent.run(
            max_ticks=6, tick=timedelta(minutes=5), wait=_advance(run.clock)
        )
        last = ticks[-1]
        assert last.plan.hold, last.plan.rationale
        snapshot = last.snapshot
        assert snapshot.equity is not None and snapshot.positions is not None
        for symbol, target in (("SPY", Decimal(50)), ("VTI", Decimal(30))):
            weight = snapshot.positions[symbol].market_value / snapshot.equity * 100
            assert abs(weight - target) <= Decimal(3), (symbol, weight)


def _advance(clock: SteppedClock) -> Callable[[timedelta], Awaitable[None]]:
    async def wait(delta: timedelta) -> None:
        clock.advance(delta)

    return wait


@pytest.mark.anyio
async def test_pause_stops_the_agent_at_the_next_tick(tmp_path: Path) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN) as run:
        run.running.guard.ledger.controls.pause("owner stepped in")
        tick = await run.agent.tick()
        assert tick.state is AgentState.HALTED and tick.orders == ()
        assert tick.plan.rationale == "hold: halted (paused)"


@pytest.mark.anyio
async def test_outside_its_session_the_agent_holds_and_files_nothing(tmp_path: Path) -> None:
    saturday = datetime(2026, 12, 5, 17, 0, tzinfo=UTC)
    async with agent_on_sandbox(tmp_path / "home", start=saturday) as run:
        tick = await run.agent.tick()
        assert tick.orders == () and tick.plan.hold
        assert "closed session is not one this agent trades in" in tick.plan.rationale
        assert run.running.guard.ledger.open_filings() == []


@pytest.mark.anyio
@pytest.mark.req("wall.size-vs-adv")
async def test_the_agents_orders_past_max_adv_pct_are_refused_size_vs_adv_by_the_guard(
    tmp_path: Path,
) -> None:
    # A ten-millionth of a percent of tens of millions of shares a day: a fraction of a share.
    policy = POLICY.replace("[limits]\n", '[limits]\nmax_adv_pct = "0.0000001"\n')
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=policy) as run:
        tick = await run.agent.tick()
    assert [intent.symbol for intent, _ in tick.orders] == ["SPY", "VTI"]
    for _, outcome in tick.orders:
        assert outcome.status is FilingStatus.REFUSED and outcome.reasons == ("size_vs_adv",)
        assert "limits.max_adv_pct = 0.0000001" in outcome.message


@pytest.mark.anyio
@pytest.mark.req("wall.cooldown")
async def test_a_breaker_the_agent_obeys_starts_the_cooldown_its_buys_then_meet(
    tmp_path: Path,
) -> None:
    policy = POLICY + "[cooldown]\nminutes = 30\n"
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=policy) as run:
        ledger = run.running.guard.ledger
        ledger.controls.set_high_water_mark(Decimal(10) ** 9, account=run.running.guard.account)
        halted = await run.agent.tick()
        assert halted.state is not AgentState.RUNNING and halted.orders == ()
        assert ledger.controls.breaker_tripped_at(run.running.guard.account) == OPEN
        ledger.controls.set_high_water_mark(
            Decimal(1), account=run.running.guard.account
        )  # recovered: the breaker is clear
        run.clock.advance(timedelta(minutes=30) - timedelta(seconds=1))
        cooling = await run.agent.tick()
        assert cooling.state is AgentState.RUNNING and cooling.orders
        assert {outcome.reasons for _, outcome in cooling.orders} == {("cooldown",)}
        run.clock.advance(timedelta(seconds=1))
        after = await run.agent.tick()
        assert after.orders and all(o.status is FilingStatus.SUBMITTED for _, o in after.orders)
        await settle(run)
        assert all(status(run, o) is FilingStatus.FILLED for _, o in after.orders)
