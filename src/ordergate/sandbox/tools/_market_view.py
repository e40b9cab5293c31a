"""The narrow view of ``venue.market`` that the lists, scanner and research tools read.

Everything these families need from the market goes through here, so the families depend
on a handful of functions rather than on the market's whole surface.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from ordergate.calendar import CalendarError
from ordergate.sandbox.market import (
    Bar,
    CryptoPair,
    Equity,
    EquityKind,
    Index,
    InvalidBounds,
    InvalidInterval,
    MarketError,
    Universe,
    UnknownInstrument,
)
from ordergate.sandbox.tools._company import Company, company
from ordergate.sandbox.tools._prose_rules import invalid
from ordergate.sandbox.tools._registry import VenueError

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "Bar",
    "CryptoPair",
    "Equity",
    "Index",
    "Move",
    "OptionView",
    "bars",
    "company_of",
    "crypto_pair",
    "crypto_price",
    "daily_closes",
    "equity",
    "equity_by_id",
    "equity_price",
    "index_by_id",
    "index_price",
    "option",
    "pair_by_id",
    "require_equity",
    "universe",
]


@dataclass(frozen=True, slots=True)
class Move:
    """A price now and the reference it is compared with (previous close, or 24 h ago)."""

    last: Decimal
    previous_close: Decimal

    @property
    def change(self) -> Decimal:
        return self.last - self.previous_close

    @property
    def percent_change(self) -> Decimal:
        if self.previous_close == 0:
            return Decimal("0.00")
        return (self.change * 100 / self.previous_close).quantize(Decimal("0.01"))


@dataclass(frozen=True, slots=True)
class OptionView:
    option_id: str
    chain_symbol: str
    type: str
    strike_price: Decimal
    expiration_date: date
    state: str
    mark_price: Decimal | None


def universe(venue: Venue) -> Universe:
    return venue.market.universe


def equity(venue: Venue, symbol: str) -> Equity | None:
    """The listed equity, or ``None`` when the universe does not list ``symbol``."""
    try:
        return universe(venue).equity(symbol)
    except UnknownInstrument:
        return None


def require_equity(venue: Venue, symbol: str, field: str = "symbol") -> Equity:
    """The listed equity; ``NOT_FOUND`` naming ``field`` when the universe does not list it."""
    listed = equity(venue, symbol.strip())
    if listed is None:
        raise VenueError(
            "NOT_FOUND", f"No equity with symbol {symbol.strip().upper()}.", field=field
        )
    return listed


def _by_id(venue: Venue, instrument_id: str) -> Equity | Index | CryptoPair | None:
    try:
        return universe(venue).by_id(instrument_id)
    except UnknownInstrument:
        return None


def equity_by_id(venue: Venue, instrument_id: str) -> Equity | None:
    found = _by_id(venue, instrument_id)
    return found if isinstance(found, Equity) else None


def index_by_id(venue: Venue, instrument_id: str) -> Index | None:
    found = _by_id(venue, instrument_id)
    return found if isinstance(found, Index) else None


def pair_by_id(venue: Venue, pair_id: str) -> CryptoPair | None:
    found = _by_id(venue, pair_id)
    return found if isinstance(found, CryptoPair) else None


def crypto_pair(venue: Venue, symbol: str) -> CryptoPair | None:
    try:
        return universe(venue).crypto_pair(symbol)
    except UnknownInstrument:
        return None


def equity_price(venue: Venue, listed: Equity) -> Move:
    quote = venue.market.quote(listed.symbol)
    return Move(last=quote.last_trade_price, previous_close=quote.previous_close)


def crypto_price(venue: Venue, pair: CryptoPair) -> Move:
    """A pair's mark and its price 24 hours earlier (crypto has no close)."""
    quote = venue.market.crypto_quote(pair.symbol)
    return Move(last=quote.mark_price, previous_close=quote.open_price)


def index_price(venue: Venue, index: Index) -> Move:
    quote = venue.market.index_quote(index.symbol)
    return Move(last=quote.value, previous_close=quote.previous_close)


def option(venue: Venue, option_id: str) -> OptionView | None:
    """The option contract with this id (open or expired), or ``None`` when unknown."""
    try:
        contract = venue.market.option_instrument(option_id.lower())
    except (MarketError, ValueError):
        return None
    mark: Decimal | None
    try:
        mark = venue.market.option_quote(contract.id).mark_price
    except (MarketError, CalendarError):
        mark = None
    return OptionView(
        option_id=contract.id,
        chain_symbol=contract.chain_symbol,
        type=str(contract.type),
        strike_price=contract.strike_price,
        expiration_date=contract.expiration_date,
        state=contract.state,
        mark_price=mark,
    )


def bars(
    venue: Venue, symbol: str, start: datetime, end: datetime | None, interval: str, bounds: str
) -> list[Bar]:
    """The market's bars; an interval or bounds it does not serve is ``INVALID_ARGUMENT``."""
    try:
        return venue.market.bars(symbol, start, end, interval=interval, bounds=bounds)
    except InvalidInterval:
        raise invalid("interval", f"interval {interval!r} is not supported") from None
    except InvalidBounds:
        raise invalid("bounds", f"bounds {bounds!r} is not supported") from None


def daily_closes(venue: Venue, listed: Equity, sessions: int) -> list[Decimal]:
    """Closes of up to the last ``sessions`` regular sessions (today's so far included)."""
    # Seven calendar days hold at least four sessions, whatever the holidays.
    start = venue.now() - timedelta(days=sessions * 7 // 4 + 7)
    found = bars(venue, listed.symbol, start, None, "day", "regular")
    return [bar.close_price for bar in found[-sessions:]]


def company_of(venue: Venue, listed: Equity) -> Company:
    return company(
        venue.seed,
        listed.symbol,
        listed.name,
        listed.simple_name,
        listed.kind == EquityKind.ETF,
        listed.base_price,
        listed.average_volume,
    )
