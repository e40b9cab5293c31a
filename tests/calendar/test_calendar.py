"""The NYSE calendar: Robinhood's sessions around XNYS session days, holidays and early closes."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ordergate.calendar import NotASessionDay, NyseCalendar, OutOfCalendar, Session

ET = ZoneInfo("America/New_York")
CAL = NyseCalendar()


def et(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    """An America/New_York wall-clock instant."""
    return datetime(year, month, day, hour, minute, tzinfo=ET)


def test_thanksgiving_is_closed_all_day() -> None:
    assert not CAL.is_session_day(date(2026, 11, 26))
    for hour in (3, 8, 10, 15, 18):
        assert CAL.session_at(et(2026, 11, 26, hour)) is Session.CLOSED


def test_night_before_thanksgiving_has_no_overnight_session() -> None:
    assert CAL.session_at(et(2026, 11, 25, 21)) is Session.CLOSED


def test_thanksgiving_night_runs_overnight_into_the_early_close_day() -> None:
    assert CAL.session_at(et(2026, 11, 26, 21)) is Session.OVERNIGHT
    assert CAL.span_at(et(2026, 11, 26, 21)).trading_day == date(2026, 11, 27)


def test_day_after_thanksgiving_closes_at_13_and_after_hours_end_at_17() -> None:
    day = date(2026, 11, 27)
    assert CAL.is_early_close(day)
    assert CAL.regular_close(day) == et(2026, 11, 27, 13)
    assert CAL.session_at(et(2026, 11, 27, 12, 59)) is Session.REGULAR
    assert CAL.session_at(et(2026, 11, 27, 13)) is Session.AFTER_HOURS
    assert CAL.session_at(et(2026, 11, 27, 16, 59)) is Session.AFTER_HOURS
    assert CAL.session_at(et(2026, 11, 27, 17)) is Session.CLOSED
    assert CAL.trading_day(day).after_hours_end == et(2026, 11, 27, 17)


def test_ordinary_day_sessions_follow_robinhood_hours() -> None:
    assert CAL.session_at(et(2026, 11, 30, 6, 59)) is Session.OVERNIGHT
    assert CAL.session_at(et(2026, 11, 30, 7)) is Session.PRE_MARKET
    assert CAL.session_at(et(2026, 11, 30, 8)) is Session.PRE_MARKET
    assert CAL.session_at(et(2026, 11, 30, 9, 30)) is Session.REGULAR
    assert CAL.session_at(et(2026, 11, 30, 15, 59)) is Session.REGULAR
    assert CAL.session_at(et(2026, 11, 30, 16)) is Session.AFTER_HOURS
    assert CAL.session_at(et(2026, 11, 30, 19, 59)) is Session.AFTER_HOURS
    assert CAL.session_at(et(2026, 11, 30, 20)) is Session.OVERNIGHT
    assert not CAL.is_early_close(date(2026, 11, 30))


def test_weekend_is_closed_until_sunday_20_00() -> None:
    assert CAL.session_at(et(2026, 11, 27, 21)) is Session.CLOSED  # Friday night
    assert CAL.session_at(et(2026, 11, 28, 12)) is Session.CLOSED  # Saturday
    assert CAL.session_at(et(2026, 11, 29, 19, 59)) is Session.CLOSED
    assert CAL.session_at(et(2026, 11, 29, 20)) is Session.OVERNIGHT
    assert CAL.session_at(et(2026, 11, 29, 21)) is Session.OVERNIGHT


def test_friday_night_after_a_normal_day_is_closed() -> None:
    assert CAL.session_at(et(2026, 12, 4, 20, 30)) is Session.CLOSED


def test_regular_hours_follow_daylight_saving_time_in_utc() -> None:
    assert CAL.regular_open(date(2026, 7, 1)) == datetime(2026, 7, 1, 13, 30, tzinfo=UTC)
    assert CAL.regular_open(date(2026, 12, 1)) == datetime(2026, 12, 1, 14, 30, tzinfo=UTC)
    assert CAL.session_at(et(2026, 3, 8, 21)) is Session.OVERNIGHT  # the DST Sunday


def test_next_regular_open_skips_holidays_and_weekends() -> None:
    assert CAL.next_regular_open(et(2026, 11, 26, 10)) == et(2026, 11, 27, 9, 30)
    assert CAL.next_regular_open(et(2026, 11, 27, 14)) == et(2026, 11, 30, 9, 30)
    assert CAL.next_regular_open(et(2026, 11, 30, 9, 30)) == et(2026, 11, 30, 9, 30)
    assert CAL.next_regular_open(et(2026, 12, 24, 18)) == et(2026, 12, 28, 9, 30)


def test_previous_session_date_is_the_day_before_the_instants_trading_day() -> None:
    assert CAL.previous_session_date(et(2026, 11, 30, 10)) == date(2026, 11, 27)
    assert CAL.previous_session_date(et(2026, 11, 29, 21)) == date(2026, 11, 27)  # overnight
    assert CAL.previous_session_date(et(2026, 11, 28, 12)) == date(2026, 11, 25)  # weekend
    assert CAL.previous_session_day(date(2026, 11, 27)) == date(2026, 11, 25)


def test_session_days_list_only_open_days_within_coverage() -> None:
    days = CAL.session_days(date(2026, 11, 23), date(2026, 11, 29))
    assert days == [date(2026, 11, d) for d in (23, 24, 25, 27)]
    assert CAL.session_days(date(2010, 1, 1), date(2020, 1, 3)) == [
        date(2020, 1, 2),
        date(2020, 1, 3),
    ]


def test_holidays_and_weekends_are_refused_as_session_days() -> None:
    with pytest.raises(NotASessionDay) as caught:
        CAL.regular_close(date(2026, 11, 26))
    assert caught.value.code == "not_a_session_day"
    assert not CAL.is_session_day(date(2026, 11, 28))


def test_instants_and_dates_outside_the_calendar_are_refused() -> None:
    small = NyseCalendar(date(2025, 1, 1), date(2025, 12, 31))
    assert small.start == date(2025, 1, 1) and small.end == date(2025, 12, 31)
    with pytest.raises(OutOfCalendar) as caught:
        small.session_at(datetime(2027, 1, 4, 15, tzinfo=UTC))
    assert caught.value.code == "out_of_calendar"
    with pytest.raises(OutOfCalendar):
        small.is_session_day(date(2026, 1, 5))
    with pytest.raises(OutOfCalendar):
        small.next_regular_open(et(2025, 12, 31, 18))
    with pytest.raises(OutOfCalendar):
        small.previous_session_date(et(2025, 1, 1, 12))
    with pytest.raises(OutOfCalendar):
        small.previous_session_day(date(2024, 6, 3))
    assert small.previous_session_day(date(2025, 1, 2)) == date(2024, 12, 31)
    with pytest.raises(ValueError):
        NyseCalendar(date(2025, 2, 1), date(2025, 1, 1))


def test_calendar_covers_2024_through_2028() -> None:
    assert CAL.start <= date(2024, 1, 1) and CAL.end >= date(2028, 12, 31)
    assert CAL.is_session_day(date(2024, 1, 2)) and CAL.is_session_day(date(2028, 12, 29))


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError):
        CAL.session_at(datetime(2026, 11, 30, 10))


def test_spans_tile_the_calendar_without_gaps() -> None:
    spans = CAL.spans
    assert all(a.end_us == b.start_us for a, b in itertools.pairwise(spans))
    assert all(a.session is not b.session for a, b in itertools.pairwise(spans))
    assert spans[0].start.astimezone(ET) == et(2020, 1, 1)
    assert spans[-1].end.astimezone(ET) == et(2031, 1, 1)


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2028, 12, 31)))
def test_every_instant_lies_in_its_span_and_sessions_match_the_clock(naive: datetime) -> None:
    instant = naive.replace(tzinfo=UTC)
    span = CAL.span_at(instant)
    assert span.start <= instant < span.end
    local = instant.astimezone(ET)
    if span.session is Session.REGULAR:
        assert span.trading_day == local.date()
        assert CAL.regular_open(local.date()) <= instant < CAL.regular_close(local.date())
    elif span.session is Session.OVERNIGHT:
        assert local.hour >= 20 or local.hour < 7
        assert span.trading_day is not None and CAL.is_session_day(span.trading_day)
    elif span.session is Session.PRE_MARKET:
        assert 7 <= local.hour < 10
    if span.session is not Session.CLOSED:
        assert span.previous_day is not None
        assert span.trading_day is not None and span.previous_day < span.trading_day
        assert span.trading_day - span.previous_day < timedelta(days=8)
