"""Option research tools: chains, contracts, quotes (with closes) and historicals.

Contracts come from ``venue.market``'s option desk: a chain lists the open expirations, a
contract id never changes while its price moves, and an expired contract stays resolvable
by id (``expired``, ``untradable``). Every answer is read at the clock's current instant.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.calendar import Session
from ordergate.sandbox.market import (
    Bar,
    Interval,
    Market,
    OptionChain,
    OptionInstrument,
    OptionQuote,
    UnknownInstrument,
)
from ordergate.sandbox.tools._market_args import (
    Window,
    capped,
    comma_list,
    id_list,
    uuid_list,
    window,
)
from ordergate.sandbox.tools._market_wire import bar_wire
from ordergate.sandbox.tools._option_wire import (
    chain_wire,
    instrument_wire,
    option_close_wire,
    option_quote_wire,
)
from ordergate.sandbox.tools._paging import page
from ordergate.sandbox.tools._prose_rules import (
    choice,
    invalid,
    optional_positive,
    present,
    uuid_text,
)
from ordergate.sandbox.tools._registry import VenueError, tool

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "INSTRUMENTS_PAGE",
    "MAX_OPTION_CLOSE_IDS",
    "MAX_OPTION_HISTORICALS_IDS",
    "MAX_OPTION_QUOTE_IDS",
    "get_option_chains",
    "get_option_historicals",
    "get_option_instruments",
    "get_option_quotes",
]

INSTRUMENTS_PAGE = 100
MAX_OPTION_QUOTE_IDS = 100
MAX_OPTION_CLOSE_IDS = 20
MAX_OPTION_HISTORICALS_IDS = 10
_AFTER_A_CLOSE = frozenset({Session.AFTER_HOURS, Session.CLOSED})


def _not_found(field: str, missing: list[str]) -> VenueError:
    noun = "instrument" if len(missing) == 1 else "instruments"
    return VenueError("NOT_FOUND", f"No option {noun} {', '.join(missing)}.", field=field)


# -- chains ----------------------------------------------------------------------------------


def _chain_for(market: Market, symbol: str, field: str) -> OptionChain:
    try:
        return market.option_chain(symbol)
    except UnknownInstrument:
        raise VenueError(
            "NOT_FOUND", f"{symbol.upper()} has no listed options.", field=field
        ) from None


@tool(
    "get_option_chains",
    description="Option chains: expirations, multiplier and tick rules. Filter by "
    "underlying_symbol or ids (comma-separated chain ids); without either, every chain.",
    guide="Use a chain's id or symbol with get_option_instruments to list its contracts.",
)
def get_option_chains(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    market = venue.market
    chains: list[OptionChain]
    ids = comma_list(args, "ids")
    if ids is not None:
        chains = []
        missing: list[str] = []
        for chain_id in uuid_list(ids, "ids"):
            try:
                chains.append(market.option_chain_by_id(chain_id))
            except UnknownInstrument:
                missing.append(chain_id)
        if missing:
            raise VenueError(
                "NOT_FOUND", f"No option chain with id {', '.join(missing)}.", field="ids"
            )
    else:
        chains = market.option_chains()
    if present(args, "underlying_symbol"):
        symbol = str(args["underlying_symbol"]).strip()
        wanted = _chain_for(market, symbol, "underlying_symbol").id
        chains = [chain for chain in chains if chain.id == wanted]
    return {"chains": [chain_wire(chain) for chain in chains]}


# -- contracts -------------------------------------------------------------------------------


def _dates(args: dict[str, Any]) -> list[date] | None:
    items = comma_list(args, "expiration_dates")
    if items is None:
        return None
    try:
        return sorted({date.fromisoformat(item) for item in items})
    except ValueError:
        raise invalid(
            "expiration_dates", "expiration_dates must be dates as YYYY-MM-DD, comma-separated"
        ) from None


def _chain_symbol(market: Market, args: dict[str, Any]) -> str | None:
    """The chain both ``chain_id`` and ``chain_symbol`` name; ``""`` when they disagree."""
    symbol: str | None = None
    if present(args, "chain_id"):
        chain_id = uuid_text(args, "chain_id")
        try:
            symbol = market.option_chain_by_id(chain_id).symbol
        except UnknownInstrument:
            raise VenueError(
                "NOT_FOUND", f"No option chain with id {chain_id}.", field="chain_id"
            ) from None
    if present(args, "chain_symbol"):
        named = _chain_for(market, str(args["chain_symbol"]).strip(), "chain_symbol").symbol
        if symbol is not None and symbol != named:
            return ""
        symbol = named
    return symbol


def _contracts(market: Market, args: dict[str, Any]) -> list[OptionInstrument]:
    dates = _dates(args)
    kind = choice(args, "type", ("call", "put"))
    strike = optional_positive(args, "strike_price")
    state = choice(args, "state", ("active", "inactive", "expired"))
    tradability = choice(args, "tradability", ("tradable", "untradable"))
    symbol = _chain_symbol(market, args)
    ids = comma_list(args, "ids")
    if ids is not None:
        found: list[OptionInstrument] = []
        missing: list[str] = []
        for contract_id in uuid_list(ids, "ids"):
            try:
                found.append(market.option_instrument(contract_id))
            except UnknownInstrument:
                missing.append(contract_id)
        if missing:
            raise _not_found("ids", missing)
        if symbol is not None:
            found = [contract for contract in found if contract.chain_symbol == symbol]
    elif symbol is None:
        raise invalid("chain_symbol", "give chain_symbol, chain_id or ids")
    elif not symbol:
        return []
    else:
        single = dates[0] if dates is not None and len(dates) == 1 else None
        found = market.option_instruments(
            symbol, expiration=single, option_type=kind, strike=strike
        )
    checks: list[Callable[[OptionInstrument], bool]] = []
    if dates is not None:
        wanted_dates = set(dates)
        checks.append(lambda c: c.expiration_date in wanted_dates)
    if kind is not None:
        checks.append(lambda c: c.type.value == kind)
    if strike is not None:
        checks.append(lambda c: c.strike_price == strike)
    if state is not None:
        checks.append(lambda c: c.state == state)
    if tradability is not None:
        checks.append(lambda c: c.tradability.value == tradability)
    return [contract for contract in found if all(check(contract) for check in checks)]


def _scope(args: dict[str, Any]) -> str:
    """The cursor scope: one per filter set, so a cursor only resumes the listing it began."""
    keys = sorted(key for key in args if key != "cursor" and present(args, key))
    text = "&".join(f"{key}={str(args[key]).strip().lower()}" for key in keys)
    return "option-instruments:" + hashlib.sha256(text.encode()).hexdigest()[:16]


@tool(
    "get_option_instruments",
    description="Option contracts of a chain (chain_symbol or chain_id) or by ids "
    "(comma-separated), filtered by expiration_dates (comma-separated YYYY-MM-DD), "
    "strike_price, type (call|put), state (active|inactive|expired) and tradability "
    "(tradable|untradable); 100 a page.",
    guide="Pass next back as cursor, with the same filters, for the following page. Quote "
    "contracts by id with get_option_quotes.",
)
def get_option_instruments(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    contracts = _contracts(venue.market, args)
    chunk, following = page(
        contracts, scope=_scope(args), cursor=args.get("cursor"), size=INSTRUMENTS_PAGE
    )
    data: dict[str, Any] = {"instruments": [instrument_wire(contract) for contract in chunk]}
    if following is not None:
        data["next"] = following
    return data


# -- quotes ----------------------------------------------------------------------------------


def _close(
    market: Market, contract: OptionInstrument, quote: OptionQuote, after: date | None
) -> tuple[date, Decimal]:
    """The latest regular close: the quote's previous close, or today's once the bell rang."""
    if after is None or after == quote.previous_close_date:
        return quote.previous_close_date, quote.previous_close_price
    start = datetime.combine(after, time(0), tzinfo=UTC)
    bars = market.option_bars(contract.id, start, interval=Interval.DAY)
    # The day bar's close is the mark at the regular close, as the next day's quote shows it.
    return after, bars[0].close_price


@tool(
    "get_option_quotes",
    description="Quotes of up to 100 option contracts by instrument id: bid, ask, mark, "
    "greeks, open interest; up to 20 also get their latest regular-session close.",
    guide="With more than 20 ids the quotes come without closes (see closes_error). An "
    "unknown id fails the whole call with NOT_FOUND naming it.",
)
def get_option_quotes(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    ids = id_list(args, "instrument_ids", maximum=MAX_OPTION_QUOTE_IDS)
    market = venue.market
    now = venue.clock.now()
    contracts: list[OptionInstrument] = []
    missing: list[str] = []
    for contract_id in ids:
        try:
            contracts.append(market.option_instrument(contract_id))
        except UnknownInstrument:
            missing.append(contract_id)
    if missing:
        raise _not_found("instrument_ids", missing)
    quotes = [market.option_quote(contract.id, now) for contract in contracts]
    if len(quotes) > MAX_OPTION_CLOSE_IDS:
        return {
            "results": [{"quote": option_quote_wire(quote)} for quote in quotes],
            "closes_error": f"Closes are returned for at most {MAX_OPTION_CLOSE_IDS} "
            f"instruments; this call asked for {len(quotes)}, so no closes were fetched.",
        }
    span = market.calendar.span_at(now)
    after = span.trading_day if span.session in _AFTER_A_CLOSE else None
    results = []
    for contract, quote in zip(contracts, quotes, strict=True):
        day, price = _close(market, contract, quote, after)
        results.append(
            {"quote": option_quote_wire(quote), "close": option_close_wire(contract, day, price)}
        )
    return {"results": results}


# -- historicals -----------------------------------------------------------------------------


def _bars(market: Market, contract_id: str, span: Window) -> list[dict[str, Any]]:
    def fetch(start: datetime, end: datetime | None) -> list[Bar]:
        return market.option_bars(contract_id, start, end, span.interval)

    return [bar_wire(bar, volume=False) for bar in capped(fetch, span)]


@tool(
    "get_option_historicals",
    description="Bars of up to 10 option contracts' marks by instrument id from start_time "
    "(ISO 8601) to end_time (default now); interval as for get_equity_historicals "
    "(default hour).",
    guide="Options trade in regular sessions only, so bars cover regular sessions whatever "
    "bounds asks. At most 5000 bars per contract: a range that would hold more is refused. "
    "Unknown ids are returned in not_found.",
)
def get_option_historicals(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    ids = id_list(args, "instrument_ids", maximum=MAX_OPTION_HISTORICALS_IDS)
    span = window(args, default_interval=Interval.HOUR)
    market = venue.market
    results: list[dict[str, Any]] = []
    missing: list[str] = []
    for contract_id in ids:
        try:
            contract = market.option_instrument(contract_id)
        except UnknownInstrument:
            missing.append(contract_id)
            continue
        results.append(
            {
                "instrument_id": contract.id,
                "occ_symbol": contract.occ_symbol,
                "symbol": contract.chain_symbol,
                "interval": span.interval.value,
                "bounds": "regular",
                "bars": _bars(market, contract.id, span),
            }
        )
    return {"results": results, "not_found": missing}
