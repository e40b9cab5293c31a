"""A grade waits for every price it needs: a missing close or an upstream that does not answer
leaves it pending, tried again later, never graded on a guess."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from record_testkit import MONDAY_CLOSE, desk

from ordergate.core import Side, ToolError
from ordergate.record import Closes, grades_of

pytestmark = [pytest.mark.anyio, pytest.mark.req("record.grade.fail-closed")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Withholding:
    """The venue's prices, but no close for ``symbol`` (or no answer at all)."""

    def __init__(self, closes: Closes, symbol: str, *, unreachable: bool = False) -> None:
        self._closes = closes
        self._symbol = symbol
        self._unreachable = unreachable

    async def close(self, symbol: str, day: date) -> Decimal | None:
        if self._unreachable:
            raise ToolError("no answer", tool="get_equity_historicals", code="timeout")
        if symbol == self._symbol:
            return None
        return await self._closes.close(symbol, day)

    async def price_at(self, symbol: str, instant: datetime) -> Decimal | None:
        return await self._closes.price_at(symbol, instant)


async def test_a_missing_close_means_not_yet_and_is_retried_later(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        filing = await d.fill("MSFT", Side.BUY)
        d.step_to(MONDAY_CLOSE)
        missing = Withholding(d.closes, "MSFT")
        report = await d.grader(missing, retry=timedelta(hours=1)).run_once()
        assert (report.queued, report.graded, report.not_yet) == (1, 0, 1)
        (waiting,) = grades_of(d.ledger.engine, "agent-a")
        assert waiting["filing_id"] == filing and waiting["state"] == "pending"
        assert "excess_bps" not in waiting
        # Within the retry it is not asked again; after it, with the close known, it grades.
        d.step_to(MONDAY_CLOSE + timedelta(minutes=59))
        assert (await d.grader(missing).run_once()).not_yet == 0
        d.step_to(MONDAY_CLOSE + timedelta(hours=1))
        assert (await d.grader().run_once()).graded == 1
        assert grades_of(d.ledger.engine, "agent-a")[0]["state"] == "graded"


async def test_a_missing_benchmark_close_holds_every_grade_of_that_day(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await d.fill("AAPL", Side.BUY)
        await d.fill("MSFT", Side.BUY)
        d.step_to(MONDAY_CLOSE)
        report = await d.grader(Withholding(d.closes, "SPY")).run_once()
        assert (report.graded, report.not_yet) == (0, 2)


async def test_an_upstream_that_does_not_answer_grades_nothing(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await d.fill("AAPL", Side.BUY)
        d.step_to(MONDAY_CLOSE)
        report = await d.grader(Withholding(d.closes, "", unreachable=True)).run_once()
        assert (report.graded, report.unreachable) == (0, 1)
        assert grades_of(d.ledger.engine, "agent-a")[0]["state"] == "pending"


async def test_the_market_gives_no_close_before_the_session_has_closed(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        d.step_to(MONDAY_CLOSE - timedelta(minutes=1))
        assert await d.closes.close("SPY", date(2026, 12, 28)) is None
        d.step_to(MONDAY_CLOSE)
        assert await d.closes.close("SPY", date(2026, 12, 28)) is not None
        assert await d.closes.close("NOSUCH", date(2026, 12, 28)) is None
        # Saturday: no bar holds the instant.
        assert await d.closes.price_at("SPY", datetime.fromisoformat("2026-12-26T15:00Z")) is None
