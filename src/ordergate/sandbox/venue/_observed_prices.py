"""``ObservedPrices``, ``ObservedCryptoPrices`` and ``ObservedOptionPrices``: the equity,
crypto and options desks' markets made of quotes handed to them.

Paper trading runs the venue's own engine on prices read from the upstream broker. Whoever
reads them hands each quote here (``observe``: bid, ask, last, sizes and the instant they
were true), lists the symbols it trades (``list``) and announces corporate actions
(``split``). The desk then asks, as of any instant ``at``, for the latest quote observed at
or before ``at``:

- nothing observed yet at ``at``, or the latest observation older than ``max_age`` → no
  usable price (``None``): a market order is refused, a resting order waits; the feed never
  extrapolates, interpolates or carries a price forward past ``max_age``;
- a quote whose bid, ask or last is not positive is kept (the desk treats a zero side as
  "nothing to trade against") but never made up.

Memory is bounded by the window the desk can still ask about, not by how long the feed has
run: observing a quote newer than every other drops the symbol's observations older than
``max_age`` before it, keeping the one that answers the start of that window; one observed at
a past instant (the close a later quote reports) drops none.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Generic, TypeVar

from ordergate.calendar import NyseCalendar
from ordergate.sandbox.market import (
    CryptoPair,
    CryptoQuote,
    OptionChain,
    OptionInstrument,
    OptionQuote,
)
from ordergate.sandbox.venue._equity_market import (
    EquityListing,
    EquityMarket,
    EquityQuote,
    Split,
)

__all__ = ["DEFAULT_MAX_AGE", "ObservedCryptoPrices", "ObservedOptionPrices", "ObservedPrices"]

DEFAULT_MAX_AGE = timedelta(minutes=1)

L = TypeVar("L")
Q = TypeVar("Q")


@dataclass(slots=True)
class _Observations(Generic[Q]):
    """One symbol's observed quotes, oldest first (``instants`` holds each one's instant)."""

    instants: list[datetime]
    quotes: list[Q]

    def add(self, at: datetime, quote: Q, window: timedelta | None) -> None:
        index = bisect.bisect_right(self.instants, at)
        if index and self.instants[index - 1] == at:
            # The same instant observed again: the later observation replaces it.
            self.quotes[index - 1] = quote
        else:
            self.instants.insert(index, at)
            self.quotes.insert(index, quote)
        # Only the newest observation moves the window. One observed at a past instant (the
        # regular close a later quote reports) must not drop the one before it: that one
        # still answers the instants up to it, which a desk not yet synced past them asks.
        if window is not None and index == len(self.instants) - 1:
            # Keep the newest observation at or before the window's start: it still answers.
            cut = bisect.bisect_right(self.instants, self.instants[-1] - window) - 1
            if cut > 0:
                del self.instants[:cut]
                del self.quotes[:cut]

    def at(self, instant: datetime) -> tuple[datetime, Q] | None:
        index = bisect.bisect_right(self.instants, instant) - 1
        return (self.instants[index], self.quotes[index]) if index >= 0 else None


class _Observed(Generic[L, Q]):
    """Listings and the quotes observed for them, each usable for ``max_age`` (what every
    observed feed shares; see the module docstring)."""

    def __init__(self, max_age: timedelta | None) -> None:
        if max_age is not None and max_age <= timedelta(0):
            raise ValueError("max_age must be positive")
        self._max_age = max_age
        self._listings: dict[str, L] = {}
        self._observed: dict[str, _Observations[Q]] = {}

    @property
    def max_age(self) -> timedelta | None:
        return self._max_age

    def _list(self, symbol: str, listing: L) -> None:
        self._listings[symbol] = listing

    def _observe(self, symbol: str, at: datetime, quote: Q) -> None:
        if symbol not in self._listings:
            raise KeyError(f"{symbol} is not listed: list it before observing it")
        observed = self._observed.setdefault(symbol, _Observations([], []))
        observed.add(at, quote, self._max_age)

    def _priced_from(self, symbol: str, at: datetime) -> datetime | None:
        """``at`` when ``_latest`` has a quote then, else the first instant observed after it
        (``None``: none)."""
        if self._latest(symbol, at) is not None:
            return at
        observed = self._observed.get(symbol)
        if observed is None:
            return None
        index = bisect.bisect_right(observed.instants, at)
        return observed.instants[index] if index < len(observed.instants) else None

    def _latest(self, symbol: str, at: datetime) -> Q | None:
        observed = self._observed.get(symbol)
        found = None if observed is None else observed.at(at)
        if found is None:
            return None
        instant, quote = found
        if self._max_age is not None and at - instant > self._max_age:
            return None
        return quote


class ObservedPrices(_Observed[EquityListing, EquityQuote]):
    """An ``EquityMarket`` answering from observed quotes (see the module docstring).

    ``max_age=None`` keeps every observation and answers from the latest one however old
    (for a feed replaying a recorded path); a ``timedelta`` is how long an observation
    stays usable.
    """

    def __init__(
        self,
        *,
        calendar: NyseCalendar | None = None,
        max_age: timedelta | None = DEFAULT_MAX_AGE,
    ) -> None:
        super().__init__(max_age)
        self._calendar = calendar if calendar is not None else NyseCalendar()
        self._splits: list[Split] = []

    @property
    def calendar(self) -> NyseCalendar:
        return self._calendar

    # -- what the reader hands in ----------------------------------------------------------

    def list(self, listing: EquityListing) -> None:
        """List (or re-list with new flags) ``listing.symbol``."""
        self._list(listing.symbol, listing)

    def observe(self, quote: EquityQuote) -> None:
        """Record ``quote`` as true from ``quote.at``. The symbol must be listed first."""
        self._observe(quote.symbol, quote.at, quote)

    def split(self, symbol: str, ratio: Decimal, at: datetime) -> None:
        """Announce a ``ratio``-for-1 split of a listed ``symbol`` effective at ``at``.

        The quotes observed after ``at`` are the upstream's, already divided; the desk
        re-bases every holder's lots when it reaches ``at``."""
        if symbol not in self._listings:
            raise KeyError(f"{symbol} is not listed")
        if not ratio.is_finite() or ratio <= 0 or ratio == 1:
            raise ValueError("a split ratio must be positive and not 1")
        self._splits.append(Split(symbol=symbol, ratio=ratio, at=at))

    # -- what the desk reads ----------------------------------------------------------------

    def listing(self, symbol: str) -> EquityListing | None:
        return self._listings.get(symbol)

    def splits(self) -> Sequence[Split]:
        return self._splits

    def quote(self, symbol: str, at: datetime) -> EquityQuote | None:
        """The latest quote observed at or before ``at`` (stamped with its own instant);
        ``None`` when there is none or it is older than ``max_age``."""
        return self._latest(symbol, at)

    def priced_from(self, symbol: str, at: datetime) -> datetime | None:
        """``at`` when ``quote`` has a price then, else the first instant observed after it:
        where a look at ``at`` that found no price can look instead (``None``: nothing
        observed after ``at`` yet)."""
        return self._priced_from(symbol, at)


class ObservedCryptoPrices(_Observed[CryptoPair, CryptoQuote]):
    """A ``CryptoMarket`` answering from observed quotes, as ``ObservedPrices`` does for
    equities (see the module docstring): a pair is listed (``list``: its increments and
    sizes, as the upstream lists it) before its quotes are observed (``observe``: true from
    the quote's ``updated_at``). Crypto trades around the clock: no calendar, no splits.
    """

    def __init__(self, *, max_age: timedelta | None = DEFAULT_MAX_AGE) -> None:
        super().__init__(max_age)

    def list(self, pair: CryptoPair) -> None:
        """List (or re-list with new increments and sizes) ``pair.symbol``."""
        self._list(pair.symbol, pair)

    def observe(self, quote: CryptoQuote) -> None:
        """Record ``quote`` as true from ``quote.updated_at``. The pair must be listed first."""
        self._observe(quote.symbol, quote.updated_at, quote)

    def pair(self, symbol: str) -> CryptoPair | None:
        """The pair listed as ``symbol`` (a bare ``BTC`` means its USD pair, as the venue
        reads it)."""
        return self._listings.get(symbol) or self._listings.get(f"{symbol}-USD")

    def pairs(self) -> tuple[CryptoPair, ...]:
        """Every pair listed so far."""
        return tuple(self._listings.values())

    def quote(self, symbol: str, at: datetime) -> CryptoQuote | None:
        """The latest quote of ``symbol`` observed at or before ``at``; ``None`` when there
        is none or it is older than ``max_age``."""
        return self._latest(symbol, at)


class ObservedOptionPrices(_Observed[OptionInstrument, OptionQuote]):
    """An ``OptionMarket`` answering from observed quotes, as ``ObservedPrices`` does for
    equities (see the module docstring): a contract is listed (``list``: as the upstream's
    ``get_option_instruments`` lists it) before its quotes are observed (``observe``: true
    from the quote's ``updated_at``); a chain is known once listed (``list_chain``). The
    underlying's price is read from the equity feed ``equities`` (its last trade), under
    that feed's own ``max_age``.
    """

    def __init__(
        self, equities: EquityMarket, *, max_age: timedelta | None = DEFAULT_MAX_AGE
    ) -> None:
        super().__init__(max_age)
        self._equities = equities
        self._chains: dict[str, OptionChain] = {}

    def list(self, instrument: OptionInstrument) -> None:
        """List (or re-list with a new state or ticks) ``instrument.id``."""
        self._list(instrument.id, instrument)

    def list_chain(self, chain: OptionChain) -> None:
        """List (or re-list) the option chain of ``chain.symbol``."""
        self._chains[chain.symbol] = chain

    def observe(self, quote: OptionQuote) -> None:
        """Record ``quote`` as true from ``quote.updated_at``. The contract must be listed
        first."""
        self._observe(quote.instrument_id, quote.updated_at, quote)

    def instrument(self, option_id: str) -> OptionInstrument | None:
        return self._listings.get(option_id)

    def chain(self, symbol: str) -> OptionChain | None:
        return self._chains.get(symbol)

    def quote(self, option_id: str, at: datetime) -> OptionQuote | None:
        """The latest quote of ``option_id`` observed at or before ``at``; ``None`` when
        there is none or it is older than ``max_age``."""
        return self._latest(option_id, at)

    def underlying_price(self, instrument: OptionInstrument, at: datetime) -> Decimal | None:
        quote = self._equities.quote(instrument.chain_symbol, at)
        return None if quote is None else quote.last
