"""What the sandbox lists: equities and ETFs, indexes, crypto pairs and option underlyings.

Every id is a UUID5 of one fixed namespace and the instrument's kind and symbol, so the
same symbol has the same id in every process, seed and run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import TypeVar

from ordergate.sandbox.market._errors import UnknownInstrument

__all__ = [
    "NAMESPACE",
    "CryptoPair",
    "Equity",
    "EquityKind",
    "Index",
    "OptionUnderlying",
    "SearchResult",
    "Tradability",
    "Universe",
    "instrument_uuid",
]

# Fixed forever: changing it would change every instrument id the sandbox has handed out.
NAMESPACE = uuid.UUID("6f1c1f8e-5b0f-4d55-9a7e-0e0d0e6a7e00")


def instrument_uuid(kind: str, key: str) -> str:
    """The deterministic id of an instrument: UUID5(NAMESPACE, "kind:key")."""
    return str(uuid.uuid5(NAMESPACE, f"{kind}:{key}"))


class EquityKind(StrEnum):
    STOCK = "stock"
    ETF = "etf"


class Tradability(StrEnum):
    TRADABLE = "tradable"
    UNTRADABLE = "untradable"


@dataclass(frozen=True, slots=True)
class Equity:
    """A listed stock or ETF.

    ``spread_bp`` is the quoted spread in basis points of the price during regular hours;
    ``volatility`` scales the price noise in percent (100 = an ordinary large cap).
    ``tradeable`` False marks a halted or delisted-looking listing whose price stands still.
    """

    symbol: str
    name: str
    simple_name: str
    kind: EquityKind
    base_price: Decimal
    spread_bp: int
    volatility: int
    average_volume: int
    tradeable: bool = True
    fractional_tradability: Tradability = Tradability.TRADABLE
    shortable: bool = True
    all_day_tradability: Tradability = Tradability.TRADABLE
    country: str = "US"
    instrument_id: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Stored, not a property: the quote path reads it on every call.
        object.__setattr__(self, "instrument_id", instrument_uuid("equity", self.symbol))

    @property
    def state(self) -> str:
        """The instrument's listing state: ``active`` or ``inactive``."""
        return "active" if self.tradeable else "inactive"


@dataclass(frozen=True, slots=True)
class Index:
    """A market index; its level moves only during regular sessions."""

    symbol: str
    name: str
    simple_name: str
    base_level: Decimal
    volatility: int

    @property
    def instrument_id(self) -> str:
        return instrument_uuid("index", self.symbol)


@dataclass(frozen=True, slots=True)
class CryptoPair:
    """A crypto currency pair quoted in USD around the clock.

    ``quote_increment`` is the price tick (a power of ten), ``asset_increment`` the
    quantity step, ``min_order_size`` / ``max_order_size`` in units of the asset.
    """

    symbol: str
    name: str
    asset_code: str
    base_price: Decimal
    quote_increment: Decimal
    asset_increment: Decimal
    min_order_size: Decimal
    max_order_size: Decimal
    spread_bp: int
    volatility: int
    quote_code: str = "USD"
    tradability: Tradability = Tradability.TRADABLE

    @property
    def id(self) -> str:
        return instrument_uuid("currency_pair", self.symbol)

    @property
    def asset_currency_id(self) -> str:
        return instrument_uuid("currency", self.asset_code)

    @property
    def quote_currency_id(self) -> str:
        return instrument_uuid("currency", self.quote_code)


@dataclass(frozen=True, slots=True)
class OptionUnderlying:
    """An equity with listed options: its at-the-money implied volatility and tick rules.

    Penny-program underlyings quote every premium in cents; the others quote in nickels at
    and above ``$3``.
    """

    symbol: str
    implied_volatility: Decimal
    penny_program: bool = False


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What ``Universe.search`` found, best match first within each kind."""

    equities: tuple[Equity, ...]
    indexes: tuple[Index, ...]
    crypto_pairs: tuple[CryptoPair, ...]


def _rank(query: str, symbol: str, name: str) -> int | None:
    """0 exact symbol, 1 symbol prefix, 2 a name word prefix, 3 name substring, else None."""
    symbol = symbol.upper()
    if symbol == query:
        return 0
    if symbol.startswith(query):
        return 1
    words = name.upper().replace(",", " ").replace(".", " ").split()
    if any(word.startswith(query) for word in words):
        return 2
    if len(query) >= 3 and query in name.upper():
        return 3
    return None


class Universe:
    """The instruments one market lists, looked up by symbol (case-insensitive) or id."""

    def __init__(
        self,
        *,
        equities: Iterable[Equity],
        indexes: Iterable[Index],
        crypto_pairs: Iterable[CryptoPair],
        option_underlyings: Iterable[OptionUnderlying],
    ) -> None:
        self._equities = {e.symbol: e for e in equities}
        self._indexes = {i.symbol: i for i in indexes}
        self._pairs = {p.symbol: p for p in crypto_pairs}
        self._options = {o.symbol: o for o in option_underlyings}
        for symbol in self._options:
            if symbol not in self._equities:
                raise ValueError(f"option underlying {symbol} is not a listed equity")
        self._by_id: dict[str, Equity | Index | CryptoPair] = {}
        for equity in self._equities.values():
            self._by_id[equity.instrument_id] = equity
        for index in self._indexes.values():
            self._by_id[index.instrument_id] = index
        for pair in self._pairs.values():
            self._by_id[pair.id] = pair

    @classmethod
    def default(cls) -> Universe:
        """The standard sandbox listing (see ``_listings``)."""
        from ordergate.sandbox.market import _listings

        return cls(
            equities=_listings.EQUITIES,
            indexes=_listings.INDEXES,
            crypto_pairs=_listings.CRYPTO_PAIRS,
            option_underlyings=_listings.OPTION_UNDERLYINGS,
        )

    @property
    def equities(self) -> Sequence[Equity]:
        return tuple(self._equities.values())

    @property
    def indexes(self) -> Sequence[Index]:
        return tuple(self._indexes.values())

    @property
    def crypto_pairs(self) -> Sequence[CryptoPair]:
        return tuple(self._pairs.values())

    @property
    def option_underlyings(self) -> Sequence[OptionUnderlying]:
        return tuple(self._options.values())

    def equity(self, symbol: str) -> Equity:
        """The equity listed as ``symbol``; raises ``UnknownInstrument``."""
        found = self._equities.get(symbol.upper())
        if found is None:
            raise UnknownInstrument(symbol)
        return found

    def index(self, symbol: str) -> Index:
        found = self._indexes.get(symbol.upper())
        if found is None:
            raise UnknownInstrument(symbol)
        return found

    def crypto_pair(self, symbol: str) -> CryptoPair:
        """The pair ``symbol`` (``BTC-USD``; a bare ``BTC`` means its USD pair)."""
        key = symbol.upper()
        found = self._pairs.get(key) or self._pairs.get(f"{key}-USD")
        if found is None:
            raise UnknownInstrument(symbol)
        return found

    def option_underlying(self, symbol: str) -> OptionUnderlying:
        found = self._options.get(symbol.upper())
        if found is None:
            raise UnknownInstrument(symbol)
        return found

    def by_id(self, instrument_id: str) -> Equity | Index | CryptoPair:
        """The equity, index or pair with this id; raises ``UnknownInstrument``."""
        found = self._by_id.get(instrument_id.lower())
        if found is None:
            raise UnknownInstrument(instrument_id)
        return found

    def search(self, query: str, limit: int = 10) -> SearchResult:
        """Instruments whose symbol starts with ``query`` or whose name has a word that does.

        Case-insensitive; exact symbols first, then symbol prefixes, then name matches.
        ``limit`` caps each kind separately.
        """
        needle = query.strip().upper()
        if not needle or limit <= 0:
            return SearchResult((), (), ())
        return SearchResult(
            equities=_best(needle, limit, self._equities.values(), lambda e: (e.symbol, e.name)),
            indexes=_best(needle, limit, self._indexes.values(), lambda i: (i.symbol, i.name)),
            crypto_pairs=_best(
                needle,
                limit,
                self._pairs.values(),
                lambda p: (p.symbol, f"{p.name} {p.asset_code}"),
            ),
        )


_T = TypeVar("_T")


def _best(
    needle: str, limit: int, items: Iterable[_T], keys: Callable[[_T], tuple[str, str]]
) -> tuple[_T, ...]:
    ranked: list[tuple[int, str, _T]] = []
    for item in items:
        symbol, name = keys(item)
        rank = _rank(needle, symbol, name)
        if rank is not None:
            ranked.append((rank, symbol, item))
    ranked.sort(key=lambda entry: (entry[0], entry[1]))
    return tuple(item for _, _, item in ranked[:limit])
