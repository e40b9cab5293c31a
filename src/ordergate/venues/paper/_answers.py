"""The paper account's answers, and ``PaperAnswerReader``, which reads the account from them.

In paper mode the gateway answers an MCP agent's ``get_portfolio``, ``get_equity_positions``
and ``get_equity_orders`` from the paper book, in the venue's wire shapes (``_wire``).
These functions are those answers — the gateway serves them, adding only its account check
and its envelope:

- ``paper_portfolio``: cash, buying power and total value as the guard reads the paper
  account (positions at the bid);
- ``paper_positions``: each holding at its last trade price, with its net cost;
- ``paper_orders_of``: the identity's own orders on the account (the newest
  ``ORDER_WINDOW`` of its filings, looked up in the book by ``ref_id``), newest first.

A figure the book cannot give raises ``PaperUnanswered`` (its ``code`` and fixed ``message``
are what the gateway refuses with); a book that cannot be read raises what the read raised.

``PaperAnswerReader`` is an ``AccountReader`` over those answers: it parses each with the
typed client's models and maps it with the live reader's rules (``held_positions``,
``open_broker_orders``), so whoever reads it — the agent's snapshot in paper mode — sees the
paper account exactly as an MCP agent asking the gateway sees it, not the book's own figures.
Each part fails on its own (``None`` and a note), as the live reader's do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

import anyio

from ordergate.client.accounts import Portfolio
from ordergate.client.equity import EquityOrdersPage, EquityPositionsPage
from ordergate.ledger import Ledger
from ordergate.policy import Quote
from ordergate.store import blocking
from ordergate.venues import AccountView
from ordergate.venues.paper._account import PaperAccountReader
from ordergate.venues.paper._book import PaperBook, PaperOrder
from ordergate.venues.paper._wire import order_wire, portfolio_wire, position_wire
from ordergate.venues.robinhood import Unreadable, held_positions, open_broker_orders

__all__ = [
    "ORDER_WINDOW",
    "PaperAnswerReader",
    "PaperUnanswered",
    "paper_orders_of",
    "paper_portfolio",
    "paper_positions",
]

ORDER_WINDOW = 100
"""How many of the identity's newest filings an order read looks at."""


class PaperUnanswered(Exception):
    """The paper book cannot answer now; ``code`` and ``message`` say why, in fixed words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code)
        self.code = code
        self.message = message


_PRICE_UNKNOWN = "PAPER_PRICE_UNKNOWN"


async def paper_portfolio(reader: PaperAccountReader, account: str) -> dict[str, Any]:
    """``get_portfolio``'s answer for the paper ``account``."""
    view = await reader.read(account, None)
    if view.cash is None:
        raise PaperUnanswered("PAPER_BOOK_UNREADABLE", "The gateway could not read its paper book.")
    if view.equity is None or view.buying_power is None or view.positions is None:
        raise PaperUnanswered(
            _PRICE_UNKNOWN, "The paper account cannot be valued now: a price is missing."
        )
    return portfolio_wire(view)


async def _last_prices(reader: PaperAccountReader, symbols: list[str]) -> dict[str, Decimal]:
    quotes: dict[str, Quote | None] = {}

    async def read(symbol: str) -> None:
        quotes[symbol] = await reader.quotes.quote(symbol)

    async with anyio.create_task_group() as tasks:
        for symbol in symbols:
            tasks.start_soon(read, symbol)
    prices: dict[str, Decimal] = {}
    for symbol in symbols:
        quote = quotes[symbol]
        last = None if quote is None else quote.last
        if last is None or last <= 0:
            raise PaperUnanswered(
                _PRICE_UNKNOWN,
                f"The paper positions cannot be valued now: there is no price for {symbol}.",
            )
        prices[symbol] = last
    return prices


async def paper_positions(reader: PaperAccountReader, account: str) -> dict[str, Any]:
    """``get_equity_positions``' answer (one page) for the paper ``account``."""
    book = reader.book

    def read() -> tuple[dict[str, tuple[Decimal, Decimal]], tuple[PaperOrder, ...]]:
        return book.holdings(account), book.open_orders(account)

    holdings, open_orders = await blocking(read)
    prices = await _last_prices(reader, sorted(holdings))
    rows = [
        position_wire(account, symbol, held=held, last=prices[symbol], open_orders=open_orders)
        for symbol, held in sorted(holdings.items())
    ]
    return {"positions": rows}


def paper_orders_of(
    book: PaperBook, ledger: Ledger, account: str, identity: str
) -> list[PaperOrder]:
    """The identity's own paper orders on ``account``, newest first (blocking)."""
    orders = []
    for filing in ledger.filings_of(identity, limit=ORDER_WINDOW):
        if not filing.accepted or filing.account != account:
            continue
        order = book.order_by_ref(filing.id)
        if order is not None and order.account == account:
            orders.append(order)
    return orders


async def _part(
    name: str, read: Callable[[], Awaitable[Any]], into: dict[str, Any], notes: list[str]
) -> None:
    try:
        into[name] = await read()
    except PaperUnanswered as error:
        notes.append(f"{name}: {error.code}")
    except Unreadable as error:
        notes.append(f"{name}: {error}")
    except Exception as error:  # any part that fails leaves only its own fields unknown
        notes.append(f"{name}: unavailable ({type(error).__name__})")


class PaperAnswerReader:
    """The paper account as ``identity`` reads it through the gateway's paper answers; the
    symbol's quote and tradability come from the paper reader's quote source (market data,
    which the gateway forwards to the upstream in paper mode too)."""

    def __init__(self, paper: PaperAccountReader, ledger: Ledger, identity: str) -> None:
        self._paper = paper
        self._ledger = ledger
        self._identity = identity

    async def read(
        self,
        account: str,
        symbol: str | None,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> AccountView:
        """A ``quote`` given is the view's quote (not read again); one given ``quote_from``
        is awaited while the rest is read."""
        paper, ledger, identity = self._paper, self._ledger, self._identity
        read: dict[str, Any] = {}
        notes: list[str] = []

        async def portfolio() -> Portfolio:
            return Portfolio.model_validate(await paper_portfolio(paper, account))

        async def positions() -> Any:
            page = EquityPositionsPage.model_validate(await paper_positions(paper, account))
            return held_positions(page.positions)

        async def orders() -> Any:
            mine = await blocking(paper_orders_of, paper.book, ledger, account, identity)
            page = EquityOrdersPage.model_validate({"orders": [order_wire(o) for o in mine]})
            return open_broker_orders(page.orders)

        parts: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("portfolio", portfolio),
            ("positions", positions),
            ("open_orders", orders),
        ]
        if symbol is not None:
            wanted = symbol
            if quote is not None:
                read["quote"] = quote
            elif quote_from is not None:
                later = quote_from
                parts.append(("quote", lambda: later))
            else:
                parts.append(("quote", lambda: _quote(paper, wanted)))
            parts.append(("tradable", lambda: paper.quotes.tradable(account, wanted)))
        async with anyio.create_task_group() as group:
            for name, reader in parts:
                group.start_soon(_part, name, reader, read, notes)
        totals: Portfolio | None = read.get("portfolio")
        power = None if totals is None else totals.buying_power
        return AccountView(
            equity=None if totals is None else totals.total_value,
            cash=None if totals is None else totals.cash,
            buying_power=None if power is None else power.buying_power,
            positions=read.get("positions"),
            open_orders=read.get("open_orders"),
            quote=read.get("quote"),
            tradable=read.get("tradable"),
            notes=tuple(sorted(notes)),
        )


async def _quote(paper: PaperAccountReader, symbol: str) -> Quote | None:
    return await paper.quotes.quote(symbol)
