"""The calendar's exception tree.

::

    OrdergateError
    └── CalendarError                  anything the NYSE calendar refuses to answer
        ├── OutOfCalendar              an instant or date outside the calendar's coverage
        └── NotASessionDay             a date the exchange does not open

Each carries its reason as ``code`` and the offending value as an attribute, so callers
assert on codes, never on message text. Both also derive from ``ValueError`` so plain
``except`` clauses keep working. Nothing here guesses: outside its coverage the calendar
refuses, and the caller decides what an unknown session means.
"""

from __future__ import annotations

from ordergate.core import OrdergateError

__all__ = ["CalendarError", "NotASessionDay", "OutOfCalendar"]


class CalendarError(OrdergateError):
    """Root of every error the NYSE calendar raises."""

    code = "calendar_error"


class OutOfCalendar(CalendarError, ValueError):
    """The instant or date lies outside the dates the calendar was built for."""

    code = "out_of_calendar"

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(f"{what} is outside the market calendar")


class NotASessionDay(CalendarError, ValueError):
    """The date is a weekend or an exchange holiday."""

    code = "not_a_session_day"

    def __init__(self, day: str) -> None:
        self.day = day
        super().__init__(f"{day} is not a session day")
