"""Market-data tools: equity quotes, closes, books and historicals; indexes; crypto quotes.

Every answer is read from ``venue.market`` at one instant (the clock's now), so the same seed
and instant give the same bytes, and the tools agree with one another: a quote's previous
close is the daily bar's close, an index's value is the close of its bar in progress. (The
one exception is on purpose: a symbol under the ``quote_lag_s`` fault is quoted as it stood
that many seconds earlier.)
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ordergate.calendar import Session
from ordergate.sandbox.market import Bar, Index, Interval, Market, Quote, UnknownInstrument
from ordergate.sandbox.tools._market_args import (
    Window,
    capped,
    comma_list,
    id_list,
    symbols,
    window,
)
from ordergate.sandbox.tools._market_wire import (
    Stamps,
    bar_wire,
    book_wire,
    close_wire,
    crypto_quote_wire,
    currency_pair_wire,
    index_quote_wire,
    index_wire,
    previous_close_wire,
    quote_wire,
)
from ordergate.sandbox.tools._paging import page
from ordergate.sandbox.tools._prose_rules import invalid, page_size, present
from ordergate.sandbox.tools._registry import VenueError, tool

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "BOOK_DEPTH",
    "MAX_BOOK_SYMBOLS",
    "MAX_CLOSE_SYMBOLS",
    "MAX_CRYPTO_SYMBOLS",
    "MAX_HISTORICALS_SYMBOLS",
    "MAX_INDEX_IDS",
    "get_crypto_quotes",
    "get_currency_pairs",
    "get_equity_historicals",
    "get_equity_price_book",
    "get_equity_quotes",
    "get_index_historicals",
    "get_index_quotes",
    "get_indexes",
]

MAX_CLOSE_SYMBOLS = 20
MAX_BOOK_SYMBOLS = 4
BOOK_DEPTH = 10
MAX_HISTORICALS_SYMBOLS = 10
MAX_INDEX_IDS = 20
MAX_CRYPTO_SYMBOLS = 20
_PAIRS_PAGE = 20
_PAIRS_PAGE_MAX = 100
# In these sessions the latest regular close is the day before the quote's own session day,
# which the quote already carries as its previous close; after the close it is today's.
_CLOSE_IS_PREVIOUS = frozenset({Session.PRE_MARKET, Session.REGULAR, Session.OVERNIGHT})


def _unknown(field: str, kind: str, missing: list[str]) -> VenueError:
    listed = ", ".join(missing)
    noun = "symbol" if len(missing) == 1 else "symbols"
    return VenueError("NOT_FOUND", f"No {kind} listed with {noun} {listed}.", field=field)


def _with_close(market: Market, quote: Quote, stamp: Stamps, today: date | None) -> dict[str, Any]:
    wire = quote_wire(quote, stamp)
    if quote.session in _CLOSE_IS_PREVIOUS:
        return {"quote": wire, "close": previous_close_wire(wire)}
    return {"quote": wire, "close": close_wire(market.close(quote.symbol, today))}


@tool(
    "get_equity_quotes",
    description=(
        "Latest quotes (bid, ask, last trade, previous close) for equity symbols; up to 20 "
        "symbols also get their latest regular-session close."
    ),
    guide="With more than 20 symbols the quotes come without closes (see closes_error). "
    "A symbol that is not listed fails the whole call with NOT_FOUND naming it.",
)
def get_equity_quotes(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    wanted = symbols(args, "symbols")
    market = venue.market
    now = venue.clock.now()
    quotes: list[Quote] = []
    missing: list[str] = []
    for symbol in wanted:
        try:
            quotes.append(market.quote(symbol, venue.faults.quote_instant(symbol, now)))
        except UnknownInstrument:
            missing.append(symbol)
    if missing:
        raise _unknown("symbols", "equity", missing)
    stamp = Stamps()
    if len(quotes) > MAX_CLOSE_SYMBOLS:
        return {
            "results": [{"quote": quote_wire(quote, stamp)} for quote in quotes],
            "closes_error": f"Closes are returned for at most {MAX_CLOSE_SYMBOLS} symbols; "
            f"this call asked for {len(quotes)}, so no closes were fetched.",
        }
    # After the close (or while closed) the latest close is the session day just ended.
    today: date | None = None
    if any(quote.session not in _CLOSE_IS_PREVIOUS for quote in quotes):
        today = market.calendar.span_at(now).trading_day
    return {"results": [_with_close(market, quote, stamp, today) for quote in quotes]}


@tool(
    "get_equity_price_book",
    description="The order book (best bids and asks, 10 levels a side) for up to 4 symbols.",
    guide="Levels are best first. Symbols that are not listed are reported in errors.",
)
def get_equity_price_book(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    wanted = symbols(args, "symbols", maximum=MAX_BOOK_SYMBOLS)
    market = venue.market
    now = venue.clock.now()
    books: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for symbol in wanted:
        try:
            books.append(book_wire(market.book(symbol, now, depth=BOOK_DEPTH)))
        except UnknownInstrument:
            errors.append({"symbol": symbol, "error": f"No equity listed with symbol {symbol}."})
    data: dict[str, Any] = {"books": books}
    if errors:
        data["errors"] = errors
    return data


def _history(
    market: Market, symbol: str, span: Window, bounds: str | None = None
) -> list[dict[str, Any]]:
    def fetch(start: datetime, end: datetime | None) -> list[Bar]:
        return market.bars(symbol, start, end, span.interval, bounds or span.bounds)

    return [bar_wire(bar) for bar in capped(fetch, span)]


@tool(
    "get_equity_historicals",
    description=(
        "OHLCV bars for up to 10 equity symbols from start_time (ISO 8601) to end_time "
        "(default now). interval: 15second, 5minute, 10minute, hour, day (default), week, "
        "month, 3month, year, 5year, 10year, 50year. bounds: regular (default), extended, "
        "trading, 24_5, 24_7."
    ),
    guide="At most 5000 bars per symbol: a range that would hold more is refused (move "
    "start_time later or use a wider interval). Unlisted symbols are returned in not_found. "
    "The sandbox has no splits or dividends, so every adjustment_type gives the same bars.",
)
def get_equity_historicals(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    wanted = symbols(args, "symbols", maximum=MAX_HISTORICALS_SYMBOLS)
    span = window(args, default_interval=Interval.DAY)
    market = venue.market
    results: list[dict[str, Any]] = []
    missing: list[str] = []
    for symbol in wanted:
        try:
            listed = market.universe.equity(symbol)
        except UnknownInstrument:
            missing.append(symbol)
            continue
        results.append(
            {
                "symbol": listed.symbol,
                "interval": span.interval.value,
                "bounds": span.bounds.value,
                "bars": _history(market, listed.symbol, span),
            }
        )
    return {"results": results, "not_found": missing}


# -- indexes ---------------------------------------------------------------------------------


@tool(
    "get_indexes",
    description="Market indexes (SPX, NDX, DJX, RUT, VIX): ids and names. symbols is a "
    "comma-separated list; without it every index is listed.",
    guide="Pass an index's id to get_index_quotes and get_index_historicals.",
)
def get_indexes(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    universe = venue.market.universe
    wanted = comma_list(args, "symbols")
    if wanted is None:
        return {"results": [index_wire(index) for index in universe.indexes], "not_found": []}
    results: list[dict[str, Any]] = []
    missing: list[str] = []
    for symbol in dict.fromkeys(item.upper() for item in wanted):
        try:
            results.append(index_wire(universe.index(symbol)))
        except UnknownInstrument:
            missing.append(symbol)
    return {"results": results, "not_found": missing}


def _indexes_by_id(market: Market) -> dict[str, Index]:
    return {index.instrument_id: index for index in market.universe.indexes}


@tool(
    "get_index_quotes",
    description="Current values of market indexes by instrument id (from get_indexes).",
    guide="Index values move during regular sessions only; previous_close is the last "
    "regular close before the current session day. Unknown ids are returned in not_found.",
)
def get_index_quotes(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    ids = id_list(args, "instrument_ids", maximum=MAX_INDEX_IDS)
    market = venue.market
    now = venue.clock.now()
    indexes = _indexes_by_id(market)
    results: list[dict[str, Any]] = []
    missing: list[str] = []
    for instrument_id in ids:
        index = indexes.get(instrument_id)
        if index is None:
            missing.append(instrument_id)
        else:
            results.append(index_quote_wire(market.index_quote(index.symbol, now)))
    return {"results": results, "not_found": missing}


@tool(
    "get_index_historicals",
    description=(
        "Bars of market indexes by instrument id from start_time (ISO 8601) to end_time "
        "(default now); interval as for get_equity_historicals. Indexes have regular "
        "sessions only."
    ),
    guide="At most 5000 bars per index: a range that would hold more is refused. The last "
    "bar's close is the index's current value. Unknown ids are returned in not_found.",
)
def get_index_historicals(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    ids = id_list(args, "instrument_ids", maximum=MAX_HISTORICALS_SYMBOLS)
    span = window(args, default_interval=Interval.DAY)
    market = venue.market
    indexes = _indexes_by_id(market)
    results: list[dict[str, Any]] = []
    missing: list[str] = []
    for instrument_id in ids:
        index = indexes.get(instrument_id)
        if index is None:
            missing.append(instrument_id)
            continue
        bars = _history(market, index.symbol, span, bounds="regular")
        for bar in bars:
            # An index trades nothing; its bars carry no volume.
            del bar["volume"]
        results.append(
            {
                "instrument_id": index.instrument_id,
                "symbol": index.symbol,
                "interval": span.interval.value,
                "bounds": "regular",
                "bars": bars,
            }
        )
    return {"results": results, "not_found": missing}


# -- crypto ------------------------------------------------------------------------------------


@tool(
    "get_currency_pairs",
    description="Crypto currency pairs the venue trades (BTC-USD, ETH-USD, ...) with order "
    "size limits and increments; limit 1-100 per page (default 20).",
    guide="Pass next back as cursor for the following page. Quote a pair with "
    "get_crypto_quotes using its symbol.",
)
def get_currency_pairs(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    size = page_size(args, "limit", default=_PAIRS_PAGE, maximum=_PAIRS_PAGE_MAX)
    pairs = venue.market.universe.crypto_pairs
    chunk, following = page(pairs, scope="currency-pairs", cursor=args.get("cursor"), size=size)
    data: dict[str, Any] = {"results": [currency_pair_wire(pair) for pair in chunk]}
    if following is not None:
        data["next"] = following
    return data


def _timezone(args: dict[str, Any]) -> None:
    if not present(args, "timezone"):
        return
    try:
        ZoneInfo(str(args["timezone"]).strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid("timezone", "timezone must be an IANA zone name") from None


@tool(
    "get_crypto_quotes",
    description="Quotes of up to 20 crypto pairs (BTC-USD, or BTC for its USD pair): bid, "
    "ask, mark and the trailing 24 hours' open, high, low and volume.",
    guide="Crypto trades around the clock. Times are UTC whatever timezone says. Unknown "
    "pairs are returned in not_found.",
)
def get_crypto_quotes(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    wanted = symbols(args, "symbols", maximum=MAX_CRYPTO_SYMBOLS)
    if present(args, "rhs_account_number"):
        venue.accounts.get_rhs(str(args["rhs_account_number"]))
    _timezone(args)
    market = venue.market
    now = venue.clock.now()
    results: list[dict[str, Any]] = []
    missing: list[str] = []
    for symbol in wanted:
        try:
            results.append(crypto_quote_wire(market.crypto_quote(symbol, now)))
        except UnknownInstrument:
            missing.append(symbol)
    return {"results": results, "not_found": missing}
