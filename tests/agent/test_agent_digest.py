"""The daily digest: the first tick of a new market day sends the previous day's."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from agent_kit import agent_on_sandbox
from capture_testkit import capture_server

from ordergate.agent import WebhookDigest
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
