"""Acceptance for the LLM strategist: a scripted model through a simulated trading week on
the sandbox venue, Thanksgiving included, on a stepped clock; a price shock trips the breaker
and only sells go out until it clears; an injected split re-bases the book without tripping
anything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from agent_kit import AgentRun, agent_on_sandbox, settle, split, status

from ordergate.agent import (
    DROPPED,
    RECONCILE,
    AgentSession,
    AgentState,
    ScriptedModel,
    Tick,
    session_signal,
)
from ordergate.core import Side
from ordergate.ledger import FilingStatus

# Monday 2026-11-23, 09:30 in New York; Thursday the 26th is Thanksgiving (closed).
MONDAY_OPEN = datetime(2026, 11, 23, 14, 30, tzinfo=UTC)
THANKSGIVING = datetime(2026, 11, 26).date()
STEP = timedelta(hours=3)
TICKS = 8 * 4  # Monday through Thursday, every three hours

LLM = {"identity": "llm-agent", "sessions": ["regular"], "llm": {"symbols": ["SPY", "VTI"]}}
OPENING = (
    '[{"action": "buy", "symbol": "SPY", "size_usd": "2500", "rationale": "core"},'
    ' {"action": "buy", "symbol": "VTI", "size_usd": "1000", "rationale": "breadth"}]'
)
GARBLED = "Buy SPY!"
TRIM_AND_ADD = (
    '[{"action": "buy", "symbol": "VTI", "size_usd": "30", "rationale": "add"},'
    ' {"action": "sell", "symbol": "SPY", "size_usd": "20", "rationale": "trim"}]'
)


def _shock(run: AgentRun, symbol: str, pct: str) -> None:
    parts = urlsplit(run.running.upstream.url)
    response = httpx2.post(
        f"{parts.scheme}://{parts.netloc}/_sandbox/shock", json={"symbol": symbol, "pct": pct}
    )
    assert response.status_code == 200, response.text


def _sides(ticks: list[Tick]) -> list[Side]:
    return [intent.side for tick in ticks for intent, _ in tick.orders]


@pytest.mark.anyio
@pytest.mark.req("agent.sessions")
@pytest.mark.req("agent.llm-dropped")
@pytest.mark.req("agent.breaker-sells-only")
@pytest.mark.req("agent.split-rebases")
async def test_an_llm_week_trades_in_regular_hours_a_shock_leaves_only_sells_a_split_re_bases(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([OPENING, GARBLED, TRIM_AND_ADD])
    async with agent_on_sandbox(
        tmp_path / "home", start=MONDAY_OPEN, config=LLM, strategy="llm", model=model
    ) as run:
        ledger = run.running.guard.ledger

        async def advance(delta: timedelta) -> None:
            run.clock.advance(delta)

        week = await run.agent.run(max_ticks=TICKS, tick=STEP, wait=advance)
        orders = [(tick, intent, outcome) for tick in week for intent, outcome in tick.orders]
        assert {intent.side for _, intent, _ in orders} == {Side.BUY, Side.SELL}
        for tick, _, outcome in orders:
            assert tick.signal.session is AgentSession.REGULAR
            assert tick.signal.at.date() != THANKSGIVING
            assert outcome.status is FilingStatus.SUBMITTED, outcome
            # Filled once a later tick read the book.
            assert status(run, outcome) is FilingStatus.FILLED, outcome
            assert ledger.filing(outcome.filing_id).identity == "llm-agent"
        assert ledger.open_filings() == []
        holiday = [t for t in week if t.signal.at.date() == THANKSGIVING]
        assert holiday and all(t.orders == () and t.plan.hold for t in holiday)
        # The garbled reply was dropped and journalled; nothing was filed for it.
        assert week[1].plan.hold and week[1].orders == ()
        dropped = [e.why for e in ledger.journal.entries(limit=1000) if e.kind == DROPPED]
        assert dropped == ["model output is not JSON: 'Buy SPY!'"]
        # The book matched the broker's every tick: nothing halted buying, nothing re-based.
        assert not [e for e in ledger.journal.entries(limit=1000) if e.kind == RECONCILE]

        # Friday's open: SPY falls 60 % — the breakers trip; the model's buy is dropped and
        # only its sell goes out, tick after tick, until SPY recovers.
        run.clock.set(datetime(2026, 11, 27, 14, 45, tzinfo=UTC))
        assert session_signal(run.clock.now()).session is AgentSession.REGULAR
        _shock(run, "SPY", "-60")
        reducing = await run.agent.run(max_ticks=3, tick=timedelta(minutes=30), wait=advance)
        for tick in reducing:
            assert tick.state is AgentState.REDUCING, tick.plan.rationale
            assert "buy VTI dropped: buying is stopped (reducing)" in tick.plan.dropped
            assert [(i.side, i.symbol) for i, _ in tick.orders] == [(Side.SELL, "SPY")]
            assert all(o.status is FilingStatus.SUBMITTED for _, o in tick.orders)
        # Each sell filled by the next tick's read; the last one's is the reconciler's.
        await settle(run)
        for tick in reducing:
            assert all(status(run, o) is FilingStatus.FILLED for _, o in tick.orders)
        _shock(run, "SPY", "150")
        run.clock.advance(timedelta(minutes=30))
        cleared = await run.agent.tick()
        assert cleared.state is AgentState.RUNNING, cleared.plan.rationale
        assert _sides([cleared]) == [Side.SELL, Side.BUY]

        # Monday: a 2-for-1 split in SPY — the broker's shares double as the price halves.
        run.clock.set(datetime(2026, 11, 30, 15, 0, tzinfo=UTC))
        monday = await run.agent.tick()
        await settle(run)  # the venue fills Monday's trim before the split
        before = run.agent.book.holding("SPY")
        assert before is not None and before.quantity > 0
        split(run, "SPY", Decimal(2))
        _shock(run, "SPY", "-50")
        run.clock.advance(timedelta(minutes=10))
        rebased = await run.agent.tick()
        assert rebased.state is AgentState.RUNNING, rebased.plan.rationale
        after = run.agent.book.holding("SPY")
        assert after is not None
        # Monday's trim of SPY, filled before the split, is booked (the tick books the fills
        # since the last before it reads the account) before the re-basing.
        (trim,) = [o for i, o in monday.orders if i.side is Side.SELL]
        sold = sum((f.quantity for f in ledger.orders.executions(trim.filing_id)), Decimal(0))
        assert sold > 0
        assert after.quantity == (before.quantity - sold) * 2
        # The dollars paid are kept: the basis per share halved (not counted twice).
        per_share = before.basis / before.quantity
        assert abs(after.basis - (before.basis - per_share * sold)) < Decimal("0.000001")
        (entry,) = [e for e in ledger.journal.entries(limit=1000) if e.kind == RECONCILE]
        assert entry.why.startswith("SPY: split 2:")
        assert "buying halts" not in entry.why
        assert _sides([rebased]) == [Side.SELL, Side.BUY]
        # This tick's own trim of SPY, in split shares, is booked after the re-basing.
        await settle(run)
        (trim,) = [o for i, o in rebased.orders if i.side is Side.SELL]
        resold = sum((f.quantity for f in ledger.orders.executions(trim.filing_id)), Decimal(0))
        assert resold > 0
        run.clock.advance(timedelta(minutes=10))
        await run.agent.tick()
        later = run.agent.book.holding("SPY")
        assert later is not None and later.quantity == after.quantity - resold
        assert abs(later.basis - (after.basis - per_share / 2 * resold)) < Decimal("0.000001")
        assert len([e for e in ledger.journal.entries(limit=1000) if e.kind == RECONCILE]) == 1
