"""Integer microsecond time: microseconds since the Unix epoch, for every place that compares,
bisects or interpolates instants as ints (the calendar, the sandbox's market, the ledger's
windowed columns) rather than as datetimes.

A naive datetime is refused (``ValueError``), never guessed to be UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["SECOND_US", "from_us", "to_us"]

SECOND_US = 1_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_us(instant: datetime) -> int:
    """Microseconds since the Unix epoch; ``ValueError`` for a naive datetime.

    Exact integer arithmetic on the timedelta's fields (faster than ``delta // 1 µs``; the
    calendar and the market call this on every quote)."""
    if instant.tzinfo is None:
        raise ValueError("naive datetime: give a timezone")
    delta = instant - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * SECOND_US + delta.microseconds


def from_us(us: int) -> datetime:
    """The aware UTC datetime ``us`` microseconds after the Unix epoch."""
    return _EPOCH + timedelta(microseconds=us)
