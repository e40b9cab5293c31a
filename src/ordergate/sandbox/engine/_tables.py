"""The engine's tables (revisions 0022, 0033, 0034): one book's open state, its ended orders and
closed trades. Every statement names the key or index it uses; none scans a book's history.

- ``venue_books`` (primary key ``book``): the open state and its version, read and locked at
  the start of every call (``FOR UPDATE`` on Postgres; SQLite's ``BEGIN IMMEDIATE`` already
  holds the database's one write lock) and written back when it changed.
- ``venue_ended_orders``: by ``(book, order_id)``, by ``(book, account, ref_key)`` (unique:
  one order per ``ref_id``, as the venue answers a repeated one), listed by
  ``(book, account, sequence)``.
- ``venue_ended_crypto_orders`` (0033) and ``venue_ended_option_orders`` (0034): the same
  for crypto and option orders (their own ``ref_id`` spaces, as the venue keeps one per
  desk).
- ``venue_closed_trades``: by ``(book, account, ordinal)``, in the order they were booked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, text

from ordergate.sandbox.engine._codec import (
    decode_closed_trade,
    decode_crypto_order,
    decode_option_order,
    decode_order,
    encode_closed_trade,
    encode_crypto_order,
    encode_option_order,
    encode_order,
)
from ordergate.sandbox.venue._equity_model import EquityOrder
from ordergate.sandbox.venue._order_model import Order
from ordergate.sandbox.venue._positions import ClosedTrade
from ordergate.store import Statement, iso

__all__ = ["BookRow", "BookTables", "EndedOrders", "dump"]

OrderT = TypeVar("OrderT", bound=Order[Any, Any, Any])

# Every statement runs on the driver's cursor (``Statement``): every call reads the book's
# row at least once, and a placement looks its ``ref_id`` up among the ended orders.
_CREATE = Statement(
    text(
        "INSERT INTO venue_books (book, version, state) VALUES (:book, 0, :state) "
        "ON CONFLICT (book) DO NOTHING"
    )
)
_STORED = Statement(text("SELECT version, state FROM venue_books WHERE book = :book"))
_LOCK_SQLITE = _STORED
_LOCK_POSTGRES = Statement(
    text("SELECT version, state FROM venue_books WHERE book = :book FOR UPDATE")
)
_WRITE = Statement(
    text("UPDATE venue_books SET version = :version, state = :state WHERE book = :book")
)
_ENDED_TABLES = ("venue_ended_orders", "venue_ended_crypto_orders", "venue_ended_option_orders")


class _EndedSql:
    """The statements on one table of ended orders (its name is one of ``_ENDED_TABLES``)."""

    def __init__(self, table: str) -> None:
        assert table in _ENDED_TABLES
        self.end = Statement(
            text(
                f"INSERT INTO {table} (book, order_id, account, ref_key, sequence, body) "
                "VALUES (:book, :order_id, :account, :ref_key, :sequence, :body)"
            )
        )
        self.by_id = Statement(
            text(
                f"SELECT body FROM {table} "
                "WHERE book = :book AND order_id = :order_id AND account = :account"
            )
        )
        self.by_ref = Statement(
            text(
                f"SELECT body FROM {table} "
                "WHERE book = :book AND account = :account AND ref_key = :ref_key"
            )
        )
        self.listing = Statement(
            text(
                f"SELECT body FROM {table} "
                "WHERE book = :book AND account = :account ORDER BY sequence"
            )
        )


_CLOSE_TRADE = Statement(
    text(
        "INSERT INTO venue_closed_trades (book, ordinal, account, closed_at, body) "
        "VALUES (:book, :ordinal, :account, :closed_at, :body)"
    )
)
_TRADES = Statement(
    text(
        "SELECT body FROM venue_closed_trades WHERE book = :book AND account = :account "
        "ORDER BY ordinal"
    )
)


def dump(value: Any) -> str:
    """``value`` as the compact, key-sorted JSON every column of these tables holds (the
    open state's instant synced to is written first: ``_engine._stored_state``)."""
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
        self.equity_orders = EndedOrders(self, "venue_ended_orders", encode_order, decode_order)
        self.crypto_orders = EndedOrders(
            self, "venue_ended_crypto_orders", encode_crypto_order, decode_crypto_order
        )
        self.crypto_trades = _Closed(self, "crypto")
        self.option_orders = EndedOrders(
            self, "venue_ended_option_orders", encode_option_order, decode_option_order
        )
        self.option_trades = _Closed(self, "option")

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
        the transaction ends. A book's row is never deleted, so it is created only when the
        lock finds none: every later call reads and locks it in one statement. On Postgres
        two first calls may both find none; ``ON CONFLICT DO NOTHING`` waits for the other's
        insert, and the second read locks whichever row committed."""
        connection = self.connection
        statement = _LOCK_POSTGRES if connection.dialect.name == "postgresql" else _LOCK_SQLITE
        row = statement.first(connection, {"book": self.book})
        if row is None:
            _CREATE.run(connection, {"book": self.book, "state": initial})
            row = statement.first(connection, {"book": self.book})
        version, state = row
        return BookRow(int(version), str(state))

    def stored(self) -> BookRow | None:
        """The book's stored open state, read without locking it (``None``: no book yet)."""
        row = _STORED.first(self.connection, {"book": self.book})
        return None if row is None else BookRow(int(row[0]), str(row[1]))

    def write(self, version: int, state: str) -> None:
        _WRITE.run(self.connection, {"book": self.book, "version": version, "state": state})

    # -- ended orders ------------------------------------------------------------------------

    def end_orders(self, orders: list[EquityOrder]) -> None:
        self.equity_orders.end(orders)

    def order(self, account_number: str, order_id: str) -> EquityOrder | None:
        return self.equity_orders.order(account_number, order_id)

    def by_ref(self, account_number: str, ref_id: str) -> EquityOrder | None:
        return self.equity_orders.by_ref(account_number, ref_id)

    def orders(self, account_number: str) -> list[EquityOrder]:
        return self.equity_orders.orders(account_number)

    # -- closed trades -----------------------------------------------------------------------

    def close_trades(self, first_ordinal: int, trades: list[ClosedTrade]) -> None:
        if trades:
            _CLOSE_TRADE.run_many(
                self.connection,
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
        """The account's closed equity trades, oldest first (``crypto_trades`` and
        ``option_trades`` read the other desks')."""
        return self.closed_of(account_number, "equity")

    def closed_of(self, account_number: str, asset_class: str) -> list[ClosedTrade]:
        """The account's closed trades of ``asset_class``, oldest first."""
        rows = _TRADES.rows(self.connection, {"book": self.book, "account": account_number})
        trades = [decode_closed_trade(json.loads(body)) for (body,) in rows]
        return [t for t in trades if t.asset_class == asset_class]


class _Closed:
    """The book's closed trades of one desk (``asset_class``), as that desk reads them back."""

    def __init__(self, tables: BookTables, asset_class: str) -> None:
        self._tables = tables
        self._asset_class = asset_class

    def closed(self, account_number: str) -> list[ClosedTrade]:
        return self._tables.closed_of(account_number, self._asset_class)


class EndedOrders(Generic[OrderT]):
    """One book's ended orders of one kind, in their table, on the book's transaction."""

    def __init__(
        self,
        tables: BookTables,
        table: str,
        encode: Callable[[OrderT], dict[str, Any]],
        decode: Callable[[dict[str, Any]], OrderT],
    ) -> None:
        self._tables = tables
        self._sql = _EndedSql(table)
        self._encode: Callable[[OrderT], dict[str, Any]] = encode
        self._decode: Callable[[dict[str, Any]], OrderT] = decode

    def end(self, orders: list[OrderT]) -> None:
        if orders:
            self._sql.end.run_many(
                self._tables.connection,
                [
                    {
                        "book": self._tables.book,
                        "order_id": order.id,
                        "account": order.account_number,
                        "ref_key": order.ref_id.lower(),
                        "sequence": order.sequence,
                        "body": dump(self._encode(order)),
                    }
                    for order in orders
                ],
            )

    def order(self, account_number: str, order_id: str) -> OrderT | None:
        keys = {"book": self._tables.book, "order_id": order_id, "account": account_number}
        row = self._sql.by_id.first(self._tables.connection, keys)
        return None if row is None else self._decode(json.loads(row[0]))

    def by_ref(self, account_number: str, ref_id: str) -> OrderT | None:
        keys = {"book": self._tables.book, "account": account_number, "ref_key": ref_id}
        row = self._sql.by_ref.first(self._tables.connection, keys)
        return None if row is None else self._decode(json.loads(row[0]))

    def orders(self, account_number: str) -> list[OrderT]:
        keys = {"book": self._tables.book, "account": account_number}
        rows = self._sql.listing.rows(self._tables.connection, keys)
        return [self._decode(json.loads(body)) for (body,) in rows]
