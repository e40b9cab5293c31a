"""Historical bars (``get_equity_historicals`` and kin), drawn from the same price paths.

A bar's open is the price at its start and its close the price at its end (at *now* for
the bar in progress), evaluated as seen from inside the bar's session, so the regular daily
bar of a day closes exactly at the ``previous_close`` quoted the next trading day. High and
low come from a handful of samples in between (every sample is a real path price).

Intraday bars (``15second`` … ``hour``) sit on a UTC grid of their width, cut at session
boundaries, so each bar lies in one session: an ``hour`` bar of a regular session starts at
09:30 ET, then 10:00, … ``day`` bars cover the session day's hours allowed by ``bounds`` and
begin at midnight UTC of its date; ``week`` and longer bars aggregate the day bars (weeks
start on Monday, months on the 1st, and ``3month``/``year``/``5year``… on calendar
boundaries).

``bounds`` picks the sessions: ``regular``; ``extended`` = pre-market + regular +
after-hours; ``trading`` and ``24_5`` = those plus overnight (Robinhood's 24-hour market is
exactly the 24/5 day); ``24_7`` = around the clock, closed stretches included as flat bars
marked ``interpolated``.

At most ``MAX_BARS`` bars come back per request: the most recent ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from decimal import Decimal
from typing import Protocol

from ordergate.calendar import NEW_YORK, NyseCalendar, Session, SessionSpan
from ordergate.core import SECOND_US, Bounds, Interval, from_us, to_us
from ordergate.sandbox.market._errors import InvalidBounds, InvalidInterval

__all__ = [
    "MAX_BARS",
    "Bar",
    "Bounds",
    "Interval",
    "PriceSource",
    "build_bars",
    "parse_bounds",
    "parse_interval",
]

MAX_BARS = 5000
_DAY_US = 86_400 * SECOND_US


_INTRADAY_US = {
    Interval.SECOND_15: 15 * SECOND_US,
    Interval.MINUTE_5: 300 * SECOND_US,
    Interval.MINUTE_10: 600 * SECOND_US,
    Interval.HOUR: 3_600 * SECOND_US,
}
_EXTENDED = frozenset({Session.PRE_MARKET, Session.REGULAR, Session.AFTER_HOURS})
_TRADING = _EXTENDED | {Session.OVERNIGHT}
_SESSIONS = {
    Bounds.REGULAR: frozenset({Session.REGULAR}),
    Bounds.EXTENDED: _EXTENDED,
    Bounds.TRADING: _TRADING,
    Bounds.H24_5: _TRADING,
    Bounds.H24_7: frozenset(Session),
}
_YEARS = {Interval.YEAR: 1, Interval.YEAR_5: 5, Interval.YEAR_10: 10, Interval.YEAR_50: 50}


def parse_interval(interval: str) -> Interval:
    """The ``Interval`` named ``interval``; raises ``InvalidInterval`` naming it."""
    try:
        return Interval(interval)
    except ValueError:
        raise InvalidInterval(interval) from None


def parse_bounds(bounds: str) -> Bounds:
    """The ``Bounds`` named ``bounds``; raises ``InvalidBounds`` naming it."""
    try:
        return Bounds(bounds)
    except ValueError:
        raise InvalidBounds(bounds) from None


@dataclass(frozen=True, slots=True)
class Bar:
    """One OHLCV bar (wire names of ``get_equity_historicals``)."""

    begins_at: datetime
    open_price: Decimal
    high_price: Decimal
    low_price: Decimal
    close_price: Decimal
    volume: int
    session: Session
    interpolated: bool


class PriceSource(Protocol):
    """One instrument's path as bars need it."""

    def price(self, us: int, span: SessionSpan | None) -> Decimal:
        """The price at ``us`` as seen from inside ``span`` (``None`` for 24/7 instruments)."""
        ...

    def volume(self, start_us: int, end_us: int, session: Session) -> int:
        """Shares (or units) traded in ``[start_us, end_us)``."""
        ...


def _bar(
    source: PriceSource,
    start_us: int,
    end_us: int,
    span: SessionSpan | None,
    samples: int,
    session: Session,
    begins_at: datetime,
) -> Bar:
    opened = source.price(start_us, span)
    closed = source.price(end_us, span)
    prices = [opened, closed]
    step = (end_us - start_us) // (samples + 1)
    prices.extend(source.price(start_us + step * k, span) for k in range(1, samples + 1))
    flat = session is Session.CLOSED
    return Bar(
        begins_at=begins_at,
        open_price=opened,
        high_price=max(prices),
        low_price=min(prices),
        close_price=closed,
        volume=0 if flat else source.volume(start_us, end_us, session),
        session=session,
        interpolated=flat,
    )


def _intraday_pieces(
    calendar: NyseCalendar | None,
    start_us: int,
    end_us: int,
    width: int,
    sessions: frozenset[Session],
) -> list[tuple[int, int, SessionSpan | None]]:
    """Bar windows, newest first, at most ``MAX_BARS``."""
    pieces: list[tuple[int, int, SessionSpan | None]] = []

    def cut(low: int, high: int, span: SessionSpan | None) -> None:
        bucket = (high - 1) // width * width
        while bucket + width > low and len(pieces) < MAX_BARS:
            pieces.append((max(bucket, low), min(bucket + width, high), span))
            bucket -= width

    if calendar is None:
        cut(start_us, end_us, None)
        return pieces
    spans = calendar.spans
    index = calendar.span_index(end_us - 1)
    while index >= 0 and len(pieces) < MAX_BARS:
        span = spans[index]
        if span.end_us <= start_us:
            break
        if span.session in sessions:
            cut(max(span.start_us, start_us), min(span.end_us, end_us), span)
        index -= 1
    return pieces


def _midnight(day: date, zone: tzinfo) -> int:
    return to_us(datetime.combine(day, time(0), tzinfo=zone))


def _day_windows(
    calendar: NyseCalendar | None, first: date, last: date, bounds: Bounds
) -> list[tuple[date, int, int, Session]]:
    """(date, start, end, session) of each day bar from ``first`` through ``last``."""
    every_day = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    if calendar is None:
        return [
            (day, _midnight(day, UTC), _midnight(day + timedelta(days=1), UTC), Session.REGULAR)
            for day in every_day
        ]
    if bounds is Bounds.H24_7:
        return [
            (
                day,
                _midnight(day, NEW_YORK),
                _midnight(day + timedelta(days=1), NEW_YORK),
                Session.REGULAR if calendar.is_session_day(day) else Session.CLOSED,
            )
            for day in every_day
        ]
    windows = []
    for day in calendar.session_days(first, last):
        info = calendar.trading_day(day)
        if bounds is Bounds.REGULAR:
            low, high = info.regular_open, info.regular_close
        elif bounds is Bounds.EXTENDED:
            low, high = info.pre_market_start, info.after_hours_end
        else:
            low, high = info.overnight_start, info.after_hours_end
        windows.append((day, to_us(low), to_us(high), Session.REGULAR))
    return windows


def _day_bars(
    source: PriceSource,
    calendar: NyseCalendar | None,
    start_us: int,
    end_us: int,
    bounds: Bounds,
    samples: int,
) -> list[Bar]:
    # A day bar begins at midnight UTC of its date, so it is in range when that is.
    first = from_us(start_us).date()
    last = from_us(end_us - 1).astimezone(UTC if calendar is None else NEW_YORK).date()
    if calendar is not None:
        first, last = max(first, calendar.start), min(last, calendar.end)
    bars: list[Bar] = []
    for day, low, high, session in _day_windows(calendar, first, last, bounds)[-MAX_BARS:]:
        if low >= end_us:
            continue
        high = min(high, end_us)
        span_low = None if calendar is None else calendar.span_at_us(low)
        span_high = None if calendar is None else calendar.span_at_us(high - 1)
        bars.append(
            _day_bar(source, day, low, high, span_low, span_high, samples, calendar, session)
        )
    return bars


def _day_bar(
    source: PriceSource,
    day: date,
    low: int,
    high: int,
    span_low: SessionSpan | None,
    span_high: SessionSpan | None,
    samples: int,
    calendar: NyseCalendar | None,
    session: Session,
) -> Bar:
    opened = source.price(low, span_low)
    closed = source.price(high, span_high)
    prices = [opened, closed]
    step = (high - low) // (samples + 1)
    for k in range(1, samples + 1):
        us = low + step * k
        prices.append(source.price(us, None if calendar is None else calendar.span_at_us(us)))
    flat = session is Session.CLOSED
    return Bar(
        begins_at=datetime.combine(day, time(0), tzinfo=UTC),
        open_price=opened,
        high_price=max(prices),
        low_price=min(prices),
        close_price=closed,
        volume=0 if flat else source.volume(low, high, Session.REGULAR),
        session=session,
        interpolated=flat,
    )


def _period_start(interval: Interval) -> Callable[[date], date]:
    if interval is Interval.WEEK:
        return lambda day: day - timedelta(days=day.weekday())
    if interval is Interval.MONTH:
        return lambda day: day.replace(day=1)
    if interval is Interval.MONTH_3:
        return lambda day: date(day.year, (day.month - 1) // 3 * 3 + 1, 1)
    years = _YEARS[interval]
    return lambda day: date(day.year - day.year % years, 1, 1)


def _aggregate(days: list[Bar], interval: Interval) -> list[Bar]:
    start_of = _period_start(interval)
    groups: dict[date, list[Bar]] = {}
    for bar in days:
        groups.setdefault(start_of(bar.begins_at.date()), []).append(bar)
    return [
        Bar(
            begins_at=datetime.combine(period, time(0), tzinfo=UTC),
            open_price=members[0].open_price,
            high_price=max(member.high_price for member in members),
            low_price=min(member.low_price for member in members),
            close_price=members[-1].close_price,
            volume=sum(member.volume for member in members),
            session=Session.REGULAR,
            interpolated=all(member.interpolated for member in members),
        )
        for period, members in groups.items()
    ]


def build_bars(
    source: PriceSource,
    calendar: NyseCalendar | None,
    *,
    start_us: int,
    end_us: int,
    interval: Interval,
    bounds: Bounds,
    samples: int = 3,
) -> list[Bar]:
    """Bars of ``source`` from ``start_us`` to ``end_us`` (already clipped to now).

    ``calendar`` ``None`` means the instrument trades around the clock (crypto): intraday
    bars run continuously, day bars are UTC days and every bar is ``regular``. At most
    ``MAX_BARS``, the most recent.
    """
    width = _INTRADAY_US.get(interval)
    if width is not None:
        start_us = start_us // width * width
    if end_us <= start_us:
        return []
    if width is not None:
        pieces = _intraday_pieces(calendar, start_us, end_us, width, _SESSIONS[bounds])
        pieces.reverse()
        fine = 0 if interval is Interval.SECOND_15 else samples
        return [
            _bar(
                source,
                low,
                high,
                span,
                fine,
                Session.REGULAR if span is None else span.session,
                from_us(low),
            )
            for low, high, span in pieces
        ]
    days = _day_bars(source, calendar, start_us, end_us, bounds, 6 if samples else 0)
    if interval is Interval.DAY:
        return days
    return _aggregate(days, interval)[-MAX_BARS:]
