"""What the equity desk needs from the market: listings, quotes at an instant, the calendar
and corporate actions (splits).

The desk reads prices only through ``EquityMarket``, a narrow protocol, so one engine runs on
the venue's seeded market (``VenueEquityMarket``) or on prices observed elsewhere
(``ObservedPrices``: what paper trading reads from the upstream broker). A market that has no
usable price for a symbol at an instant answers ``None``: the desk then refuses an order that
needs a price and lets a resting order wait. It never invents one.
``session_window`` turns the NYSE calendar into the two instants an order cares about: when
it may next trade under its ``market_hours``, and when its trading day ends (for ``gfd``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Protocol

from ordergate.calendar import NyseCalendar, Session, SessionSpan
from ordergate.core import MarketHours, to_us
from ordergate.sandbox.market import Market, Quote, Tradability, UnknownInstrument

__all__ = [
    "EquityListing",
    "EquityMarket",
    "EquityQuote",
    "SessionWindow",
    "Split",
    "VenueEquityMarket",
    "session_window",
]


@dataclass(frozen=True, slots=True)
class EquityListing:
    """A listed equity as the desk sees it."""

    symbol: str
    instrument_id: str
    name: str
    simple_name: str
    tradeable: bool = True
    fractional: bool = True
    all_day: bool = True
    country: str = "US"
    state: str = "active"


@dataclass(frozen=True, slots=True)
class EquityQuote:
    """Top of book and last trade of one symbol at one instant."""

    symbol: str
    bid: Decimal
    ask: Decimal
    last: Decimal
    bid_size: Decimal
    ask_size: Decimal
    previous_close: Decimal
    previous_close_date: date | None
    at: datetime
    last_trade_at: datetime
    last_non_regular: Decimal | None = None
    last_non_regular_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Split:
    """A ``ratio``-for-1 split of ``symbol`` effective at ``at``: from then on its prices are
    divided by ``ratio`` and every holder's shares multiplied by it."""

    symbol: str
    ratio: Decimal
    at: datetime


class EquityMarket(Protocol):
    """The market as the equity desk reads it."""

    @property
    def calendar(self) -> NyseCalendar: ...

    def listing(self, symbol: str) -> EquityListing | None:
        """The listing of ``symbol`` (upper case), or ``None`` when nothing is listed."""
        ...

    def quote(self, symbol: str, at: datetime) -> EquityQuote | None:
        """The quote of a listed symbol at ``at`` (never later than the venue clock);
        ``None`` when the market has no usable price for it then."""
        ...

    def splits(self) -> Sequence[Split]:
        """Every split announced so far, in the order announced (only ever appended to)."""
        ...

    def split(self, symbol: str, ratio: Decimal, at: datetime) -> None:
        """Announce a ``ratio``-for-1 split of ``symbol`` effective at ``at``."""
        ...


_ALLOWED: dict[MarketHours, frozenset[Session]] = {
    MarketHours.REGULAR_HOURS: frozenset({Session.REGULAR}),
    MarketHours.EXTENDED_HOURS: frozenset(
        {Session.PRE_MARKET, Session.REGULAR, Session.AFTER_HOURS}
    ),
    MarketHours.ALL_DAY_HOURS: frozenset(
        {Session.OVERNIGHT, Session.PRE_MARKET, Session.REGULAR, Session.AFTER_HOURS}
    ),
}


@dataclass(frozen=True, slots=True)
class SessionWindow:
    """Where an order stands against the calendar at one instant.

    ``opens_at`` is the first instant at or after the asked one when the order may trade
    (the asked instant itself when it is already inside an allowed session); ``day_ends_at``
    is the end of that trading day for the order's hours (when a ``gfd`` order expires).
    """

    opens_at: datetime
    day_ends_at: datetime


def session_window(calendar: NyseCalendar, at: datetime, hours: MarketHours) -> SessionWindow:
    """The trading window an order of ``hours`` placed (or looked at) at ``at`` belongs to."""
    allowed = _ALLOWED[hours]
    spans = calendar.spans
    index = calendar.span_index(to_us(at))
    span: SessionSpan = spans[index]
    while span.session not in allowed:
        index += 1
        span = spans[index]
    opens_at = max(at, span.start)
    assert span.trading_day is not None  # an open session always belongs to a trading day
    day = calendar.trading_day(span.trading_day)
    ends = day.regular_close if hours is MarketHours.REGULAR_HOURS else day.after_hours_end
    return SessionWindow(opens_at=opens_at, day_ends_at=ends)


class VenueEquityMarket:
    """``EquityMarket`` over the venue's seeded ``Market``."""

    def __init__(self, market: Market) -> None:
        self._market = market
        self._splits: list[Split] = []

    @property
    def calendar(self) -> NyseCalendar:
        return self._market.calendar

    def listing(self, symbol: str) -> EquityListing | None:
        try:
            equity = self._market.universe.equity(symbol)
        except UnknownInstrument:
            return None
        return EquityListing(
            symbol=equity.symbol,
            instrument_id=equity.instrument_id,
            name=equity.name,
            simple_name=equity.simple_name,
            tradeable=equity.tradeable,
            fractional=equity.fractional_tradability is Tradability.TRADABLE,
            all_day=equity.all_day_tradability is Tradability.TRADABLE,
            country=equity.country,
            state=equity.state,
        )

    def splits(self) -> Sequence[Split]:
        return self._splits

    def split(self, symbol: str, ratio: Decimal, at: datetime) -> None:
        """The seeded price path divided by ``ratio`` from ``at`` on (``Market.split``)."""
        self._market.split(symbol, ratio, at)
        self._splits.append(Split(symbol=symbol, ratio=Decimal(ratio), at=at))

    def quote(self, symbol: str, at: datetime) -> EquityQuote:
        quote: Quote = self._market.quote(symbol, at)
        return EquityQuote(
            symbol=quote.symbol,
            bid=quote.bid_price,
            ask=quote.ask_price,
            last=quote.last_trade_price,
            bid_size=Decimal(quote.bid_size),
            ask_size=Decimal(quote.ask_size),
            previous_close=quote.previous_close,
            previous_close_date=quote.previous_close_date,
            at=at,
            last_trade_at=quote.venue_last_trade_time,
            last_non_regular=quote.last_non_reg_trade_price,
            last_non_regular_at=quote.venue_last_non_reg_trade_time,
        )
