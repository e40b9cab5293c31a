"""Response models of the market-data tools.

Equity quotes, closes, books and historicals follow the captured output contract (its
required fields are required here); index tools were only inventoried, so their models keep
every field optional except the identifiers, and keep whatever else the venue sends.
"""

from __future__ import annotations

import datetime as dt
from datetime import date, datetime

from pydantic import Field

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._fields import NullableList, WireBool
from ordergate.client._models import WireModel

__all__ = [
    "Bar",
    "Book",
    "BookError",
    "BookLevel",
    "EquityClose",
    "EquityHistoricals",
    "EquityQuote",
    "EquityQuotes",
    "Index",
    "IndexBar",
    "IndexHistoricals",
    "IndexQuote",
    "IndexQuotes",
    "IndexSeries",
    "Indexes",
    "PriceBooks",
    "QuoteResult",
    "SearchEquity",
    "SearchIndex",
    "SearchPair",
    "SearchResults",
    "SymbolHistoricals",
]


# -- get_equity_quotes -----------------------------------------------------------------------


class EquityQuote(WireModel):
    symbol: str
    last_trade_price: Money
    venue_last_trade_time: datetime
    last_non_reg_trade_price: OptionalMoney = None
    venue_last_non_reg_trade_time: datetime | None = None
    adjusted_previous_close: Money
    previous_close: Money
    previous_close_date: date | None = None
    bid_price: Money
    venue_bid_time: datetime
    ask_price: Money
    venue_ask_time: datetime
    has_traded: WireBool
    state: str


class EquityClose(WireModel):
    """The latest regular-session close (sent for calls of up to 20 symbols)."""

    symbol: str
    date: dt.date | None = None
    price: OptionalMoney = None
    interpolated: WireBool | None = None
    source: str | None = None


class QuoteResult(WireModel):
    quote: EquityQuote | None
    close: EquityClose | None = None


class EquityQuotes(WireModel):
    """One entry per symbol asked for, in order (the contract allows ``null`` entries).

    ``closes_error`` says why closes are missing (more than 20 symbols were asked for).
    """

    results: NullableList[QuoteResult | None]
    closes_error: str | None = None


# -- get_equity_historicals ------------------------------------------------------------------


class Bar(WireModel):
    begins_at: datetime
    open_price: Money
    close_price: Money
    high_price: Money
    low_price: Money
    volume: int
    session: str | None = None
    interpolated: WireBool | None = None


class SymbolHistoricals(WireModel):
    symbol: str
    interval: str
    bounds: str
    bars: NullableList[Bar | None]


class EquityHistoricals(WireModel):
    results: NullableList[SymbolHistoricals]
    not_found: NullableList[str] = Field(default_factory=list)


# -- get_equity_price_book -------------------------------------------------------------------


class BookLevel(WireModel):
    price: Money
    quantity: int


class Book(WireModel):
    """Best prices first on each side."""

    symbol: str
    updated_at: datetime
    asks: NullableList[BookLevel]
    bids: NullableList[BookLevel]


class BookError(WireModel):
    symbol: str
    error: str


class PriceBooks(WireModel):
    books: NullableList[Book | None]
    errors: NullableList[BookError] = Field(default_factory=list)


# -- indexes (inventory-only tools) ----------------------------------------------------------


class Index(WireModel):
    id: str
    symbol: str | None = None
    name: str | None = None
    simple_name: str | None = None
    state: str | None = None


class Indexes(WireModel):
    results: NullableList[Index] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)


class IndexQuote(WireModel):
    instrument_id: str
    symbol: str | None = None
    value: OptionalMoney = None
    previous_close: OptionalMoney = None
    previous_close_date: date | None = None
    session: str | None = None
    updated_at: datetime | None = None


class IndexQuotes(WireModel):
    results: NullableList[IndexQuote] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)


class IndexBar(WireModel):
    """An index bar: prices, no volume (an index trades nothing)."""

    begins_at: datetime | None = None
    open_price: OptionalMoney = None
    close_price: OptionalMoney = None
    high_price: OptionalMoney = None
    low_price: OptionalMoney = None
    session: str | None = None
    interpolated: WireBool | None = None


class IndexSeries(WireModel):
    instrument_id: str
    symbol: str | None = None
    interval: str | None = None
    bounds: str | None = None
    bars: NullableList[IndexBar | None] = Field(default_factory=list)


class IndexHistoricals(WireModel):
    results: NullableList[IndexSeries] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)


# -- search ----------------------------------------------------------------------------------


class SearchEquity(WireModel):
    instrument_id: str
    symbol: str
    name: str
    simple_name: str | None = None


class SearchPair(WireModel):
    id: str
    symbol: str
    name: str


class SearchIndex(WireModel):
    id: str
    symbol: str
    name: str


class SearchResults(WireModel):
    """Each kind is ``None`` when the search did not look for it (``asset_type``)."""

    results: list[SearchEquity] | None = None
    currency_pairs: list[SearchPair] | None = None
    market_indexes: list[SearchIndex] | None = None
