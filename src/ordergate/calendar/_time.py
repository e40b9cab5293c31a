"""Integer microsecond time: the calendar bisects ints, not datetimes.

Instants are microseconds since the Unix epoch (the unit of ``SessionSpan.start_us`` /
``end_us`` and ``NyseCalendar.span_at_us``). A naive datetime is refused, never guessed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["EPOCH", "from_us", "to_us"]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_US = timedelta(microseconds=1)


def to_us(instant: datetime) -> int:
    """Microseconds since the Unix epoch; a naive datetime is refused rather than guessed."""
    if instant.tzinfo is None:
        raise ValueError("naive datetime: give a timezone")
    return (instant - EPOCH) // _ONE_US


def from_us(us: int) -> datetime:
    """The UTC datetime ``us`` microseconds after the Unix epoch."""
    return EPOCH + timedelta(microseconds=us)
