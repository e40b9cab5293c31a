"""Which session day's close grades a fill (NYSE calendar)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from ordergate.calendar import NyseCalendar, OutOfCalendar
from ordergate.record import grading_day

pytestmark = pytest.mark.req("record.grade.one-trading-day")

CALENDAR = NyseCalendar()


@pytest.mark.parametrize(
    ("filled_at", "graded_on"),
    [
        ("2026-12-01T15:00Z", date(2026, 12, 2)),  # Tuesday regular → Wednesday
        ("2026-12-04T22:00Z", date(2026, 12, 7)),  # Friday after-hours → Monday
        ("2026-12-24T17:30Z", date(2026, 12, 28)),  # Christmas Eve after its early close
        ("2026-12-26T15:00Z", date(2026, 12, 28)),  # a Saturday belongs to Christmas Eve
        ("2026-12-28T02:00Z", date(2026, 12, 29)),  # Sunday night's overnight is Monday's
    ],
)
def test_a_fill_is_graded_at_the_close_of_the_next_session_day(
    filled_at: str, graded_on: date
) -> None:
    assert grading_day(CALENDAR, datetime.fromisoformat(filled_at)) == graded_on


def test_a_fill_beyond_the_calendar_is_not_graded_on_a_guess() -> None:
    short = NyseCalendar(date(2026, 12, 1), date(2026, 12, 31))
    with pytest.raises(OutOfCalendar):
        grading_day(short, datetime.fromisoformat("2026-12-31T15:00Z"))
