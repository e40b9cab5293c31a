"""``ClientAccountReader`` and ``ClientQuoteSource``: the broker's side of a decision, read
through the typed client.

The reader reads five parts at once (an anyio task group), each on its own: the portfolio
(equity, cash, buying power), the positions, the open orders, the symbol's quote and its
tradability. A part that fails leaves only its fields ``None`` and adds one short note
naming the part and the error's code (never its text, never a token); ``read`` itself never
raises for a failed read. The rules, all failing closed:

- a position is valued at its ``market_value``, else ``quantity × last_trade_price``; when
  any position has neither, or a symbol is listed twice, ``positions`` is ``None``;
- ``open_orders`` are every order not in a terminal state (an unknown state counts as
  open), walked to the end of the listing within ``max_pages`` pages, or ``None``; a venue
  that can list what is open directly (``open_orders``: the paper book's engine keeps its
  open orders apart from its history) is asked that instead, so the read costs what is
  open, never the account's history;
- a venue that can read the portfolio, the positions' first page and the open orders
  together (``book``: the paper book's engine, in one read of the book) is asked that once
  for the three parts; each part still fails on its own (its answer, or the error reading it
  raised), and positions on more than one page are walked as without it;
- the quote is the venue's quote for exactly that symbol (``venue_quote``), or ``None``;
- a symbol the tradability tool does not list is not tradable (``False``).

``ClientQuoteSource`` answers the quote and tradability of one symbol with the same two
functions (``fetch_quote``, ``fetch_tradable``), ``None`` for any failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Generic, TypeVar

import anyio

from ordergate.client import MAX_PAGES, Robinhood
from ordergate.client.accounts import Portfolio
from ordergate.client.equity import EquityOrder, EquityPosition, EquityPositionsPage
from ordergate.core import Clock
from ordergate.policy import Position, Quote
from ordergate.venues._protocols import AccountView, BrokerOrder
from ordergate.venues.robinhood._mapping import broker_order, describe, venue_quote

OpenOrders = Callable[[str], Awaitable[Iterable[EquityOrder]]]
"""An account's open orders, listed by the venue directly (newest first, as the listing)."""


@dataclass(frozen=True)
class BookParts:
    """An account's portfolio, its positions' first page and its open orders (newest first),
    read together; each is its answer, or the error reading it raised."""

    portfolio: Portfolio | Exception
    positions: EquityPositionsPage | Exception
    open_orders: list[EquityOrder] | Exception


BookReads = Callable[[str], Awaitable[BookParts]]
"""An account's ``BookParts``, read by the venue in one go."""

__all__ = [
    "BookParts",
    "BookReads",
    "ClientAccountReader",
    "ClientQuoteSource",
    "OpenOrders",
    "fetch_quote",
    "fetch_tradable",
    "held_positions",
    "open_broker_orders",
]

T = TypeVar("T")


async def fetch_quote(rh: Robinhood, symbol: str) -> Quote | None:
    """The venue's quote for ``symbol``; ``None`` when it answered none for that symbol."""
    answer = await rh.market.quotes([symbol])
    for result in answer.results:
        if result is not None and result.quote is not None:
            quote = venue_quote(result.quote, symbol)
            if quote is not None:
                return quote
    return None


async def fetch_tradable(rh: Robinhood, account: str, symbol: str) -> bool:
    """Whether ``account`` may trade ``symbol``: every matching result says ``tradeable``;
    a symbol the venue does not list is not tradable."""
    answer = await rh.equity.tradability(account, [symbol])
    matches = [r.tradeable for r in answer.results if r.symbol.upper() == symbol.upper()]
    return bool(matches) and all(matches)


class Unreadable(Exception):
    """A part answered, but not in a form the reader can use (the note says why)."""


@dataclass
class _Part(Generic[T]):
    """One independent read: its value, or ``None`` and a note."""

    name: str
    read: Callable[[], Awaitable[T]]
    value: T | None = None
    note: str | None = None

    async def run(self) -> None:
        try:
            self.value = await self.read()
        except Unreadable as error:
            self.note = f"{self.name}: {error}"
        except Exception as error:
            self.note = f"{self.name}: unavailable ({describe(error)})"


class _Once(Generic[T]):
    """A read shared by several parts: done by the first that awaits it, its answer (or
    its error) handed to every one."""

    def __init__(self, read: Callable[[], Awaitable[T]]) -> None:
        self._read = read
        self._lock = anyio.Lock()
        self._outcome: tuple[T | Exception] | None = None

    async def __call__(self) -> T:
        async with self._lock:
            if self._outcome is None:
                try:
                    self._outcome = (await self._read(),)
                except Exception as error:
                    self._outcome = (error,)
        return _answer(self._outcome[0])


def _answer(outcome: T | Exception) -> T:
    """A part's answer read together with others: raised when it is the error."""
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


class ClientAccountReader:
    """Reads an account and one symbol's market through ``rh``; see the module rules.

    ``clock`` is the reader's time source (kept for the caller's wiring: no read uses it);
    ``max_pages`` bounds the position and order listings; ``open_orders`` lists the open
    orders directly when the venue can (else the order listing is walked); ``book`` reads
    the portfolio, positions and open orders together when the venue can.
    """

    def __init__(
        self,
        rh: Robinhood,
        *,
        clock: Clock,
        max_pages: int = MAX_PAGES,
        open_orders: OpenOrders | None = None,
        book: BookReads | None = None,
    ) -> None:
        if max_pages < 1:
            raise ValueError("max_pages must be at least 1")
        self._rh = rh
        self.clock = clock
        self._max_pages = max_pages
        self._listed_open = open_orders
        self._book = book

    async def read(
        self,
        account: str,
        symbol: str | None,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> AccountView:
        """Every part read at once; a failed part is ``None`` with a note. A ``quote`` given
        is the view's quote (not read again); one given ``quote_from`` is awaited while the
        other parts are read."""
        rh = self._rh
        if self._book is None:
            portfolio = _Part[Portfolio]("portfolio", lambda: rh.accounts.portfolio(account))
            positions = _Part[Mapping[str, Position]]("positions", lambda: self._positions(account))
            orders = _Part[tuple[BrokerOrder, ...]](
                "open_orders", lambda: self._open_orders(account)
            )
        else:
            reads = self._book
            book = _Once(lambda: reads(account))
            portfolio = _Part("portfolio", lambda: self._book_portfolio(book))
            positions = _Part("positions", lambda: self._book_positions(book, account))
            orders = _Part("open_orders", lambda: self._book_open_orders(book))
        parts: list[_Part[Any]] = [portfolio, positions, orders]
        read_quote: _Part[Quote] | None = None
        tradable: _Part[bool] | None = None
        if symbol is not None:
            wanted = symbol
            tradable = _Part("tradable", lambda: fetch_tradable(rh, account, wanted))
            parts.append(tradable)
            if quote is None and quote_from is not None:
                later = quote_from
                read_quote = _Part("quote", lambda: _given(later, wanted))
                parts.append(read_quote)
            elif quote is None:
                read_quote = _Part("quote", lambda: _quote(rh, wanted))
                parts.append(read_quote)
        async with anyio.create_task_group() as group:
            for part in parts:
                group.start_soon(part.run)
        totals = portfolio.value
        power = None if totals is None else totals.buying_power
        return AccountView(
            equity=None if totals is None else totals.total_value,
            cash=None if totals is None else totals.cash,
            buying_power=None if power is None else power.buying_power,
            positions=positions.value,
            open_orders=orders.value,
            quote=quote if read_quote is None else read_quote.value,
            tradable=None if tradable is None else tradable.value,
            notes=tuple(part.note for part in parts if part.note is not None),
        )

    async def _positions(self, account: str) -> Mapping[str, Position]:
        return held_positions(
            [
                position
                async for position in self._rh.equity.iter_positions(
                    account, max_pages=self._max_pages
                )
            ]
        )

    async def _book_portfolio(self, book: _Once[BookParts]) -> Portfolio:
        return _answer((await book()).portfolio)

    async def _book_positions(self, book: _Once[BookParts], account: str) -> Mapping[str, Position]:
        first = _answer((await book()).positions)
        if first.next:
            return await self._positions(account)  # more than one page: walked as without
        return held_positions(first.positions)

    async def _book_open_orders(self, book: _Once[BookParts]) -> tuple[BrokerOrder, ...]:
        return open_broker_orders(_answer((await book()).open_orders))

    async def _open_orders(self, account: str) -> tuple[BrokerOrder, ...]:
        if self._listed_open is not None:
            return open_broker_orders(await self._listed_open(account))
        return open_broker_orders(
            [
                order
                async for order in self._rh.equity.iter_orders(account, max_pages=self._max_pages)
            ]
        )


def held_positions(positions: Iterable[EquityPosition]) -> Mapping[str, Position]:
    """The venue's position rows as the reader holds them (the module's rules): raises
    ``Unreadable`` for a symbol listed twice or a position it cannot value."""
    held: dict[str, Position] = {}
    unvalued: list[str] = []
    for position in positions:
        if position.symbol in held:
            raise Unreadable(f"{position.symbol} is listed twice")
        value = _market_value(position.quantity, position.market_value, position.last_trade_price)
        if value is None:
            unvalued.append(position.symbol)
        else:
            held[position.symbol] = Position(quantity=position.quantity, market_value=value)
    if unvalued:
        raise Unreadable(f"no market value or last price for {', '.join(unvalued)}")
    return held


def open_broker_orders(orders: Iterable[EquityOrder]) -> tuple[BrokerOrder, ...]:
    """The venue's orders that are not terminal (an unknown state counts as open)."""
    return tuple(broker_order(order) for order in orders if not order.is_terminal)


async def _given(later: Awaitable[Quote | None], symbol: str) -> Quote:
    quote = await later
    if quote is None:
        raise Unreadable(f"no quote for {symbol}")
    return quote


async def _quote(rh: Robinhood, symbol: str) -> Quote:
    quote = await fetch_quote(rh, symbol)
    if quote is None:
        raise Unreadable(f"no quote for {symbol}")
    return quote


def _market_value(
    quantity: Decimal, market_value: Decimal | None, last_price: Decimal | None
) -> Decimal | None:
    if market_value is not None:
        return market_value
    if last_price is not None:
        return quantity * last_price
    return None


class ClientQuoteSource:
    """Live quotes and tradability through ``rh``; ``None`` when the venue cannot say."""

    def __init__(self, rh: Robinhood) -> None:
        self._rh = rh

    async def quote(self, symbol: str) -> Quote | None:
        try:
            return await fetch_quote(self._rh, symbol)
        except Exception:
            return None

    async def tradable(self, account: str, symbol: str) -> bool | None:
        try:
            return await fetch_tradable(self._rh, account, symbol)
        except Exception:
            return None
