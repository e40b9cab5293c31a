"""``ObservedPrices``: the equity desk's market made of quotes handed to it.

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
run: observing a quote drops the symbol's observations older than ``max_age`` before the
newest, keeping the one that answers the start of that window.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from ordergate.calendar import NyseCalendar
from ordergate.sandbox.venue._equity_market import EquityListing, EquityQuote, Split

__all__ = ["DEFAULT_MAX_AGE", "ObservedPrices"]

DEFAULT_MAX_AGE = timedelta(minutes=1)


@dataclass(slots=True)
class _Observations:
    """One symbol's observed quotes, oldest first (``instants`` mirrors ``quotes``' ``at``)."""

    instants: list[datetime]
    quotes: list[EquityQuote]

    def add(self, quote: EquityQuote, window: timedelta | None) -> None:
        index = bisect.bisect_right(self.instants, quote.at)
        if index and self.instants[index - 1] == quote.at:
            # The same instant observed again: the later observation replaces it.
            self.quotes[index - 1] = quote
        else:
            self.instants.insert(index, quote.at)
            self.quotes.insert(index, quote)
        if window is not None:
            # Keep the newest observation at or before the window's start: it still answers.
            cut = bisect.bisect_right(self.instants, self.instants[-1] - window) - 1
            if cut > 0:
                del self.instants[:cut]
                del self.quotes[:cut]

    def at(self, instant: datetime) -> EquityQuote | None:
        index = bisect.bisect_right(self.instants, instant) - 1
        return self.quotes[index] if index >= 0 else None


class ObservedPrices:
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
        if max_age is not None and max_age <= timedelta(0):
            raise ValueError("max_age must be positive")
        self._calendar = calendar if calendar is not None else NyseCalendar()
        self._max_age = max_age
        self._listings: dict[str, EquityListing] = {}
        self._observed: dict[str, _Observations] = {}
        self._splits: list[Split] = []

    @property
    def calendar(self) -> NyseCalendar:
        return self._calendar

    @property
    def max_age(self) -> timedelta | None:
        return self._max_age

    # -- what the reader hands in ----------------------------------------------------------

    def list(self, listing: EquityListing) -> None:
        """List (or re-list with new flags) ``listing.symbol``."""
        self._listings[listing.symbol] = listing

    def observe(self, quote: EquityQuote) -> None:
        """Record ``quote`` as true from ``quote.at``. The symbol must be listed first."""
        if quote.symbol not in self._listings:
            raise KeyError(f"{quote.symbol} is not listed: list it before observing it")
        observed = self._observed.setdefault(quote.symbol, _Observations([], []))
        observed.add(quote, self._max_age)

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
        observed = self._observed.get(symbol)
        found = None if observed is None else observed.at(at)
        if found is None:
            return None
        if self._max_age is not None and at - found.at > self._max_age:
            return None
        return found
