"""The agent in live mode against the sandbox venue (the venue is the broker): its book
follows the venue's fills, and a split the venue makes (``/_sandbox/split``) re-bases it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from agent_kit import CONFIG, POLICY, AgentRun, agent_on_sandbox

from ordergate.agent import RECONCILE, AgentState
from ordergate.venues.robinhood import ClientAccountReader

LIVE = POLICY.replace('mode = "paper"', 'mode = "live"\nreal_money = true')
# The venue's account holds $100,000: a small target, reached in two $3,000 orders.
SMALL = {**CONFIG, "rebalance": {**CONFIG["rebalance"], "targets": {"SPY": "5"}}}
# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def _admin(run: AgentRun, route: str, body: dict[str, str]) -> httpx2.Response:
    parts = urlsplit(run.running.upstream.url)
    return httpx2.post(f"{parts.scheme}://{parts.netloc}/_sandbox/{route}", json=body)


def _reconciles(run: AgentRun) -> list[str]:
    entries = run.running.guard.ledger.journal.entries(limit=1000)
    return [entry.why for entry in entries if entry.kind == RECONCILE]


async def _settle(run: AgentRun) -> None:
    """Let the venue fill what is open, and the guard's reconciler see it."""
    for _ in range(10):
        if not run.running.guard.ledger.open_filings():
            return
        run.clock.advance(timedelta(minutes=1))
        await run.running.guard.reconciler.run_once()
    raise AssertionError("the venue left orders open")


@pytest.mark.anyio
@pytest.mark.req("agent.reconcile-halts")
async def test_live_the_fills_of_a_tick_before_are_booked_before_the_next_snapshot(
    tmp_path: Path,
) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=LIVE) as run:

        async def advance(delta: timedelta) -> None:
            run.clock.advance(delta)

        # Each tick's orders fill on the venue after the tick: the next tick's reconciler
        # pass books them before its snapshot, so the book never trails the broker.
        ticks = await run.agent.run(max_ticks=4, tick=timedelta(minutes=10), wait=advance)
        assert all(tick.orders for tick in ticks), [t.plan.rationale for t in ticks]
        assert all(not tick.plan.dropped for tick in ticks), [t.plan.dropped for t in ticks]
        assert _reconciles(run) == []


@pytest.mark.anyio
@pytest.mark.req("agent.split-rebases")
async def test_live_on_the_venue_the_book_follows_its_fills_and_a_venue_split_re_bases_it(
    tmp_path: Path,
) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=LIVE, config=SMALL) as run:
        assert run.running.arming.live
        assert isinstance(run.running.guard.reader, ClientAccountReader)

        first = await run.agent.tick()
        assert [intent.symbol for intent, _ in first.orders] == ["SPY"], first.plan.rationale
        # The venue refuses to split a symbol with an order open in it.
        assert run.running.guard.ledger.open_filings()
        refused = _admin(run, "split", {"symbol": "SPY", "ratio": "2"})
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["field"] == "symbol"
        # Fills arrive after the tick that placed them: booked before the next snapshot.
        await _settle(run)
        run.clock.advance(timedelta(minutes=10))
        settled = await run.agent.tick()
        assert settled.plan.hold, settled.plan.rationale
        assert _reconciles(run) == []
        before = run.agent.book.holding("SPY")
        assert before is not None and before.quantity > 0
        done = _admin(run, "split", {"symbol": "SPY", "ratio": "2"})
        assert done.status_code == 200, done.text
        assert done.json()["lots"] > 0
        run.clock.advance(timedelta(minutes=10))
        tick = await run.agent.tick()
        assert tick.state is AgentState.RUNNING, tick.plan.rationale
        assert tick.snapshot.positions is not None
        (why,) = _reconciles(run)
        assert why.startswith("SPY: split 2:") and "buying halts" not in why, why
        after = run.agent.book.holding("SPY")
        assert after is not None
        assert after.quantity == before.quantity * 2 == tick.snapshot.positions["SPY"].quantity
        assert after.basis == before.basis  # the dollars paid, not counted twice


@pytest.mark.anyio
@pytest.mark.req("sandbox.faults")
async def test_the_split_knob_refuses_what_it_cannot_split_naming_the_field(
    tmp_path: Path,
) -> None:
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=LIVE) as run:
        for body, field in (
            ({"symbol": "SPY", "ratio": "1"}, "ratio"),
            ({"symbol": "SPY", "ratio": "-2"}, "ratio"),
            ({"symbol": "SPY"}, "ratio"),
            ({"ratio": "2"}, "symbol"),
            ({"symbol": "NOPE", "ratio": "2"}, "symbol"),
            ({"symbol": "SPX", "ratio": "2"}, "symbol"),
        ):
            response = _admin(run, "split", body)
            assert response.status_code == 400, (body, response.text)
            assert response.json()["error"]["field"] == field, body
        # 3-for-1 on a symbol nobody holds: the price is a third, exactly, from now on.
        assert _admin(run, "split", {"symbol": "QQQ", "ratio": "3"}).json()["lots"] == 0
