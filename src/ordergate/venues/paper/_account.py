"""``PaperAccountReader``: the paper account as the guard reads a broker account.

Cash, positions and open orders come from the ``PaperBook``; prices, the symbol's quote and
its tradability from the ``QuoteSource``. Quotes for every symbol needed are read
concurrently.

Rules (fail closed: unknown is ``None``, never a guess):

- ``cash`` is the book's cash; ``buying_power`` is cash minus what open buys hold (as
  ``PaperExecutor`` counts them), unknown when an open buy cannot be priced.
- A position is valued at the bid (a long) or the ask (a short): when any held symbol has no
  usable price, ``positions`` and ``equity`` are both unknown.
- ``equity`` is cash plus the positions' market values.
- ``read`` never raises for a failed read: a book that cannot be read leaves the account's
  fields unknown, and the reason is in ``notes``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from decimal import Decimal

import anyio
from sqlalchemy.exc import SQLAlchemyError

from ordergate.core import ZERO, Side
from ordergate.policy import Position, Quote
from ordergate.store import blocking
from ordergate.venues import AccountView, QuotesNeeded, QuoteSource, Sighting
from ordergate.venues.paper._book import PaperAccount, PaperBook
from ordergate.venues.paper._orders import buy_hold, fetch_quotes, usable

__all__ = ["PaperAccountReader"]


class PaperAccountReader:
    """An ``AccountReader`` over the paper book and a quote source."""

    def __init__(self, book: PaperBook, quotes: QuoteSource, *, slippage_bps: int = 0) -> None:
        self._book = book
        self._quotes = quotes
        self._slippage_bps = slippage_bps
        # Per account, the symbols its book held at its last read: their quotes are read
        # with the market's half, so the book's half rarely has to ask for more.
        self._held: dict[str, frozenset[str]] = {}

    @property
    def book(self) -> PaperBook:
        """The paper book this reader reads (the gateway answers paper account reads from it)."""
        return self._book

    @property
    def quotes(self) -> QuoteSource:
        return self._quotes

    async def read(
        self,
        account: str,
        symbol: str | None,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> AccountView:
        # The book (in a worker thread: never a database read on the event loop) and the
        # symbol's market (its quote unless given, its tradability) are independent reads:
        # made at once, and the quotes of whatever else the book holds as soon as it is read,
        # while the others are still on their way. None of the reads raises.
        quotes: dict[str, Quote | None] = {}
        tradable: bool | None = None

        async def read_tradable(wanted: str) -> None:
            nonlocal tradable
            tradable = await self._tradable(account, wanted)

        async def read_quotes(symbols: set[str]) -> None:
            quotes.update(await fetch_quotes(self._quotes, symbols))

        async def given_quote(wanted: str, later: Awaitable[Quote | None]) -> None:
            quotes[wanted] = await later

        async with anyio.create_task_group() as group:
            if symbol is not None:
                group.start_soon(read_tradable, symbol)
                if quote_from is not None and quote is None:
                    group.start_soon(given_quote, symbol, quote_from)
                elif quote is None:
                    group.start_soon(read_quotes, {symbol})
            paper, failure = await self._book_account(account)
            if paper is not None:
                held = set(paper.positions) | {order.symbol for order in paper.open_orders}
                others = held - {symbol}
                if others:
                    group.start_soon(read_quotes, others)
        if quote is not None and symbol is not None:
            quotes[symbol] = quote
        return self._view(paper, failure, symbol, quotes, tradable)

    # -- the view in two halves: the market's (async), then the book's (blocking) --------

    async def market(
        self,
        account: str,
        symbol: str,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> Sighting:
        """The market's half of ``symbol``'s view: its quote (given, given later, or read)
        and tradability, and the quotes of what the account held when its book was last read
        (the book's half asks for any others). None of the reads raises."""
        quotes: dict[str, Quote | None] = {}
        tradable: bool | None = None

        async def read_tradable() -> None:
            nonlocal tradable
            tradable = await self._tradable(account, symbol)

        async def read_quotes(symbols: set[str]) -> None:
            quotes.update(await fetch_quotes(self._quotes, symbols))

        async def given_quote(later: Awaitable[Quote | None]) -> None:
            quotes[symbol] = await later

        hinted = set(self._held.get(account, ())) - {symbol}
        async with anyio.create_task_group() as group:
            group.start_soon(read_tradable)
            if hinted:
                group.start_soon(read_quotes, hinted)
            if quote is not None:
                quotes[symbol] = quote
            elif quote_from is not None:
                await given_quote(quote_from)
            else:
                await read_quotes({symbol})
        return Sighting(account, symbol, quotes, tradable)

    async def more_quotes(self, market: Sighting, symbols: Iterable[str]) -> Sighting:
        """``market`` with the quotes of ``symbols`` read too (``QuotesNeeded`` named them)."""
        quotes = dict(market.quotes)
        quotes.update(await fetch_quotes(self._quotes, set(symbols) - set(quotes)))
        return Sighting(market.account, market.symbol, quotes, market.tradable)

    def book_view(self, market: Sighting, *, final: bool = False) -> AccountView:
        """The book's half, blocking (in the caller's worker thread, inside its read
        transaction when one is open): the account's view on ``market``. ``QuotesNeeded``
        when the book holds a symbol ``market`` has no quote read for (unless ``final``:
        then that quote counts as missing, and what depends on it is unknown)."""
        try:
            paper: PaperAccount | None = self._book.account(market.account)
            failure = ""
        except SQLAlchemyError as error:
            paper, failure = None, f"paper book unreadable: {type(error).__name__}"
        quotes = dict(market.quotes)
        if paper is not None:
            held = set(paper.positions) | {order.symbol for order in paper.open_orders}
            self._held[market.account] = frozenset(held)
            missing = held - set(quotes)
            if missing and not final:
                raise QuotesNeeded(frozenset(missing))
        return self._view(paper, failure, market.symbol, quotes, market.tradable)

    def _view(
        self,
        paper: PaperAccount | None,
        failure: str,
        symbol: str | None,
        quotes: dict[str, Quote | None],
        tradable: bool | None,
    ) -> AccountView:
        quote = None if symbol is None else quotes.get(symbol)
        if paper is None:
            return AccountView(quote=quote, tradable=tradable, notes=(failure,))
        notes: list[str] = []
        positions = _positions(paper, quotes, notes)
        equity = None
        if positions is not None:
            equity = paper.cash + sum((held.market_value for held in positions.values()), ZERO)
        return AccountView(
            equity=equity,
            cash=paper.cash,
            buying_power=self._buying_power(paper, quotes, notes),
            positions=positions,
            open_orders=tuple(order.broker_order() for order in paper.open_orders),
            quote=quote,
            tradable=tradable,
            notes=tuple(notes),
        )

    async def _book_account(self, account: str) -> tuple[PaperAccount | None, str]:
        """The book's account, or ``None`` and why it could not be read."""
        try:
            return await blocking(self._book.account, account), ""
        except SQLAlchemyError as error:
            return None, f"paper book unreadable: {type(error).__name__}"

    async def _tradable(self, account: str, symbol: str) -> bool | None:
        try:
            return await self._quotes.tradable(account, symbol)
        except Exception:  # a quote source that breaks its promise still fails closed
            return None

    def _buying_power(
        self, paper: PaperAccount, quotes: dict[str, Quote | None], notes: list[str]
    ) -> Decimal | None:
        held = ZERO
        for order in paper.open_orders:
            if order.side is not Side.BUY:
                continue
            amount = buy_hold(order.proposal, quotes.get(order.symbol), self._slippage_bps)
            if amount is None:
                notes.append(f"no price for open buy {order.order_id}: buying power unknown")
                return None
            held += amount
        return paper.cash - held


def _positions(
    paper: PaperAccount, quotes: dict[str, Quote | None], notes: list[str]
) -> dict[str, Position] | None:
    positions: dict[str, Position] = {}
    for symbol, quantity in paper.positions.items():
        quote = quotes.get(symbol)
        price = None
        if quote is not None:
            price = usable(quote.bid if quantity > 0 else quote.ask)
        if price is None:
            notes.append(f"no price for held {symbol}: positions and equity unknown")
            return None
        positions[symbol] = Position(quantity=quantity, market_value=quantity * price)
    return positions
