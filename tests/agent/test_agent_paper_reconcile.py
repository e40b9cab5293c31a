"""In paper mode the agent reads its account from the paper venue's engine (the answers the
gateway serves), and its book
(its own decisions' fills, and the cash they moved) is reconciled with them: a fill on the
account the agent did not make, or cash that moved without it, halts buying and is
journalled."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from agent_kit import AgentRun, agent_on_sandbox
from sqlalchemy import text

from ordergate.agent import RECONCILE, AgentState
from ordergate.core import MarketHours, Side
from ordergate.ledger import FilingStatus
from ordergate.policy import Proposal
from ordergate.venues.paper import PaperVenue, book_name

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


async def _converge(run: AgentRun) -> None:
    async def advance(delta: timedelta) -> None:
        run.clock.advance(delta)

    ticks = await run.agent.run(max_ticks=6, tick=timedelta(minutes=5), wait=advance)
    assert ticks[-1].plan.hold, ticks[-1].plan.rationale
    run.clock.advance(timedelta(minutes=5))


def _reconciles(run: AgentRun) -> list[str]:
    entries = run.running.guard.ledger.journal.entries(limit=1000)
    return [entry.why for entry in entries if entry.kind == RECONCILE]


@pytest.mark.anyio
@pytest.mark.req("agent.paper-reads")
async def test_the_paper_snapshot_is_the_gateways_paper_answers(tmp_path: Path) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN) as run:
        await _converge(run)
        tick = await run.agent.tick()
        guard = run.running.guard
        assert isinstance(guard.venue, PaperVenue)
        account = {"account_number": guard.account}
        portfolio = await guard.venue.caller.call("get_portfolio", account)
        rows = (await guard.venue.caller.call("get_equity_positions", account))["positions"]
        snapshot = tick.snapshot
        assert snapshot.equity == Decimal(portfolio["total_value"])
        assert snapshot.cash == Decimal(portfolio["cash"])
        assert snapshot.positions is not None
        assert {s: p.quantity for s, p in snapshot.positions.items()} == {
            row["symbol"]: Decimal(row["quantity"]) for row in rows
        }
        assert snapshot.open_orders == 0


@pytest.mark.anyio
@pytest.mark.req("agent.reconcile-halts")
async def test_a_fill_the_agent_did_not_make_halts_buying_and_is_journalled(
    tmp_path: Path,
) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN) as run:
        await _converge(run)
        assert _reconciles(run) == []
        held = run.agent.book.holding("SPY")
        assert held is not None
        # Someone else trading the same account sells half the agent's SPY.
        half = (held.quantity / 2).quantize(Decimal("0.000001"))
        outcome = await run.running.guard.submit(
            Proposal(
                symbol="SPY",
                side=Side.SELL,
                quantity=half,
                market_hours=MarketHours.REGULAR_HOURS,
            ),
            identity="someone-else",
        )
        run.clock.advance(timedelta(seconds=2))  # the engine fills it as the venue would
        await run.running.guard.reconcile()
        assert run.running.guard.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        tick = await run.agent.tick()
        assert tick.state is AgentState.RUNNING
        assert [intent for intent, _ in tick.orders if intent.side is Side.BUY] == []
        assert "SPY: buying is stopped (reducing)" in tick.plan.dropped
        (why,) = _reconciles(run)
        assert f"SPY: the book holds {held.quantity}, the broker {held.quantity - half}" in why
        assert why.endswith("buying halts this tick")
        # Reported once: the book adopted the broker's shares and cash, and buys resume.
        run.clock.advance(timedelta(minutes=5))
        again = await run.agent.tick()
        assert len(_reconciles(run)) == 1
        assert any(intent.side is Side.BUY for intent, _ in again.orders), again.plan.rationale


@pytest.mark.anyio
@pytest.mark.req("agent.reconcile-halts")
async def test_cash_that_moved_without_the_agent_trips_the_nav_check_in_paper(
    tmp_path: Path,
) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN) as run:
        await _converge(run)
        expected = run.agent.book.cash
        assert expected is not None
        # $1,000 arrives on the paper account (the engine's book, read again at its next
        # call since its version moved): no share moves, only the NAV can tell.
        guard = run.running.guard
        book = {"book": book_name(guard.account)}
        with guard.ledger.engine.begin() as connection:
            version, state = connection.execute(
                text("SELECT version, state FROM venue_books WHERE book = :book"), book
            ).one()
            stored = json.loads(state)
            stored["cash"][guard.account] = str(Decimal(stored["cash"][guard.account]) + 1000)
            connection.execute(
                text("UPDATE venue_books SET version = :v, state = :s WHERE book = :book"),
                {**book, "v": int(version) + 1, "s": json.dumps(stored)},
            )
        tick = await run.agent.tick()
        assert [intent for intent, _ in tick.orders if intent.side is Side.BUY] == []
        assert "SPY: buying is stopped (reducing)" in tick.plan.dropped
        (why,) = _reconciles(run)
        assert why.startswith("NAV: the broker says ") and "the book holds" not in why
        assert why.endswith("buying halts this tick")
        assert run.agent.book.cash == tick.snapshot.cash != expected
        run.clock.advance(timedelta(minutes=5))
        again = await run.agent.tick()
        assert len(_reconciles(run)) == 1
        assert any(intent.side is Side.BUY for intent, _ in again.orders), again.plan.rationale
