"""The NYSE calendar as Robinhood trades it: which session (overnight, pre-market, regular,
after-hours, closed) an instant falls in, session days, holidays and early closes.

Shared by the sandbox venue and the real-money side alike; it depends on ``ordergate.core``
and the standard library only (``exchange_calendars`` is imported lazily, and only for a range
the shipped table does not cover). Outside its coverage it raises ``OutOfCalendar``: it never
guesses a session.
"""

from ordergate.calendar._calendar import (
    NEW_YORK,
    NyseCalendar,
    Session,
    SessionSpan,
    TradingDay,
    market_session,
    next_session_start,
)
from ordergate.calendar._errors import CalendarError, NotASessionDay, OutOfCalendar
from ordergate.calendar._spans import PNL_SPANS, span_start

__all__ = [
    "NEW_YORK",
    "PNL_SPANS",
    "CalendarError",
    "NotASessionDay",
    "NyseCalendar",
    "OutOfCalendar",
    "Session",
    "SessionSpan",
    "TradingDay",
    "market_session",
    "next_session_start",
    "span_start",
]
