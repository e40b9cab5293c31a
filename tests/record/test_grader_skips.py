"""What the grader does not grade: an order that ended with nothing filled, a filing that is
not an equity placement, and a fill the calendar cannot place (never a guessed day)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from record_testkit import MONDAY_CLOSE, desk

from ordergate.calendar import NyseCalendar
from ordergate.core import MarketHours, OrderType, Side
from ordergate.ledger import Filing, FilingStatus, RollingCaps
from ordergate.policy import Proposal
from ordergate.record import Grader, grades_of

pytestmark = [pytest.mark.anyio, pytest.mark.req("record.grade.fail-closed")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_order_cancelled_with_nothing_filled_is_not_graded(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        resting = Proposal(
            symbol="AAPL",
            side=Side.BUY,
            quantity=Decimal(1),
            order_type=OrderType.LIMIT,
            limit_price=Decimal("240"),
            market_hours=MarketHours.REGULAR_HOURS,
        )
        placed = await d.guard.submit(resting, identity="agent-a")
        cancelled = await d.guard.cancel(placed.filing_id, identity="agent-a")
        assert cancelled.status is FilingStatus.CANCELLED
        report = await d.grader().run_once()
        assert report.events > 0 and report.queued == 0
        assert grades_of(d.ledger.engine, "agent-a") == []


async def test_a_filing_that_is_not_an_equity_placement_is_not_graded(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        filed = d.ledger.file_and_reserve(
            Filing("agent-a", {"symbol": "AAPL"}, kind="note"),
            notional=Decimal(0),
            caps=RollingCaps(Decimal(1000), 10),
        )
        d.ledger.record_status(filed.record.id, FilingStatus.FILLED)
        assert (await d.grader().run_once()).queued == 0


async def test_a_fill_the_calendar_cannot_place_is_not_graded(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await d.fill("AAPL", Side.BUY)
        short = NyseCalendar(date(2026, 12, 1), date(2026, 12, 24))
        grader = Grader(d.ledger, d.closes, clock=d.clock, calendar=short)
        report = await grader.run_once()
        assert report.events > 0 and report.queued == 0
        d.step_to(MONDAY_CLOSE)
        assert (await grader.run_once()).graded == 0
