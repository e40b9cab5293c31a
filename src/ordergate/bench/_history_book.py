"""The paper book's side of the history bench's seeded fills: what the venue's own engine
(``PaperVenue``) keeps of an order that filled.

Paper runs the venue's engine on a book per account (``book_name``): an ended order is one row
of ``venue_ended_orders`` (its body the engine's own encoding), a sale that closed a lot one
row of ``venue_closed_trades``, and the book's open state (cash, the id, order and trade
counters) one JSON document in ``venue_books``. A seeded fill writes the rows a filled market
order of one share of SPY on the bench's fixed market leaves there (confirmed one second after
it was placed, filled one second later, a sale paying the venue's fees), and the account's
book, opened before the seed (``carry``), is moved on past them: its counters and cash, as if
the engine had filled every seeded order itself. A buy opens a lot, the next sell closes it
(first in, first out), so the seeded account ends flat; a seed that would leave a lot open
is refused (the open state would have to carry it). ``tests/bench/test_bench_history.py``
proves the rows equal those of orders the engine filled through the guard.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Final
from uuid import uuid4

from sqlalchemy import Connection, text

from ordergate.bench._fixed_upstream import tradability_of
from ordergate.calendar import NyseCalendar
from ordergate.client.equity import EquityTradability
from ordergate.ledger import canonical_json
from ordergate.store import iso
from ordergate.venues.paper import book_name, listing_of

__all__ = ["SELL_FEE", "SeededBooks"]

SELL_FEE: Final = Decimal("0.02")
"""The venue's fees on a sale of one share at $99.99 (SEC fee and TAF, each rounded up)."""
_CONFIRMED: Final = timedelta(seconds=1)  # the venue confirms an order a second on …
_FILLED: Final = timedelta(seconds=2)  # … and fills a market order a second later
_IDS: Final = 3  # ids the venue issues per filled order: order, execution, lot or trade
_CALENDAR: Final = NyseCalendar()


def _listing(symbol: str) -> dict[str, Any]:
    """The listing the paper caller makes of the fixed upstream's tradability of ``symbol``."""
    tradable = EquityTradability.model_validate(tradability_of(symbol))
    return asdict(listing_of(tradable))


@dataclass
class _Book:
    """One book's counters as the seed moves them on, and its open lot."""

    name: str
    sequence: int = 0
    trades: int = 0
    ids: int = 0
    spent: Decimal = Decimal(0)
    lots: list[tuple[str, datetime, Decimal]] = field(default_factory=list)


class SeededBooks:
    """The engine's rows of the seeded fills, book by book; ``carried`` is the account whose
    book the bench opens (its open state is carried past the seed)."""

    def __init__(self, connection: Connection, carried: str) -> None:
        self._carried = carried
        self._books: dict[str, _Book] = {}
        self._listing = _listing("SPY")
        stored = connection.execute(_STATE, {"book": book_name(carried)}).first()
        if stored is None:
            raise RuntimeError(f"bench history: the paper book of {carried} is not open")
        state = json.loads(stored[1])
        book = self._book(carried)
        book.sequence, book.trades = int(state["sequence"]), int(state["trades"])
        self.ended: list[tuple[Any, ...]] = []
        self.closed: list[tuple[Any, ...]] = []

    def _book(self, account: str) -> _Book:
        if account not in self._books:
            self._books[account] = _Book(book_name(account))
        return self._books[account]

    def filled(
        self, account: str, filing_id: str, order_id: str, execution_id: str, side: str,
        price: Decimal, estimated: Decimal, when: datetime,
    ) -> None:  # fmt: skip
        """The rows of a market order of one share of SPY placed at ``when`` and filled at
        ``price`` (``estimated``: the price the venue held it at)."""
        book = self._book(account)
        filled_at = when + _FILLED
        fees = SELL_FEE if side == "sell" else Decimal("0.00")
        body = {
            "confirm_at": iso(when + _CONFIRMED), "created_at": iso(when),
            "doomed_reason": None,
            "executions": [[execution_id, str(price), "1", iso(filled_at), str(fees)]],
            "expires_at": iso(_close_after(when)), "id": order_id, "lots_left": None,
            "next_check": iso(filled_at + _CONFIRMED), "placed_agent": "agentic",
            "ref_id": filing_id, "reject_reason": None, "sequence": book.sequence,
            "state": "filled",
            "terms": {
                "account_number": account, "dollar_amount": None,
                "estimated_price": str(estimated), "limit_price": None,
                "listing": self._listing, "market_hours": "regular_hours", "quantity": "1",
                "side": side, "stop_price": None, "tax_lots": None, "time_in_force": "gfd",
                "type": "market",
            },
            "triggered": True, "updated_at": iso(filled_at),
        }  # fmt: skip
        self.ended.append(
            (book.name, order_id, account, filing_id.lower(), book.sequence, canonical_json(body))
        )
        book.sequence += 1
        book.ids += _IDS
        if side == "buy":
            book.spent += price
            book.lots.append((str(uuid4()), filled_at, price))
            return
        if not book.lots:
            raise ValueError(f"bench history: a seeded sale on {account} has no lot to close")
        lot_id, opened_at, cost = book.lots.pop(0)
        book.spent += fees - price
        trade = {
            "account_number": account, "asset_class": "equity", "close_price": str(price),
            "closed_at": iso(filled_at), "cost_basis": str(cost),
            "execution_id": execution_id, "fees": str(fees),
            "instrument_id": self._listing["instrument_id"], "open_lot_id": lot_id,
            "open_price": str(cost), "opened_at": iso(opened_at), "order_id": order_id,
            "proceeds": str(price), "quantity": "1", "symbol": "SPY", "trade_id": str(uuid4()),
        }  # fmt: skip
        self.closed.append((book.name, book.trades, account, iso(filled_at), canonical_json(trade)))
        book.trades += 1

    def drain(self) -> list[tuple[str, list[tuple[Any, ...]]]]:
        """The statements and rows gathered so far (``?`` parameters), to append on the
        chunk's transaction."""
        drained = [(_END, self.ended), (_CLOSE, self.closed)]
        self.ended, self.closed = [], []
        return drained

    def carry(self, connection: Connection) -> None:
        """Move the carried account's book on past the seeded fills (a new version, so an
        engine that has it in memory reloads it)."""
        book = self._book(self._carried)
        if book.lots:
            raise ValueError(f"bench history: the seed leaves a lot open on {self._carried}")
        version, stored = connection.execute(_STATE, {"book": book.name}).one()
        state = json.loads(stored)
        cash = Decimal(state["cash"][self._carried]) - book.spent
        state["cash"][self._carried] = str(cash)
        state["ids"] = int(state["ids"]) + book.ids
        state["sequence"], state["trades"] = book.sequence, book.trades
        connection.execute(
            _WRITE,
            {"book": book.name, "version": int(version) + 1, "state": canonical_json(state)},
        )


def _close_after(when: datetime) -> datetime:
    """The regular close a day order placed at ``when`` expires at."""
    day = _CALENDAR.market_date(when)
    if _CALENDAR.is_session_day(day) and when < _CALENDAR.regular_close(day):
        return _CALENDAR.regular_close(day)
    return _CALENDAR.regular_close(_CALENDAR.market_date(_CALENDAR.next_regular_open(when)))


_STATE = text("SELECT version, state FROM venue_books WHERE book = :book")
_WRITE = text("UPDATE venue_books SET version = :version, state = :state WHERE book = :book")
_END = (
    "INSERT INTO venue_ended_orders (book, order_id, account, ref_key, sequence, body) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_CLOSE = (
    "INSERT INTO venue_closed_trades (book, ordinal, account, closed_at, body) "
    "VALUES (?, ?, ?, ?, ?)"
)
