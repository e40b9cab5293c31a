"""The NYSE calendar as Robinhood trades it: regular, extended and 24-hour-market sessions.

Session days, holidays and early closes come from ``exchange_calendars`` (``XNYS``, through
the table ``_table`` ships); the Robinhood hours are laid over them, all in America/New_York:

- ``overnight``   20:00 the evening before a session day → 07:00 on it (so Sunday night
  through Thursday night; none before a holiday or a Saturday);
- ``pre_market``  07:00 → the regular open;
- ``regular``     the exchange's open → close (13:00 on early-close days);
- ``after_hours`` the close → 20:00, or → 17:00 on early-close days;
- ``closed``      everything else.

The whole covered range is cut once into contiguous ``SessionSpan``s (a few thousand per
year), so finding the session of an instant is a bisection over ints: no pandas, no
timezone arithmetic and no loop on the quote path. pandas stays inside ``_table``, imported
only for ranges the shipped table does not cover.

``market_session(instant)`` answers from one default calendar (2020 through 2030), built on
first use and kept for the process. Outside the covered range it raises ``OutOfCalendar``
rather than guessing ``closed``: an unknown session is the caller's to refuse.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from ordergate.calendar._errors import NotASessionDay, OutOfCalendar
from ordergate.calendar._table import sessions
from ordergate.core import from_us, to_us

_Date = date

__all__ = ["NEW_YORK", "NyseCalendar", "Session", "SessionSpan", "TradingDay", "market_session"]

NEW_YORK = ZoneInfo("America/New_York")
_PRE_MARKET_START = time(7, 0)
_AFTER_HOURS_END = time(20, 0)
_EARLY_CLOSE_AFTER_HOURS_END = time(17, 0)
_OVERNIGHT_START = time(20, 0)
_NORMAL_CLOSE = time(16, 0)
# exchange_calendars is loaded a little wider than the range served, so the first covered
# day still has a previous session and the last one its following overnight.
_MARGIN = timedelta(days=14)


class Session(StrEnum):
    """Which market session an instant falls in; values are the wire strings."""

    REGULAR = "regular"
    PRE_MARKET = "pre_market"
    AFTER_HOURS = "after_hours"
    OVERNIGHT = "overnight"
    CLOSED = "closed"

    @property
    def is_open(self) -> bool:
        return self is not Session.CLOSED

    @property
    def is_extended(self) -> bool:
        return self in (Session.PRE_MARKET, Session.AFTER_HOURS)


@dataclass(frozen=True, slots=True)
class TradingDay:
    """One NYSE session day with Robinhood's hours around it (UTC datetimes)."""

    date: date
    overnight_start: datetime
    pre_market_start: datetime
    regular_open: datetime
    regular_close: datetime
    after_hours_end: datetime
    early_close: bool
    previous: _Date


@dataclass(frozen=True, slots=True)
class SessionSpan:
    """A stretch of time in one session; spans tile the calendar's range without gaps.

    ``trading_day`` is the session day the stretch belongs to (for ``closed``, the one that
    just ended); ``previous_day`` the session day before it, whose close is the "previous
    close" quoted during the stretch; ``last_regular_end_us`` the end of the latest regular
    session ending at or before the span's start (its own end for a regular span).
    """

    start_us: int
    end_us: int
    session: Session
    trading_day: date | None
    previous_day: date | None
    last_regular_end_us: int | None

    @property
    def start(self) -> datetime:
        return from_us(self.start_us)

    @property
    def end(self) -> datetime:
        return from_us(self.end_us)


@dataclass(frozen=True, slots=True)
class _Tables:
    days: dict[date, TradingDay]
    day_list: list[date]
    open_us: list[int]
    span_starts: list[int]
    spans: list[SessionSpan]


def _local(day: date, at: time) -> int:
    return to_us(datetime.combine(day, at, tzinfo=NEW_YORK))


def _load_sessions(start: date, end: date) -> list[tuple[date, datetime, datetime]]:
    return sessions(start - _MARGIN, end + _MARGIN)


@functools.lru_cache(maxsize=4)
def _build(start: date, end: date) -> _Tables:
    rows = _load_sessions(start, end)
    days: dict[date, TradingDay] = {}
    previous: date | None = None
    for day, opened, closed in rows:
        if previous is not None:
            early = closed.astimezone(NEW_YORK).time() < _NORMAL_CLOSE
            after_end = _EARLY_CLOSE_AFTER_HOURS_END if early else _AFTER_HOURS_END
            days[day] = TradingDay(
                date=day,
                overnight_start=from_us(_local(day - timedelta(days=1), _OVERNIGHT_START)),
                pre_market_start=from_us(_local(day, _PRE_MARKET_START)),
                regular_open=opened,
                regular_close=closed,
                after_hours_end=from_us(_local(day, after_end)),
                early_close=early,
                previous=previous,
            )
        previous = day
    begin_us = _local(start, time(0))
    finish_us = _local(end + timedelta(days=1), time(0))
    # Change points: (instant, session, trading day). A later point at the same instant
    # replaces an earlier one, so an overnight that starts as after-hours ends wins.
    points: list[tuple[int, Session, date | None]] = [(begin_us, Session.CLOSED, None)]
    for info in days.values():
        for instant, session in (
            (info.overnight_start, Session.OVERNIGHT),
            (info.pre_market_start, Session.PRE_MARKET),
            (info.regular_open, Session.REGULAR),
            (info.regular_close, Session.AFTER_HOURS),
            (info.after_hours_end, Session.CLOSED),
        ):
            us = max(to_us(instant), begin_us)
            if us >= finish_us:
                continue
            if points[-1][0] == us:
                points.pop()
            points.append((us, session, info.date))
    spans: list[SessionSpan] = []
    trading_day: date | None = None
    last_regular_end: int | None = None
    for index, (us, session, owner) in enumerate(points):
        stop = points[index + 1][0] if index + 1 < len(points) else finish_us
        if session is not Session.CLOSED:
            trading_day = owner
        if session is Session.REGULAR:
            last_regular_end = stop
        previous_day = days[trading_day].previous if trading_day is not None else None
        spans.append(
            SessionSpan(
                start_us=us,
                end_us=stop,
                session=session,
                trading_day=trading_day,
                previous_day=previous_day,
                last_regular_end_us=last_regular_end,
            )
        )
    day_list = sorted(days)
    return _Tables(
        days=days,
        day_list=day_list,
        open_us=[to_us(days[d].regular_open) for d in day_list],
        span_starts=[span.start_us for span in spans],
        spans=spans,
    )


class NyseCalendar:
    """NYSE session days with Robinhood's extended and overnight hours.

    Covers ``start`` through ``end`` (America/New_York dates); asking about anything outside
    raises ``OutOfCalendar``. Building one takes a fraction of a second (once per range per
    process); every query afterwards is a dictionary lookup or a bisection.
    """

    def __init__(self, start: date = date(2020, 1, 1), end: date = date(2030, 12, 31)) -> None:
        if end < start:
            raise ValueError("calendar end precedes its start")
        self._start = start
        self._end = end
        self._tables = _build(start, end)

    @property
    def start(self) -> date:
        return self._start

    @property
    def end(self) -> date:
        return self._end

    @property
    def spans(self) -> Sequence[SessionSpan]:
        """Every span in order; with ``span_index`` it lets historicals walk sessions."""
        return self._tables.spans

    def span_index(self, us: int) -> int:
        """Index in ``spans`` of the span holding the instant ``us`` (epoch microseconds)."""
        tables = self._tables
        index = bisect.bisect_right(tables.span_starts, us) - 1
        if index < 0 or us >= tables.spans[-1].end_us:
            raise OutOfCalendar(from_us(us).isoformat())
        return index

    def span_at_us(self, us: int) -> SessionSpan:
        return self._tables.spans[self.span_index(us)]

    def span_at(self, instant: datetime) -> SessionSpan:
        """The session stretch holding ``instant``."""
        return self.span_at_us(to_us(instant))

    def session_at(self, instant: datetime) -> Session:
        return self.span_at_us(to_us(instant)).session

    def market_date(self, instant: datetime) -> date:
        """The America/New_York calendar date of ``instant``."""
        return instant.astimezone(NEW_YORK).date()

    def _check(self, day: date) -> None:
        if not self._start <= day <= self._end:
            raise OutOfCalendar(day.isoformat())

    def is_session_day(self, day: date) -> bool:
        self._check(day)
        return day in self._tables.days

    def is_early_close(self, day: date) -> bool:
        return self.trading_day(day).early_close

    def trading_day(self, day: date) -> TradingDay:
        """The hours of session day ``day``; raises ``NotASessionDay`` on weekends/holidays."""
        self._check(day)
        info = self._tables.days.get(day)
        if info is None:
            raise NotASessionDay(day.isoformat())
        return info

    def regular_open(self, day: date) -> datetime:
        return self.trading_day(day).regular_open

    def regular_close(self, day: date) -> datetime:
        return self.trading_day(day).regular_close

    def next_regular_open(self, instant: datetime) -> datetime:
        """The first regular open at or after ``instant``."""
        tables = self._tables
        us = to_us(instant)
        self.span_index(us)
        index = bisect.bisect_left(tables.open_us, us)
        if index >= len(tables.open_us) or tables.day_list[index] > self._end:
            raise OutOfCalendar(instant.isoformat())
        return tables.days[tables.day_list[index]].regular_open

    def previous_session_date(self, instant: datetime) -> date:
        """The session day before the one ``instant`` belongs to: whose close is "previous".

        An instant belongs to the session day of its span: overnight belongs to the
        following day, a closed stretch to the day that just ended.
        """
        span = self.span_at(instant)
        if span.previous_day is None:
            raise OutOfCalendar(instant.isoformat())
        return span.previous_day

    def previous_session_day(self, day: date) -> date:
        """The session day strictly before ``day``."""
        self._check(day)
        tables = self._tables
        index = bisect.bisect_left(tables.day_list, day) - 1
        if index < 0:
            raise OutOfCalendar(day.isoformat())
        return tables.day_list[index]

    def session_days(self, first: date, last: date) -> list[date]:
        """Session days from ``first`` through ``last``, clipped to the covered range."""
        first = max(first, self._start)
        last = min(last, self._end)
        tables = self._tables
        low = bisect.bisect_left(tables.day_list, first)
        high = bisect.bisect_right(tables.day_list, last)
        return tables.day_list[low:high]


@functools.cache
def _default_calendar() -> NyseCalendar:
    return NyseCalendar()


def market_session(instant: datetime) -> Session:
    """The session ``instant`` falls in, by the default calendar (2020 through 2030).

    The calendar is built on the first call and reused. An instant outside its range raises
    ``OutOfCalendar`` and a naive datetime ``ValueError``; neither is read as ``closed``.
    """
    return _default_calendar().session_at(instant)


def next_session_start(instant: datetime, sessions: Collection[Session]) -> datetime | None:
    """When the next stretch in one of ``sessions`` after the one holding ``instant`` begins,
    by the default calendar; ``None`` when the calendar does not reach that far."""
    calendar = _default_calendar()
    try:
        index = calendar.span_index(to_us(instant))
    except OutOfCalendar:
        return None
    wanted = frozenset(sessions)
    for span in calendar.spans[index + 1 :]:
        if span.session in wanted:
            return span.start
    return None
