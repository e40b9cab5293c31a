"""The engine's tables (revision 0022): one book's open state, its ended orders and closed
trades. Every statement names the key or index it uses; none scans a book's history.

- ``venue_books`` (primary key ``book``): the open state and its version, read and locked at
  the start of every call (``FOR UPDATE`` on Postgres; SQLite's ``BEGIN IMMEDIATE`` already
  holds the database's one write lock) and written back when it changed.
- ``venue_ended_orders``: by ``(book, order_id)``, by ``(book, account, ref_key)`` (unique:
  one order per ``ref_id``, as the venue answers a repeated one), listed by
  ``(book, account, sequence)``.
- ``venue_closed_trades``: by ``(book, account, ordinal)``, in the order they were booked.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, text

from ordergate.sandbox.engine._codec import (
    decode_closed_trade,
    decode_order,
    encode_closed_trade,
    encode_order,
)
from ordergate.sandbox.venue._equity_model import EquityOrder
from ordergate.sandbox.venue._positions import ClosedTrade
from ordergate.store import iso

__all__ = ["BookRow", "BookTables", "dump"]

_CREATE = text(
    "INSERT INTO venue_books (book, version, state) VALUES (:book, 0, :state) "
    "ON CONFLICT (book) DO NOTHING"
)
_STORED = text("SELECT version, state FROM venue_books WHERE book = :book")
_LOCK_SQLITE = text("SELECT version, state FROM venue_books WHERE book = :book")
_LOCK_POSTGRES = text("SELECT version, state FROM venue_books WHERE book = :book FOR UPDATE")
_WRITE = text("UPDATE venue_books SET version = :version, state = :state WHERE book = :book")
_END_ORDER = text(
    "INSERT INTO venue_ended_orders (book, order_id, account, ref_key, sequence, body) "
    "VALUES (:book, :order_id, :account, :ref_key, :sequence, :body)"
)
_ORDER_BY_ID = text(
    "SELECT body FROM venue_ended_orders "
    "WHERE book = :book AND order_id = :order_id AND account = :account"
)
_ORDER_BY_REF = text(
    "SELECT body FROM venue_ended_orders "
    "WHERE book = :book AND account = :account AND ref_key = :ref_key"
)
_ORDERS = text(
    "SELECT body FROM venue_ended_orders WHERE book = :book AND account = :account "
    "ORDER BY sequence"
)
_CLOSE_TRADE = text(
    "INSERT INTO venue_closed_trades (book, ordinal, account, closed_at, body) "
    "VALUES (:book, :ordinal, :account, :closed_at, :body)"
)
_TRADES = text(
    "SELECT body FROM venue_closed_trades WHERE book = :book AND account = :account "
    "ORDER BY ordinal"
)


def dump(value: Any) -> str:
    """``value`` as the compact, key-sorted JSON every column of these tables holds."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class BookRow:
    """A book's stored open state as read at the start of a call."""

    __slots__ = ("state", "version")

    def __init__(self, version: int, state: str) -> None:
        self.version = version
        self.state = state


class BookTables:
    """One book's rows, read and written on the caller's write transaction (``bind``)."""

    def __init__(self, book: str) -> None:
        self.book = book
        self._connection: Connection | None = None

    def bind(self, connection: Connection | None) -> None:
        """Read and write on ``connection`` from now on (``None``: outside any call)."""
        self._connection = connection

    @property
    def connection(self) -> Connection:
        if self._connection is None:
            raise RuntimeError("the book is read only inside a call")
        return self._connection

    # -- the open state --------------------------------------------------------------------

    def lock(self, initial: str) -> BookRow:
        """The book's row, created with the state ``initial`` the first time, locked until
        the transaction ends."""
        connection = self.connection
        connection.execute(_CREATE, {"book": self.book, "state": initial})
        statement = _LOCK_POSTGRES if connection.dialect.name == "postgresql" else _LOCK_SQLITE
        version, state = connection.execute(statement, {"book": self.book}).one()
        return BookRow(int(version), str(state))

    def stored(self) -> BookRow | None:
        """The book's stored open state, read without locking it (``None``: no book yet)."""
        row = self.connection.execute(_STORED, {"book": self.book}).first()
        return None if row is None else BookRow(int(row[0]), str(row[1]))

    def write(self, version: int, state: str) -> None:
        self.connection.execute(_WRITE, {"book": self.book, "version": version, "state": state})

    # -- ended orders ------------------------------------------------------------------------

    def end_orders(self, orders: list[EquityOrder]) -> None:
        if orders:
            self.connection.execute(
                _END_ORDER,
                [
                    {
                        "book": self.book,
                        "order_id": order.id,
                        "account": order.account_number,
                        "ref_key": order.ref_id.lower(),
                        "sequence": order.sequence,
                        "body": dump(encode_order(order)),
                    }
                    for order in orders
                ],
            )

    def order(self, account_number: str, order_id: str) -> EquityOrder | None:
        row = self.connection.execute(
            _ORDER_BY_ID, {"book": self.book, "order_id": order_id, "account": account_number}
        ).first()
        return None if row is None else decode_order(json.loads(row[0]))

    def by_ref(self, account_number: str, ref_id: str) -> EquityOrder | None:
        row = self.connection.execute(
            _ORDER_BY_REF, {"book": self.book, "account": account_number, "ref_key": ref_id}
        ).first()
        return None if row is None else decode_order(json.loads(row[0]))

    def orders(self, account_number: str) -> list[EquityOrder]:
        rows = self.connection.execute(_ORDERS, {"book": self.book, "account": account_number})
        return [decode_order(json.loads(body)) for (body,) in rows]

    # -- closed trades -----------------------------------------------------------------------

    def close_trades(self, first_ordinal: int, trades: list[ClosedTrade]) -> None:
        if trades:
            self.connection.execute(
                _CLOSE_TRADE,
                [
                    {
                        "book": self.book,
                        "ordinal": first_ordinal + index,
                        "account": trade.account_number,
                        "closed_at": iso(trade.closed_at),
                        "body": dump(encode_closed_trade(trade)),
                    }
                    for index, trade in enumerate(trades)
                ],
            )

    def closed(self, account_number: str) -> list[ClosedTrade]:
        rows = self.connection.execute(_TRADES, {"book": self.book, "account": account_number})
        return [decode_closed_trade(json.loads(body)) for (body,) in rows]
