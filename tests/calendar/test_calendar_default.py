"""``market_session`` and the package boundary: the default calendar, its refusals, its imports."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from ordergate.calendar import (
    NEW_YORK,
    CalendarError,
    NotASessionDay,
    NyseCalendar,
    OutOfCalendar,
    Session,
    market_session,
)
from ordergate.core import OrdergateError

ET = ZoneInfo("America/New_York")


def test_market_session_names_each_robinhood_session_on_an_ordinary_day() -> None:
    expected = {
        (3, 0): Session.OVERNIGHT,
        (7, 0): Session.PRE_MARKET,
        (9, 30): Session.REGULAR,
        (16, 0): Session.AFTER_HOURS,
        (20, 0): Session.OVERNIGHT,
    }
    for (hour, minute), session in expected.items():
        assert market_session(datetime(2026, 11, 30, hour, minute, tzinfo=ET)) is session


def test_market_session_is_closed_on_a_holiday_and_a_saturday() -> None:
    assert market_session(datetime(2026, 11, 26, 12, tzinfo=ET)) is Session.CLOSED
    assert market_session(datetime(2026, 11, 28, 12, tzinfo=ET)) is Session.CLOSED


def test_market_session_agrees_with_a_calendar_built_for_the_same_range() -> None:
    calendar = NyseCalendar()
    for instant in (
        datetime(2020, 1, 1, 0, tzinfo=ET),
        datetime(2026, 11, 27, 13, tzinfo=ET),
        datetime(2030, 12, 31, 23, 59, tzinfo=ET),
    ):
        assert market_session(instant) is calendar.session_at(instant)


@pytest.mark.parametrize(
    "instant",
    [
        datetime(2019, 12, 31, 23, 59, tzinfo=ET),
        datetime(2031, 1, 1, 0, tzinfo=ET),
        datetime(1999, 6, 1, 15, tzinfo=UTC),
    ],
)
def test_market_session_outside_the_covered_range_is_refused_not_closed(
    instant: datetime,
) -> None:
    with pytest.raises(OutOfCalendar) as caught:
        market_session(instant)
    assert caught.value.code == "out_of_calendar"


def test_market_session_refuses_a_naive_instant() -> None:
    with pytest.raises(ValueError):
        market_session(datetime(2026, 11, 30, 10))


def test_calendar_errors_share_one_root_under_ordergate_error() -> None:
    for error in (OutOfCalendar, NotASessionDay):
        assert issubclass(error, CalendarError)
        assert issubclass(error, ValueError)
    assert issubclass(CalendarError, OrdergateError)
    assert CalendarError.code == "calendar_error"


def test_new_york_is_the_america_new_york_zone() -> None:
    assert datetime(2026, 7, 1, 12, tzinfo=NEW_YORK).utcoffset() == ET.utcoffset(
        datetime(2026, 7, 1, 12)
    )


def test_importing_the_calendar_pulls_in_only_the_core_and_not_exchange_calendars() -> None:
    probe = (
        "import sys; from datetime import UTC, datetime; import ordergate.calendar as c; "
        "c.market_session(datetime(2026, 11, 30, 15, tzinfo=UTC)); "
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('ordergate.')}), "
        "'exchange_calendars' in sys.modules, 'pandas' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "['calendar', 'core'] False False"


def test_the_default_calendar_is_built_on_first_use_and_then_reused() -> None:
    probe = (
        "from datetime import UTC, datetime; import ordergate.calendar as c; "
        "from ordergate.calendar import _calendar; "
        "built = _calendar._default_calendar.cache_info; before = built().currsize; "
        "c.market_session(datetime(2026, 11, 30, 15, tzinfo=UTC)); "
        "c.market_session(datetime(2026, 12, 1, 15, tzinfo=UTC)); "
        "info = built(); print(before, info.misses, info.hits)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "0 1 1"
