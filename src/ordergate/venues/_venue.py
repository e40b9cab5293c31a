"""``Venue``: the one port the order path speaks to every venue through, one lane per asset
class.

::

    venue.paper                 True when nothing reaches a real market
    venue.equity                the equity lane (``EquityLane``)
    venue.options               the option lane (``OptionLane``, ``_options``), or ``None``
                                where the venue has no option desk (paper, for now)
    venue.crypto                the crypto lanes (``CryptoLanes``: the MCP's, the REST API's
                                or both, each a ``CryptoLane``) and the one choice of a lane
                                per filing; ``None`` when the venue trades no crypto
        .orders                 review, place, lookup (by ref_id), poll (by id), cancel
        .account                equity, cash, buying power, positions, open orders, and one
                                symbol's quote and tradability (``AccountView``)
        .quotes                 a symbol's quote and tradability
        .sight / .view          a decision's view in two halves: what is read before the
                                decision's worker thread, then (blocking) the rest inside it
        .look / .place_and_record
                                placing with the caller's record in the venue's own
                                transaction, after what the decision looked at
        .answers_for(identity)  the account as that identity reads it through the gateway

The values are plain (``ordergate.policy``'s ``Proposal``, ``Quote``, ``Terms``,
``Position``; ``Decimal`` amounts; ``_protocols``' tickets and orders). What one venue does
differently is a capability every lane answers, never a question the caller asks about which
venue it holds: a venue with nothing to read inside the decision's transaction answers the
whole view in ``sight`` and hands it back from ``view``; one that places without the
caller's record answers ``None`` for the record.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

from ordergate.ledger import Ledger
from ordergate.policy import Quote
from ordergate.venues._crypto_lanes import CryptoLanes
from ordergate.venues._options import OptionLane
from ordergate.venues._protocols import (
    AccountReader,
    AccountView,
    BrokerOrder,
    OrderExecutor,
    Placement,
    QuoteSource,
    Ticket,
)

__all__ = ["EquityLane", "QuotesNeeded", "Sighting", "Venue"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Sighting:
    """What a decision read of the venue before its worker thread: the whole ``view`` when
    the venue answered it all at once, else the market's half (``quotes`` by symbol and the
    symbol's tradability) that the lane's ``view`` completes."""

    account: str
    symbol: str
    quotes: Mapping[str, Quote | None] = field(default_factory=dict)
    tradable: bool | None = None
    whole: AccountView | None = None


class QuotesNeeded(Exception):
    """``view`` found holdings ``sight`` read no quote for: read them (``more_quotes``), then
    ask again."""

    def __init__(self, symbols: frozenset[str]) -> None:
        super().__init__(", ".join(sorted(symbols)))
        self.symbols = symbols


@runtime_checkable
class EquityLane(Protocol):
    """A venue's equities: orders, the account's side of a decision, quotes."""

    @property
    def orders(self) -> OrderExecutor: ...

    @property
    def account(self) -> AccountReader: ...

    @property
    def quotes(self) -> QuoteSource: ...

    async def sight(
        self,
        account: str,
        symbol: str,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> Sighting:
        """What a decision reads before its worker thread (never raises for a failed read).
        ``quote`` is the decision's quote already read; ``quote_from`` gives it later."""
        ...

    async def more_quotes(self, sighting: Sighting, symbols: Iterable[str]) -> Sighting:
        """``sighting`` with the quotes of ``symbols`` read too (``QuotesNeeded`` named them)."""
        ...

    def view(self, sighting: Sighting, *, final: bool) -> AccountView:
        """Blocking, in the decision's worker thread (inside its read transaction when one is
        open): the account's view on ``sighting``. ``QuotesNeeded`` when a holding has no
        quote in it, unless ``final`` (then what needs that quote is unknown)."""
        ...

    def look(self, ticket: Ticket) -> object | None:
        """Blocking, inside the decision's transaction: what placing ``ticket`` looks at
        first, handed back to ``place_and_record`` (``None``: nothing to look at)."""
        ...

    async def place_and_record(
        self,
        ticket: Ticket,
        record: Callable[[BrokerOrder], T] | None,
        *,
        looked: object | None = None,
        reviewed: Quote | None = None,
    ) -> tuple[Placement, T | None]:
        """``orders.place(ticket)``; a venue on the caller's database runs ``record(order)``
        (blocking) in the placement's own transaction and answers what it returned, any other
        answers ``None`` (the caller records the placement itself). ``looked``: ``look``'s
        answer, read just before; ``reviewed``: the quote the order was just reviewed on.
        Raises as ``place`` does."""
        ...

    def answers_for(self, ledger: Ledger, identity: str) -> AccountReader:
        """The account as ``identity`` reads it through the gateway's answers (what an MCP
        agent sees), for the agent's snapshots."""
        ...


@runtime_checkable
class Venue(Protocol):
    """Where orders go: a broker, or a simulator that sends nothing to a market."""

    @property
    def paper(self) -> bool:
        """True when nothing reaches a real market."""
        ...

    @property
    def equity(self) -> EquityLane: ...

    @property
    def options(self) -> OptionLane | None:
        """The venue's options; ``None`` when it takes no option orders (each is refused
        before anything is sent)."""
        ...

    @property
    def crypto(self) -> CryptoLanes | None:
        """The crypto lanes, or ``None`` when the venue trades no crypto."""
        ...
