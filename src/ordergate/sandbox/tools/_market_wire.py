"""Market records (equity, index and crypto quotes, closes, books, bars) as they go on the wire.

Prices are canonical decimal strings (``to_wire``) at the precision the market quotes them.
Timestamps are ISO 8601 UTC with microseconds and ``Z`` (``ordergate.core.wire_time``, as
every desk writes them); dates are ``YYYY-MM-DD``. The quote path runs on
every ``get_equity_quotes`` call, so it formats each distinct instant once per call.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ordergate.core import to_wire, wire_time
from ordergate.sandbox.market import (
    Bar,
    Book,
    BookLevel,
    Close,
    CryptoPair,
    CryptoQuote,
    Index,
    IndexQuote,
    Quote,
)

__all__ = [
    "USD_INCREMENT",
    "Stamps",
    "bar_wire",
    "book_wire",
    "close_wire",
    "crypto_quote_wire",
    "currency_pair_wire",
    "index_quote_wire",
    "index_wire",
    "previous_close_wire",
    "quote_wire",
]

USD_INCREMENT = Decimal("0.01")


class Stamps:
    """Formats each distinct instant once: a quote repeats ``now`` in three fields."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[datetime, str] = {}

    def __call__(self, instant: datetime) -> str:
        text = self._seen.get(instant)
        if text is None:
            text = self._seen[instant] = wire_time(instant)
        return text


def _same_or_wire(value: Decimal, known: Decimal, text: str) -> str:
    # The market hands out one Decimal object for a price it repeats: format it once.
    return text if value is known else to_wire(value)


def quote_wire(quote: Quote, stamp: Stamps) -> dict[str, Any]:
    """One ``quote`` object of ``get_equity_quotes``."""
    last = to_wire(quote.last_trade_price)
    previous = to_wire(quote.previous_close)
    non_regular = quote.last_non_reg_trade_price
    non_regular_at = quote.venue_last_non_reg_trade_time
    return {
        "symbol": quote.symbol,
        "last_trade_price": last,
        "venue_last_trade_time": stamp(quote.venue_last_trade_time),
        "last_non_reg_trade_price": None
        if non_regular is None
        else _same_or_wire(non_regular, quote.last_trade_price, last),
        "venue_last_non_reg_trade_time": None if non_regular_at is None else stamp(non_regular_at),
        "adjusted_previous_close": _same_or_wire(
            quote.adjusted_previous_close, quote.previous_close, previous
        ),
        "previous_close": previous,
        "previous_close_date": quote.previous_close_date.isoformat(),
        "bid_price": to_wire(quote.bid_price),
        "venue_bid_time": stamp(quote.venue_bid_time),
        "ask_price": to_wire(quote.ask_price),
        "venue_ask_time": stamp(quote.venue_ask_time),
        "has_traded": quote.has_traded,
        "state": quote.state.value,
    }


def close_wire(close: Close) -> dict[str, Any]:
    """One ``close`` object of ``get_equity_quotes``."""
    return {
        "symbol": close.symbol,
        "date": close.date.isoformat(),
        "price": to_wire(close.price),
        "interpolated": close.interpolated,
        "source": close.source,
    }


# What the market says of every close it reports (it never interpolates a closing price).
_A_CLOSE = Close("", date.min, Decimal(0))


def previous_close_wire(quote_data: dict[str, Any]) -> dict[str, Any]:
    """The ``close`` object equal to a quote's previous close, from its wire form (cheap)."""
    return {
        "symbol": quote_data["symbol"],
        "date": quote_data["previous_close_date"],
        "price": quote_data["previous_close"],
        "interpolated": _A_CLOSE.interpolated,
        "source": _A_CLOSE.source,
    }


def _levels(levels: tuple[BookLevel, ...]) -> list[dict[str, Any]]:
    return [{"price": to_wire(level.price), "quantity": level.quantity} for level in levels]


def book_wire(book: Book) -> dict[str, Any]:
    """One entry of ``get_equity_price_book``'s ``books``: best prices first on each side."""
    return {
        "symbol": book.symbol,
        "updated_at": wire_time(book.updated_at),
        "asks": _levels(book.asks),
        "bids": _levels(book.bids),
    }


def bar_wire(bar: Bar, *, volume: bool = True) -> dict[str, Any]:
    """One historicals bar; ``volume`` False for instruments that report none (options)."""
    wire: dict[str, Any] = {
        "begins_at": wire_time(bar.begins_at),
        "open_price": to_wire(bar.open_price),
        "close_price": to_wire(bar.close_price),
        "high_price": to_wire(bar.high_price),
        "low_price": to_wire(bar.low_price),
    }
    if volume:
        wire["volume"] = bar.volume
    wire["session"] = bar.session.value
    wire["interpolated"] = bar.interpolated
    return wire


def index_wire(index: Index) -> dict[str, Any]:
    """One index of ``get_indexes``; ``id`` is what the other index tools take."""
    return {
        "id": index.instrument_id,
        "symbol": index.symbol,
        "name": index.name,
        "simple_name": index.simple_name,
        "state": "active",
    }


def index_quote_wire(quote: IndexQuote) -> dict[str, Any]:
    return {
        "instrument_id": quote.instrument_id,
        "symbol": quote.symbol,
        "value": to_wire(quote.value),
        "previous_close": to_wire(quote.previous_close),
        "previous_close_date": quote.previous_close_date.isoformat(),
        "session": quote.session.value,
        "updated_at": wire_time(quote.updated_at),
    }


def crypto_quote_wire(quote: CryptoQuote) -> dict[str, Any]:
    """A crypto pair's quote; open, high, low and volume cover the trailing 24 hours."""
    return {
        "symbol": quote.symbol,
        "id": quote.id,
        "bid_price": to_wire(quote.bid_price),
        "ask_price": to_wire(quote.ask_price),
        "mark_price": to_wire(quote.mark_price),
        "open_price": to_wire(quote.open_price),
        "high_price": to_wire(quote.high_price),
        "low_price": to_wire(quote.low_price),
        "volume": to_wire(quote.volume),
        "updated_at": wire_time(quote.updated_at),
    }


def currency_pair_wire(pair: CryptoPair) -> dict[str, Any]:
    """One pair of ``get_currency_pairs``, shaped like Robinhood's currency pair resource."""
    return {
        "id": pair.id,
        "symbol": pair.symbol,
        "name": pair.name,
        "asset_currency": {
            "id": pair.asset_currency_id,
            "code": pair.asset_code,
            "name": pair.name,
            "increment": to_wire(pair.asset_increment),
            "type": "cryptocurrency",
        },
        "quote_currency": {
            "id": pair.quote_currency_id,
            "code": pair.quote_code,
            "name": "US Dollar",
            "increment": to_wire(USD_INCREMENT),
            "type": "fiat",
        },
        "min_order_size": to_wire(pair.min_order_size),
        "max_order_size": to_wire(pair.max_order_size),
        "min_order_price_increment": to_wire(pair.quote_increment),
        "min_order_quantity_increment": to_wire(pair.asset_increment),
        "tradability": pair.tradability.value,
        "display_only": False,
    }
