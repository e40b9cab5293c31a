"""Which close grades a fill: the regular close of the session day after the fill's own.

A fill belongs to the session day of the stretch it happened in (``NyseCalendar.span_at``):
pre-market, regular and after-hours to that day, overnight to the day it leads into, a
closed stretch to the day that just ended. It is graded at the regular close of the next
session day, so a Friday fill is graded on Monday's close, or Tuesday's when Monday is a
holiday.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from ordergate.calendar import NyseCalendar, OutOfCalendar

__all__ = ["grading_day"]

# The longest run of days without a session the NYSE has had in its modern calendar is
# four (e.g. 2001-09-11 to -14); a fortnight leaves room and stays a short scan.
_SEARCH = timedelta(days=14)


def grading_day(calendar: NyseCalendar, filled_at: datetime) -> date:
    """The session day whose regular close grades a fill at ``filled_at``; raises
    ``OutOfCalendar`` when the calendar does not cover it."""
    span = calendar.span_at(filled_at)
    own = span.trading_day if span.trading_day is not None else calendar.market_date(filled_at)
    following = calendar.session_days(own + timedelta(days=1), own + _SEARCH)
    if not following:
        raise OutOfCalendar(own.isoformat())
    return following[0]
