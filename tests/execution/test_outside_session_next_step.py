"""An ``outside_session`` refusal says when the next allowed session opens, and how to try
the sandbox at another instant."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import pytest
from guard_kit import buy, desk

from ordergate.core import MarketHours
from ordergate.execution import Outcome
from ordergate.execution._sessions import next_open_for
from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.req("clocks.outside-session-next-open")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_market_order_after_hours_is_told_the_next_regular_open(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        d.step(8 * 3600)  # Tuesday 18:00 New York: after hours
        outcome = await d.guard.submit(buy("SPY"), identity="a")
    assert outcome.refused and "outside_session" in outcome.reasons
    # Wednesday 2026-12-02, 09:30 New York.
    assert outcome.next_open == datetime(2026, 12, 2, 14, 30, tzinfo=UTC)
    message = outcome.message
    assert "opens 2026-12-02T14:30:00Z (Wed 2026-12-02 09:30 New York)" in message
    assert "ordergate serve --sandbox --sandbox-start 2026-12-02T14:30:00Z" in message
    assert "ORDERGATE_SANDBOX_START" in message
    assert outcome.as_json(mode="paper")["next_open"] == "2026-12-02T14:30:00Z"


def test_the_next_open_is_the_first_session_the_orders_hours_cover() -> None:
    friday_evening = datetime(2026, 12, 4, 23, 0, tzinfo=UTC)  # 18:00 New York
    assert next_open_for(friday_evening, MarketHours.REGULAR_HOURS) == datetime(
        2026, 12, 7, 14, 30, tzinfo=UTC
    )
    # Extended hours reach the pre-market too: Monday 07:00 New York.
    extended = next_open_for(friday_evening, MarketHours.EXTENDED_HOURS)
    assert extended is not None and extended < datetime(2026, 12, 7, 14, 30, tzinfo=UTC)


def test_past_the_calendar_the_refusal_still_says_how_to_try_another_instant() -> None:
    assert next_open_for(datetime(2031, 6, 1, tzinfo=UTC), MarketHours.REGULAR_HOURS) is None
    assert next_open_for(datetime(2030, 12, 31, 23, tzinfo=UTC), MarketHours.REGULAR_HOURS) is None
    outcome = Outcome(uuid4(), FilingStatus.REFUSED, ("outside_session",))
    assert "does not say when it next opens" in outcome.message
    assert "--sandbox-start" in outcome.message
    assert "next_open" not in outcome.as_json(mode="paper")
