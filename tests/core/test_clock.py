"""Injected clocks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from ordergate.core import (
    AcceleratedClock,
    ClockMode,
    MarketClock,
    RealtimeClock,
    SteppedClock,
    make_clock,
    market_speed,
    utc,
)

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def test_stepped_clock_stands_still_until_moved() -> None:
    clock = SteppedClock(start=START)
    assert clock.now() == START
    assert clock.now() == START
    assert clock.advance(timedelta(seconds=5)) == START + timedelta(seconds=5)
    assert clock.set(START + timedelta(hours=1)) == START + timedelta(hours=1)


def test_stepped_clock_never_runs_backwards() -> None:
    clock = SteppedClock(start=START)
    with pytest.raises(ValueError):
        clock.advance(timedelta(seconds=-1))
    with pytest.raises(ValueError):
        clock.set(START - timedelta(seconds=1))


def test_clocks_answer_in_utc() -> None:
    eastern = timezone(timedelta(hours=-5))
    clock = SteppedClock(start=datetime(2026, 12, 1, 10, 0, tzinfo=eastern))
    assert clock.now().tzinfo is UTC
    assert clock.now() == START
    assert RealtimeClock().now().tzinfo is UTC


def test_naive_datetimes_are_refused_rather_than_guessed() -> None:
    with pytest.raises(ValueError):
        utc(datetime(2026, 12, 1, 10, 0))


def test_accelerated_clock_starts_at_its_start_and_never_goes_back() -> None:
    clock = AcceleratedClock(start=START, speed=Decimal(1000))
    first = clock.now()
    second = clock.now()
    assert START <= first <= second
    with pytest.raises(ValueError):
        AcceleratedClock(start=START, speed=Decimal(0))


def test_make_clock_builds_each_mode() -> None:
    assert isinstance(make_clock(ClockMode.REALTIME), RealtimeClock)
    assert isinstance(make_clock(ClockMode.ACCELERATED, start=START), AcceleratedClock)
    stepped = make_clock(ClockMode.STEPPED, start=START)
    assert isinstance(stepped, SteppedClock)
    assert stepped.now() == START
    assert isinstance(make_clock(ClockMode.STEPPED), SteppedClock)


def test_a_realtime_clock_given_a_start_runs_at_wall_speed_from_it() -> None:
    clock = make_clock(ClockMode.REALTIME, start=START)
    first = clock.now()
    assert START <= first < START + timedelta(minutes=1)
    assert clock.now() >= first


def test_a_markets_speed_is_its_accelerated_clocks_and_one_for_any_other() -> None:
    start = datetime(2021, 3, 2, 15, tzinfo=UTC)
    fast = AcceleratedClock(start=start, speed=Decimal(60))
    assert market_speed(fast) == market_speed(MarketClock(fast)) == Decimal(60)
    assert market_speed(MarketClock()) == market_speed(SteppedClock(start=start)) == Decimal(1)
