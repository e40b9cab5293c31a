"""Acceptance: the rebalancing agent through a simulated trading week on the sandbox venue,
Thanksgiving included, on a stepped clock; then a price shock trips the breaker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from agent_kit import agent_on_sandbox, split, status

from ordergate.agent import RECONCILE, AgentSession, AgentState, Tick, session_signal
from ordergate.core import Side
from ordergate.ledger import FilingStatus

# Monday 2026-11-23, 09:30 in New York; Thursday the 26th is Thanksgiving (closed).
MONDAY_OPEN = datetime(2026, 11, 23, 14, 30, tzinfo=UTC)
THANKSGIVING = datetime(2026, 11, 26).date()
STEP = timedelta(hours=3)
TICKS = 8 * 4  # Monday through Thursday, every three hours


def _shock(run_url: str, symbol: str, pct: str) -> None:
    parts = urlsplit(run_url)
    response = httpx2.post(
        f"{parts.scheme}://{parts.netloc}/_sandbox/shock", json={"symbol": symbol, "pct": pct}
    )
    assert response.status_code == 200, response.text


def _orders(ticks: list[Tick]) -> list[tuple[Tick, Side, str, FilingStatus]]:
    return [
        (tick, intent.side, intent.symbol, outcome.status)
        for tick in ticks
        for intent, outcome in tick.orders
    ]


@pytest.mark.anyio
@pytest.mark.req("agent.sessions")
@pytest.mark.req("agent.rebalance-converges")
@pytest.mark.req("agent.breaker-sells-only")
async def test_a_week_trades_in_regular_hours_converges_and_a_shock_leaves_only_sells_until_clear(
    tmp_path: Path,
) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=MONDAY_OPEN) as run:
        ledger = run.running.guard.ledger

        async def advance(delta: timedelta) -> None:
            run.clock.advance(delta)

        week = await run.agent.run(max_ticks=TICKS, tick=STEP, wait=advance)
        orders = _orders(week)
        assert orders, "the agent never traded"
        for tick, _, _, answered in orders:
            assert tick.signal.session is AgentSession.REGULAR
            assert tick.signal.at.date() != THANKSGIVING
            assert answered is FilingStatus.SUBMITTED
        # Each filled once a later tick read the book.
        filed = [outcome for tick in week for _, outcome in tick.orders]
        assert {status(run, outcome) for outcome in filed} == {FilingStatus.FILLED}
        for tick in week:
            if tick.signal.session is not AgentSession.REGULAR:
                assert tick.orders == ()
        assert ledger.open_filings() == []
        holiday = [t for t in week if t.signal.at.date() == THANKSGIVING]
        assert holiday and all(
            t.signal.session is AgentSession.CLOSED for t in holiday if t.signal.at.hour in (15, 18)
        )
        # Converged: the last regular tick before the holiday holds within the bands.
        settled = [t for t in week if t.signal.session is AgentSession.REGULAR][-1]
        assert settled.plan.hold, settled.plan.rationale
        snapshot = settled.snapshot
        assert snapshot.equity is not None and snapshot.positions is not None
        for symbol, target in (("SPY", Decimal(50)), ("VTI", Decimal(30))):
            weight = snapshot.positions[symbol].market_value / snapshot.equity * 100
            assert abs(weight - target) <= Decimal(3), (symbol, weight)
        # Every order is filed under the agent's identity and journalled with its digest.
        for tick, *_ in orders:
            for _, outcome in tick.orders:
                assert ledger.filing(outcome.filing_id).identity == "rebalancer"

        # The book matched the broker's every tick: nothing halted buying, nothing re-based.
        assert not [e for e in ledger.journal.entries(limit=1000) if e.kind == RECONCILE]

        # Friday's open: SPY falls 60 % — the drawdown breaker trips; only sells follow.
        run.clock.set(datetime(2026, 11, 27, 14, 45, tzinfo=UTC))
        assert session_signal(run.clock.now()).session is AgentSession.REGULAR
        _shock(run.running.upstream.url, "SPY", "-60")
        shocked = await run.agent.tick()
        assert shocked.state is AgentState.REDUCING
        sides = {intent.side for intent, _ in shocked.orders}
        assert sides == {Side.SELL}, shocked.plan.rationale
        assert "SPY: buying is stopped (reducing)" in shocked.plan.dropped
        after = await run.agent.run(max_ticks=2, tick=timedelta(minutes=30), wait=advance)
        assert all(side is Side.SELL for _, side, _, _ in _orders(after))
        assert all(tick.state is AgentState.REDUCING for tick in after)
        # SPY recovers: the breaker clears and the agent buys again.
        _shock(run.running.upstream.url, "SPY", "150")
        run.clock.advance(timedelta(minutes=30))
        cleared = await run.agent.tick()
        assert cleared.state is AgentState.RUNNING, cleared.plan.rationale


@pytest.mark.anyio
@pytest.mark.req("agent.split-rebases")
async def test_an_injected_split_re_bases_the_book_without_tripping_anything(
    tmp_path: Path,
) -> None:
    tuesday = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
    async with agent_on_sandbox(tmp_path / "home", start=tuesday) as run:
        ledger = run.running.guard.ledger

        async def advance(delta: timedelta) -> None:
            run.clock.advance(delta)

        ticks = await run.agent.run(max_ticks=3, tick=timedelta(minutes=10), wait=advance)
        # Converged: the last tick placed nothing, so the book holds every fill.
        assert ticks[-1].orders == () and ledger.open_filings() == []
        before = run.agent.book.holding("SPY")
        assert before is not None and before.quantity > 0
        # A 2-for-1 split: the broker's shares double as the price halves.
        split(run, "SPY", Decimal(2))
        _shock(run.running.upstream.url, "SPY", "-50")
        run.clock.advance(timedelta(minutes=10))
        tick = await run.agent.tick()
        assert tick.state is AgentState.RUNNING
        after = run.agent.book.holding("SPY")
        assert after is not None and after.quantity == before.quantity * 2
        assert after.basis == before.basis
        (entry,) = [e for e in ledger.journal.entries(limit=1000) if e.kind == RECONCILE]
        assert entry.why.startswith("SPY: split 2:")
        assert "buying halts" not in entry.why
