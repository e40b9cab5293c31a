"""Quotes, closes and price books built from the price paths.

An equity quote is centred on the traded price: ``bid = last − half spread`` and
``ask = last + half spread``, at least one tick each side, so ``bid < last < ask`` always.
The spread is the listing's ``spread_bp`` in regular hours, twice that in pre-market and
after-hours, three times overnight and while closed. Sizes are whole shares drawn from the
seeded noise per second, so they change as often as a real top of book would.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from ordergate.calendar import OutOfCalendar, Session, SessionSpan
from ordergate.core import SECOND_US, from_us, to_us
from ordergate.sandbox.market._noise import mix
from ordergate.sandbox.market._prices import (
    PriceModel,
    price_exponent,
    round_to,
    to_decimal,
    units_of,
)
from ordergate.sandbox.market._universe import CryptoPair, Equity, Index

__all__ = [
    "Book",
    "BookLevel",
    "Close",
    "CryptoQuote",
    "IndexQuote",
    "Quote",
    "QuoteState",
    "build_book",
    "build_crypto_quote",
    "build_index_quote",
    "build_quote",
]

_SPREAD_MULTIPLIER = {
    Session.REGULAR: 1,
    Session.PRE_MARKET: 2,
    Session.AFTER_HOURS: 2,
    Session.OVERNIGHT: 3,
    Session.CLOSED: 3,
}
_HOUR_US = 3_600 * SECOND_US


class QuoteState(StrEnum):
    ACTIVE = "active"
    HALTED = "halted"


@dataclass(frozen=True, slots=True)
class Quote:
    """An equity quote with every field ``get_equity_quotes`` returns (wire names).

    ``last_trade_price`` is the latest trade in any session; ``last_non_reg_trade_*`` repeat
    it while the session is pre-market, after-hours or overnight and are ``None`` otherwise.
    ``previous_close`` is the regular close of ``previous_close_date``, the session day before
    the one the instant belongs to (overnight belongs to the next day; a closed stretch to
    the day just ended), and equals that day's daily bar close.
    """

    symbol: str
    instrument_id: str
    bid_price: Decimal
    bid_size: int
    ask_price: Decimal
    ask_size: int
    last_trade_price: Decimal
    venue_last_trade_time: datetime
    last_non_reg_trade_price: Decimal | None
    venue_last_non_reg_trade_time: datetime | None
    previous_close: Decimal
    adjusted_previous_close: Decimal
    previous_close_date: date
    venue_bid_time: datetime
    venue_ask_time: datetime
    has_traded: bool
    state: QuoteState
    session: Session
    updated_at: datetime

    @property
    def mid_price(self) -> Decimal:
        return (self.bid_price + self.ask_price) / 2


@dataclass(frozen=True, slots=True)
class Close:
    """A regular-session closing price (the ``close`` object of ``get_equity_quotes``)."""

    symbol: str
    date: date
    price: Decimal
    interpolated: bool = False
    source: str = "sandbox"


@dataclass(frozen=True, slots=True)
class BookLevel:
    price: Decimal
    quantity: int


@dataclass(frozen=True, slots=True)
class Book:
    """A few levels of the order book; the first level of each side is the quote's."""

    symbol: str
    updated_at: datetime
    bids: tuple[BookLevel, ...]
    asks: tuple[BookLevel, ...]


@dataclass(frozen=True, slots=True)
class CryptoQuote:
    """A crypto pair quote; ``open/high/low`` and ``volume`` cover the trailing 24 hours."""

    symbol: str
    id: str
    bid_price: Decimal
    ask_price: Decimal
    mark_price: Decimal
    open_price: Decimal
    high_price: Decimal
    low_price: Decimal
    volume: Decimal
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class IndexQuote:
    """An index level; it moves during regular sessions only."""

    symbol: str
    instrument_id: str
    value: Decimal
    previous_close: Decimal
    previous_close_date: date
    session: Session
    updated_at: datetime


def _half_spread(nanos: int, spread_bp: int, multiplier: int, tick: int) -> int:
    """Half the spread in ticks, rounded up, at least one tick."""
    denominator = 20_000 * tick
    return max(1, (nanos * spread_bp * multiplier + denominator - 1) // denominator)


def _previous_day(span: SessionSpan, us: int) -> date:
    if span.previous_day is None:
        raise OutOfCalendar(from_us(us).isoformat())
    return span.previous_day


def build_quote(model: PriceModel, equity: Equity, us: int) -> Quote:
    calendar = model.calendar
    span = calendar.span_at_us(us)
    session = span.session
    nanos = model.equity_nanos(equity, us, span)
    point = round_to(nanos, price_exponent(nanos))
    half = _half_spread(nanos, equity.spread_bp, _SPREAD_MULTIPLIER[session], point.tick_nanos)
    exponent = point.exponent
    last = point.units
    bid = max(1, last - half)
    ask = last + half
    previous_day = _previous_day(span, us)
    close_us = model.calendar_close_us(previous_day)
    close_nanos = model.equity_close(equity, close_us)
    previous = round_to(close_nanos, price_exponent(close_nanos)).decimal()
    now = from_us(us)
    if session is Session.CLOSED or not equity.tradeable:
        traded_us = span.start_us if session is Session.CLOSED else us
    else:
        traded_us = us
    traded_at = from_us(traded_us - traded_us % SECOND_US)
    last_price = to_decimal(last, exponent)
    off_hours = session in (Session.PRE_MARKET, Session.AFTER_HOURS, Session.OVERNIGHT)
    sizes = mix(model.noise.salt(equity.symbol) ^ (us // SECOND_US))
    return Quote(
        symbol=equity.symbol,
        instrument_id=equity.instrument_id,
        bid_price=to_decimal(bid, exponent),
        bid_size=1 + sizes % 500,
        ask_price=to_decimal(ask, exponent),
        ask_size=1 + (sizes >> 20) % 500,
        last_trade_price=last_price,
        venue_last_trade_time=traded_at,
        last_non_reg_trade_price=last_price if off_hours else None,
        venue_last_non_reg_trade_time=traded_at if off_hours else None,
        previous_close=previous,
        adjusted_previous_close=previous,
        previous_close_date=previous_day,
        venue_bid_time=now,
        venue_ask_time=now,
        has_traded=True,
        state=QuoteState.ACTIVE if equity.tradeable else QuoteState.HALTED,
        session=session,
        updated_at=now,
    )


def build_book(model: PriceModel, quote: Quote, depth: int) -> Book:
    """``depth`` levels a side, stepping away from the quote by about half the spread."""
    bid_point = units_of(quote.bid_price)
    exponent = bid_point.exponent
    bid = bid_point.units
    ask = units_of(quote.ask_price).units
    step = max(1, (ask - bid) // 4)
    salt = model.noise.salt(quote.symbol) ^ (to_us(quote.updated_at) // SECOND_US)
    bids = [BookLevel(quote.bid_price, quote.bid_size)]
    asks = [BookLevel(quote.ask_price, quote.ask_size)]
    for level in range(1, depth):
        sizes = mix(salt + level)
        if bid - level * step >= 1:
            bids.append(BookLevel(to_decimal(bid - level * step, exponent), 1 + sizes % 900))
        asks.append(BookLevel(to_decimal(ask + level * step, exponent), 1 + (sizes >> 24) % 900))
    return Book(quote.symbol, quote.updated_at, tuple(bids), tuple(asks))


def build_crypto_quote(model: PriceModel, pair: CryptoPair, us: int) -> CryptoQuote:
    exponent = model.crypto_exponent(pair)
    nanos = model.crypto_nanos(pair, us)
    point = round_to(nanos, exponent)
    half = _half_spread(nanos, pair.spread_bp, 1, point.tick_nanos)
    samples = [model.crypto_nanos(pair, us - hour * _HOUR_US) for hour in range(24, 0, -1)]
    samples.append(nanos)
    volume_units = mix(model.noise.salt(pair.symbol) ^ (us // _HOUR_US)) % 1_000_000
    # A day's volume of roughly $0.5–1.5bn whatever the pair, in units of the asset.
    volume = Decimal(500_000_000 + volume_units * 1000) / point.decimal()
    return CryptoQuote(
        symbol=pair.symbol,
        id=pair.id,
        bid_price=to_decimal(max(1, point.units - half), exponent),
        ask_price=to_decimal(point.units + half, exponent),
        mark_price=point.decimal(),
        open_price=round_to(samples[0], exponent).decimal(),
        high_price=round_to(max(samples), exponent).decimal(),
        low_price=round_to(min(samples), exponent).decimal(),
        volume=volume.quantize(pair.asset_increment),
        updated_at=from_us(us),
    )


def build_index_quote(model: PriceModel, index: Index, us: int) -> IndexQuote:
    span = model.calendar.span_at_us(us)
    previous_day = _previous_day(span, us)
    close = model.index_close(index, model.calendar_close_us(previous_day))
    return IndexQuote(
        symbol=index.symbol,
        instrument_id=index.instrument_id,
        value=round_to(model.index_nanos(index, us, span), -2).decimal(),
        previous_close=round_to(close, -2).decimal(),
        previous_close_date=previous_day,
        session=span.session,
        updated_at=from_us(us),
    )
