"""``PaperVenue``: a simulated account on the ledger's database, as a ``Venue``.

Its equity lane is the paper executor (``_orders``) and the paper account reader
(``_account``) over one ``PaperBook``, with quotes and tradability from a ``QuoteSource``
(the upstream's market). The book lives in the ledger's own database, so the lane answers
the port's capabilities by reading and writing it beside the record: a decision's view is
the market's half before the worker thread (``sight``) and the book's half inside it
(``view``), and a placement commits the book's order and fill with the caller's record of
them (``place_and_record``, after what ``look`` read in the decision's transaction). An
agent reads the account through the gateway's paper answers (``PaperAnswerReader``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from typing import TypeVar

from ordergate.core import Clock
from ordergate.ledger import Ledger
from ordergate.policy import MarketSession, Quote
from ordergate.venues import AccountView, BrokerOrder, Placement, QuoteSource, Sighting, Ticket
from ordergate.venues.paper._account import PaperAccountReader
from ordergate.venues.paper._answers import PaperAnswerReader
from ordergate.venues.paper._book import PaperBook, PaperOrder
from ordergate.venues.paper._orders import Looked, PaperExecutor

__all__ = ["PaperEquity", "PaperVenue"]

T = TypeVar("T")


class PaperEquity:
    """Paper equities: an ``EquityLane`` over ``book`` and ``quotes``."""

    def __init__(
        self,
        book: PaperBook,
        quotes: QuoteSource,
        *,
        session: Callable[[datetime], MarketSession],
        clock: Clock,
        slippage_bps: int = 0,
    ) -> None:
        self._book = book
        self._quotes = quotes
        self._orders = PaperExecutor(
            book, quotes, session=session, clock=clock, slippage_bps=slippage_bps
        )
        self._account = PaperAccountReader(book, quotes)

    @property
    def book(self) -> PaperBook:
        return self._book

    @property
    def orders(self) -> PaperExecutor:
        return self._orders

    @property
    def account(self) -> PaperAccountReader:
        return self._account

    @property
    def quotes(self) -> QuoteSource:
        return self._quotes

    async def sight(
        self,
        account: str,
        symbol: str,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> Sighting:
        """The market's half: the symbol's quote and tradability, and the quotes of what the
        account held at its last read."""
        return await self._account.market(account, symbol, quote=quote, quote_from=quote_from)

    async def more_quotes(self, sighting: Sighting, symbols: Iterable[str]) -> Sighting:
        return await self._account.more_quotes(sighting, symbols)

    def view(self, sighting: Sighting, *, final: bool) -> AccountView:
        """The book's half, read in the caller's worker thread and transaction."""
        return self._account.book_view(sighting, final=final)

    def look(self, ticket: Ticket) -> Looked:
        """An order under the ticket's ``ref_id`` and the account's open orders."""
        return self._orders.look(ticket)

    async def place_and_record(
        self,
        ticket: Ticket,
        record: Callable[[BrokerOrder], T] | None,
        *,
        looked: object | None = None,
        reviewed: Quote | None = None,
    ) -> tuple[Placement, T | None]:
        """The book's order and fill and ``record(order)`` in one transaction."""
        return await self._orders.place_and_record(
            ticket, record, looked=_looked(looked), reviewed=reviewed
        )

    def answers_for(self, ledger: Ledger, identity: str) -> PaperAnswerReader:
        """The paper account as the gateway answers ``identity``'s reads of it."""
        return PaperAnswerReader(self._account, ledger, identity)


def _looked(looked: object | None) -> Looked | None:
    """``look``'s answer handed back; anything else is not one."""
    if looked is None:
        return None
    match looked:
        case (PaperOrder() | None as existing, tuple() as open_orders) if all(
            isinstance(order, PaperOrder) for order in open_orders
        ):
            return existing, open_orders
    raise TypeError("looked: not what this lane's look answered")


class PaperVenue:
    """Paper trading: nothing reaches a market; fills at the upstream's quotes."""

    def __init__(
        self,
        book: PaperBook,
        quotes: QuoteSource,
        *,
        session: Callable[[datetime], MarketSession],
        clock: Clock,
        slippage_bps: int = 0,
    ) -> None:
        self._equity = PaperEquity(
            book, quotes, session=session, clock=clock, slippage_bps=slippage_bps
        )

    @property
    def paper(self) -> bool:
        return True

    @property
    def equity(self) -> PaperEquity:
        return self._equity

    @property
    def options(self) -> None:
        """Paper has no option desk yet: option orders are refused before anything is
        filed (``options_not_on_paper``)."""
        return None

    @property
    def crypto(self) -> None:
        """The paper book has no crypto desk: paper crypto orders are refused."""
        return None
