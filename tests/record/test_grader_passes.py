"""How the grader runs: one pass at a time, two graders on one ledger never queue a fill
twice, and the serving loop survives a failed pass."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from record_testkit import MONDAY_CLOSE, desk
from sqlalchemy import func, select, update

from ordergate.core import Side
from ordergate.ledger import events_after
from ordergate.record import Closes, Grader
from ordergate.record import _grader as grader_module
from ordergate.record._schema import grades, grading_cursor

pytestmark = [pytest.mark.anyio, pytest.mark.req("record.grade.once")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_grader_that_finds_the_cursor_moved_queues_nothing_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(tmp_path) as d:
        await d.fill("AAPL", Side.BUY)
        real = events_after

        def raced(engine: Any, seq: int, *, limit: int) -> Any:
            events = real(engine, seq, limit=limit)
            # Another grader queues these same events and moves the cursor meanwhile.
            with engine.begin() as connection:
                connection.execute(update(grading_cursor).values(seq=events[-1].seq))
            return events

        monkeypatch.setattr(grader_module, "events_after", raced)
        report = await d.grader().run_once()
        assert (report.events, report.queued) == (0, 0)
        monkeypatch.setattr(grader_module, "events_after", real)
        assert (await d.grader().run_once()).events == 0  # nothing left after the cursor
        with d.ledger.engine.connect() as connection:
            assert connection.execute(select(func.count()).select_from(grades)).scalar() == 0


class Broken:
    async def close(self, symbol: str, day: date) -> Decimal | None:
        raise RuntimeError("a bug in a price source")

    async def price_at(self, symbol: str, instant: datetime) -> Decimal | None:
        raise AssertionError("not reached")


class Stop(Exception):
    pass


async def test_the_serving_loop_logs_a_failed_pass_and_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with desk(tmp_path) as d:
        await d.fill("AAPL", Side.BUY)
        d.step_to(MONDAY_CLOSE)
        pauses: list[float] = []

        async def pause(seconds: float) -> None:
            pauses.append(seconds)
            if len(pauses) == 2:
                raise Stop

        broken: Closes = Broken()
        with pytest.raises(Stop):
            await d.grader(broken).run_forever(5.0, pause=pause)
        assert pauses == [5.0, 5.0]
        assert "a grading pass failed" in caplog.text
        with caplog.at_level("INFO", logger="ordergate.record._grader"):
            pauses.clear()
            with pytest.raises(Stop):
                await d.grader().run_forever(5.0, pause=pause)
        assert "graded 1 placements" in caplog.text


def test_a_batch_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="batch"):
        Grader(object(), object(), clock=object(), batch=0)  # type: ignore[arg-type]


async def test_reading_the_events_again_queues_no_fill_twice(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await d.fill("AAPL", Side.BUY)
        assert (await d.grader().run_once()).queued == 1
        with d.ledger.engine.begin() as connection:  # a cursor restored from an old backup
            connection.execute(update(grading_cursor).values(seq=0))
        again = await d.grader().run_once()
        assert again.events > 0 and again.queued == 0
        with d.ledger.engine.connect() as connection:
            assert connection.execute(select(func.count()).select_from(grades)).scalar() == 1
