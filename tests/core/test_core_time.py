"""Integer microsecond time: ``to_us`` and ``from_us`` are inverse over every aware instant,
agree with the timedelta's own count of microseconds, and refuse a naive datetime."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordergate.core import SECOND_US, from_us, to_us

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@given(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_an_instant_counts_the_microseconds_since_the_epoch_and_reads_back(
    naive: datetime, offset: int
) -> None:
    instant = naive.replace(tzinfo=timezone(timedelta(minutes=offset)))
    us = to_us(instant)
    assert us == (instant - _EPOCH) // timedelta(microseconds=1)
    back = from_us(us)
    assert back == instant and back.tzinfo is UTC


def test_one_second_after_the_epoch_is_a_million_microseconds() -> None:
    assert to_us(datetime(1970, 1, 1, 0, 0, 1, 7, tzinfo=UTC)) == SECOND_US + 7
    assert from_us(-1) == datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)


def test_a_naive_datetime_is_refused_rather_than_guessed() -> None:
    with pytest.raises(ValueError, match="naive"):
        to_us(datetime(2026, 12, 1, 15, 0))
