"""The daily digest: the first tick of a new market day sends the previous day's."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from agent_kit import agent_on_sandbox
from capture_testkit import capture_server

from ordergate.agent import WebhookDigest, build_agent
from ordergate.core import Side

TUESDAY = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.mark.anyio
async def test_the_next_market_days_first_tick_sends_the_days_digest(tmp_path: Path) -> None:
    sent: list[dict[str, Any]] = []

    async def sink(digest: dict[str, Any]) -> None:
        sent.append(digest)

    async with agent_on_sandbox(tmp_path / "home", start=TUESDAY, digest=sink) as run:
        first = await run.agent.tick()
        assert {intent.side for intent, _ in first.orders} == {Side.BUY}
        run.clock.advance(timedelta(minutes=30))
        second = await run.agent.tick()
        assert sent == []
        run.clock.advance(timedelta(days=1))
        await run.agent.tick()
    (digest,) = sent
    assert digest["event"] == "agent_daily_digest" and digest["day"] == "2026-12-01"
    assert digest["identity"] == "rebalancer" and digest["decisions"] == 2
    assert digest["orders"] == len(first.orders) + len(second.orders)
    assert digest["refusals"] == []
    assert set(digest["positions"]) == {"SPY", "VTI"} and digest["pnl"] is not None
    assert run.running.guard.account not in str(digest)


@pytest.mark.anyio
async def test_a_digest_webhook_that_answers_badly_or_not_at_all_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    with capture_server() as server:
        await WebhookDigest(server.url + "/hook")({"event": "agent_daily_digest"})
        assert [r.method for r in server.requests] == ["POST"]
    await WebhookDigest("http://127.0.0.1:9/hook", timeout_s=1)({})
    assert "digest webhook answered HTTP 404" in caplog.text
    assert "digest webhook failed" in caplog.text
    assert repr(WebhookDigest("http://secret@host/")) == "WebhookDigest(url=<configured>)"


def _fresh(run: Any, sink: Any) -> Any:
    """Another process's agent on the same ledger (as a `--once` run each tick is)."""
    return build_agent(
        run.running.guard, run.config, strategy="rebalance", clock=run.clock, digest=sink
    )


@pytest.mark.anyio
async def test_the_digest_counts_every_decision_and_order_of_the_day_across_runs(
    tmp_path: Path,
) -> None:
    sent: list[dict[str, Any]] = []

    async def sink(digest: dict[str, Any]) -> None:
        sent.append(digest)

    async with agent_on_sandbox(tmp_path / "home", start=TUESDAY, digest=sink) as run:
        ticks = [await _fresh(run, sink).tick()]
        for _ in range(3):
            run.clock.advance(timedelta(minutes=30))
            ticks.append(await _fresh(run, sink).tick())
        assert sent == []
        run.clock.advance(timedelta(days=1))
        await _fresh(run, sink).tick()
        run.clock.advance(timedelta(minutes=30))
        await _fresh(run, sink).tick()
    (digest,) = sent
    assert digest["day"] == "2026-12-01" and digest["decisions"] == 4
    assert digest["orders"] == sum(len(tick.orders) for tick in ticks) > 0
    assert digest["holds"] == sum(tick.plan.hold for tick in ticks)
    assert digest["complete"] is True


@pytest.mark.anyio
async def test_a_once_run_at_the_days_end_sends_the_days_digest(tmp_path: Path) -> None:
    sent: list[dict[str, Any]] = []

    async def sink(digest: dict[str, Any]) -> None:
        sent.append(digest)

    def no_wait(_: timedelta) -> Any:
        raise AssertionError("a --once run never waits")

    async with agent_on_sandbox(tmp_path / "home", start=TUESDAY, digest=sink) as run:
        await _fresh(run, sink).run(max_ticks=1, tick=timedelta(minutes=5), wait=no_wait)
        assert sent == []  # 10:00 in New York: the day has not ended
        run.clock.set(datetime(2026, 12, 1, 21, 5, tzinfo=UTC))  # 16:05, after the close
        await _fresh(run, sink).run(max_ticks=1, tick=timedelta(minutes=5), wait=no_wait)
        assert [(d["day"], d["decisions"]) for d in sent] == [("2026-12-01", 2)]
        await _fresh(run, sink).run(max_ticks=1, tick=timedelta(minutes=5), wait=no_wait)
        # A run after the digest went: the day is sent again, whole.
        assert [(d["day"], d["decisions"]) for d in sent][1:] == [("2026-12-01", 3)]
        run.clock.set(TUESDAY + timedelta(days=1))  # Wednesday, 10:00 in New York
        await _fresh(run, sink).run(max_ticks=1, tick=timedelta(minutes=5), wait=no_wait)
        assert len(sent) == 2  # the next day's first tick finds the day already sent
