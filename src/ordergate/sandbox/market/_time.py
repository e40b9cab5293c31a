"""Integer microsecond time: the hot path compares and interpolates ints, not datetimes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["EPOCH", "SECOND_US", "from_us", "to_us"]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SECOND_US = 1_000_000
_ONE_US = timedelta(microseconds=1)


def to_us(instant: datetime) -> int:
    """Microseconds since the Unix epoch; a naive datetime is refused rather than guessed."""
    if instant.tzinfo is None:
        raise ValueError("naive datetime: give a timezone")
    return (instant - EPOCH) // _ONE_US


def from_us(us: int) -> datetime:
    """The UTC datetime ``us`` microseconds after the Unix epoch."""
    return EPOCH + timedelta(microseconds=us)
