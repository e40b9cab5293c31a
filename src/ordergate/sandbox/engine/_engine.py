"""``EquityEngine``: the sandbox venue's own equity, crypto and options engine, on any price
feeds,
kept in ordergate's database so that it survives restarts and is shared by processes and
replicas.

What runs is the venue itself (its ``Venue``, accounts and ``EquityDesk``, its tools and their
wire formats): an answer is the venue's own answer, so it validates against the captured
output schemas by construction. Only the prices differ: the equity, crypto and options desks
read them from the feeds they are given (``ObservedPrices``, ``ObservedCryptoPrices`` and
``ObservedOptionPrices`` for paper trading, the seeded market for a sandbox).

How the state is kept, and why this shape. A book's state splits in two:

- what is open (cash, buying-power holds, open equity, crypto and option orders, open lots,
  crypto holdings, option positions, the id and order counters, the splits applied) is one
  JSON document in ``venue_books``, with a version;
- what has ended (orders, closed trades) is appended to ``venue_ended_orders`` (crypto
  orders: ``venue_ended_crypto_orders``, option orders: ``venue_ended_option_orders``) and
  ``venue_closed_trades`` in the transaction that ended it, and dropped from memory.

Option exercises are not carried (the engine does not answer ``exercise_option``); an option
position left open at its expiration settles on the underlying's price at that close, as the
venue's options desk settles it (a covered call or cash-secured put in the money assigned in
shares, the rest in cash at intrinsic value).

Every call (``call`` runs a tool; ``order_by_ref`` and ``open_orders`` read an order by its
``ref_id`` and the open orders, in ``get_equity_orders``' shape) is one write transaction:
lock the book's row, reload the open state if another process or replica moved the version
on, bring the venue up to the clock, do the work, append what ended, write the open state
back if it changed, commit. So:

- the cost of a call is bounded by what is open, never by the book's history (a journal of
  inputs replayed from the start would grow with it, snapshots or not); history is read from
  its indexes only when a tool asks for it (an order by id or ``ref_id``, a listing, P&L);
- memory holds nothing per ended order;
- a crash at any point loses nothing committed and leaves nothing half-done: the
  transaction rolls back, this engine drops what it holds in memory, and the next call
  reloads the committed state;
- two processes (or replicas on Postgres) on one book take turns on its row and each sees
  the other's last commit: the row lock serialises them, the version tells them to reload.

Observed quotes are not kept: prices are read fresh from the upstream, and a restarted engine
has none until it is handed some (a market order is refused meanwhile, never priced from a
remembered quote).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Final, NamedTuple, TypeVar

from sqlalchemy import Engine

from ordergate.core import Clock
from ordergate.inventory import load_inventory
from ordergate.sandbox.engine._codec import OpenState, decode_state, encode_state
from ordergate.sandbox.engine._tables import BookTables, dump
from ordergate.sandbox.tools import ToolTable
from ordergate.sandbox.venue import Account, Venue
from ordergate.sandbox.venue._crypto import CryptoDesk
from ordergate.sandbox.venue._crypto_book import CryptoHolding
from ordergate.sandbox.venue._crypto_market import CryptoMarket
from ordergate.sandbox.venue._crypto_model import CryptoOrder
from ordergate.sandbox.venue._equity import EquityDesk
from ordergate.sandbox.venue._equity_market import EquityMarket
from ordergate.sandbox.venue._equity_model import EquityOrder
from ordergate.sandbox.venue._equity_wire import order_wire
from ordergate.sandbox.venue._option_market import OptionMarket
from ordergate.sandbox.venue._options import OptionsDesk
from ordergate.sandbox.venue._options_book import OptionPosition
from ordergate.sandbox.venue._options_model import OptionOrder
from ordergate.sandbox.venue._positions import TaxLot
from ordergate.store import write_transaction

__all__ = ["ENGINE_TOOLS", "READ_TOOLS", "BookMismatch", "EquityEngine", "Wanted"]

T = TypeVar("T")
_Held = tuple[
    list[EquityOrder],
    list[TaxLot],
    list[CryptoOrder],
    list[CryptoHolding],
    list[OptionOrder],
    list[OptionPosition],
]
"""What the book holds open: equity orders and lots, crypto orders and holdings, option
orders and positions."""


class BookMismatch(Exception):
    """The stored book belongs to accounts this engine's ``seed`` does not name."""


ENGINE_TOOLS = (
    "get_accounts",
    "get_portfolio",
    "get_trade_approval_setting",
    "get_limited_margin_upgrade_info",
    "get_equity_tradability",
    "review_equity_order",
    "place_equity_order",
    "cancel_equity_order",
    "get_equity_orders",
    "get_equity_positions",
    "get_equity_tax_lots",
    "get_realized_pnl",
    "get_pnl_trade_history",
    "preview_crypto_order",
    "place_crypto_order",
    "cancel_crypto_order",
    "get_crypto_orders",
    "get_crypto_positions",
    "review_option_order",
    "place_option_order",
    "cancel_option_order",
    "get_option_orders",
    "get_option_positions",
)
"""The venue's tools the engine answers (equities, crypto orders and holdings, option orders
and positions, the account, realised P&L). The market data (``get_currency_pairs``,
``get_crypto_quotes``, the option chains, instruments and quotes) stays the upstream's."""


_MOVING_TOOLS: Final = frozenset(
    {
        "place_equity_order",
        "cancel_equity_order",
        "place_crypto_order",
        "cancel_crypto_order",
        "place_option_order",
        "cancel_option_order",
    }
)
"""The engine's tools that move the book themselves: always run in the book's turn."""
READ_TOOLS: Final = frozenset(ENGINE_TOOLS) - _MOVING_TOOLS
"""The engine's tools that move nothing themselves: answered in a read transaction unless
bringing the book up to the clock moved something (``EquityEngine.call``)."""


class Wanted(NamedTuple):
    """What a call on the book may need prices for (``EquityEngine.wanted``)."""

    symbols: frozenset[str]
    pairs: frozenset[str]
    option_ids: frozenset[str]


def _kept_part(encoded: dict[str, Any]) -> str:
    """The open state as kept: all of it but the instant synced to."""
    return dump({key: value for key, value in encoded.items() if key != "synced_to"})


def _stored_state(kept: str, synced_to: Any) -> str:
    """The open state as written to the book's row: its kept part (``_kept_part``, a JSON
    object with members) with the instant synced to as its first member, so that a write
    dumps the open state once, not once to compare and again to store."""
    assert kept.startswith('{"'), kept[:2]
    return '{"synced_to":' + dump(synced_to) + "," + kept[1:]


def _wanted(
    orders: list[EquityOrder],
    lots: list[TaxLot],
    crypto_orders: list[CryptoOrder],
    holdings: list[CryptoHolding],
    option_orders: list[OptionOrder],
    positions: list[OptionPosition],
) -> Wanted:
    """What a book with this open state may need prices for (``EquityEngine.wanted``)."""
    legs = frozenset(leg.option_id for o in option_orders if o.is_open for leg in o.terms.legs)
    return Wanted(
        symbols=frozenset(o.symbol for o in orders if o.is_open)
        | frozenset(lot.symbol for lot in lots),
        pairs=frozenset(o.terms.symbol for o in crypto_orders if o.is_open)
        | frozenset(h.pair.symbol for h in holdings if h.quantity),
        option_ids=legs | frozenset(p.option_id for p in positions if p.quantity),
    )


class EquityEngine:
    """The venue's equity, crypto and options engine for one ``book``, on ``prices``
    (equities), ``crypto_prices`` (crypto pairs) and ``option_prices`` (option contracts; the
    venue's seeded market when either is not given), kept in ``database``.

    ``seed`` fixes the account numbers and ids (deterministic, as the sandbox's);
    ``agentic_numbers`` gives the agentic account's ``(account_number, rhs_account_number)``
    instead (paper carries the upstream's account); ``cash`` is the book's starting cash,
    used only when the book is first created; ``account_type`` and ``option_level`` are the
    agentic account's (the venue's defaults: a cash account at option level 2). The database
    must be migrated (``ordergate.store.migrate``).

    ``durable=False``: the book's turns commit unflushed on SQLite (``write_transaction``'s
    ``durable``), for a book kept in the ledger's own database whose turns follow a filing
    committed flushed (paper): the log keeps its commits in order, so power loss takes the
    latest turns with whatever the ledger recorded after them, never a turn the ledger's
    next flushed commit built on, and a lost placement is an order in doubt that a lookup
    by ``ref_id`` does not find.
    """

    def __init__(
        self,
        database: Engine,
        *,
        book: str,
        prices: EquityMarket,
        crypto_prices: CryptoMarket | None = None,
        option_prices: OptionMarket | None = None,
        clock: Clock,
        seed: int = 0,
        cash: Decimal = Decimal("100000.00"),
        agentic_numbers: tuple[str, str] | None = None,
        account_type: str = "cash",
        option_level: int = 2,
        durable: bool = True,
    ) -> None:
        self._database = database
        self._durable = durable
        self._tables = BookTables(book)
        self._venue = Venue(
            seed=seed,
            clock=clock,
            cash=cash,
            agentic_numbers=agentic_numbers,
            account_type=account_type,
            option_level=option_level,
        )
        self._desk = EquityDesk(self._venue, market=prices)
        self._desk.archive = self._tables
        self._desk.closed_archive = self._tables
        self._venue.add_desk(self._desk)
        self._crypto = CryptoDesk(self._venue, market=crypto_prices)
        self._crypto.archive = self._tables.crypto_orders
        self._crypto.closed_archive = self._tables.crypto_trades
        self._venue.add_desk(self._crypto)
        self._options = OptionsDesk(self._venue, market=option_prices)
        self._options.archive = self._tables.option_orders
        self._options.closed_archive = self._tables.option_trades
        self._venue.add_desk(self._options)
        self._table = ToolTable(specs={name: load_inventory()[name] for name in ENGINE_TOOLS})
        self._trades = 0
        self._initial = dump(encode_state(self._open_state()))
        self._version: int | None = None
        self._kept = ""  # the committed open state apart from ``synced_to`` (``_kept_part``)

    @property
    def book(self) -> str:
        return self._tables.book

    @property
    def account(self) -> Account:
        """The book's agentic account (its ``account_number`` and ``rhs_account_number``)."""
        return self._venue.accounts.agentic

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run the venue's tool ``name`` on the book: a ``CallToolResult`` as the venue's MCP
        server answers it (``structuredContent`` is ``{data, guide}``, or ``{error}`` with
        ``isError``), but for its ``content``, left empty: the engine's callers are in process
        and read ``structuredContent`` (``ordergate.client.result_data``). Raises
        ``UnknownTool`` for a tool the engine does not answer,
        ``BookMismatch`` for a book opened with another ``seed``, and SQLAlchemy errors when
        the database fails (nothing is then changed). A tool of ``READ_TOOLS`` is answered
        without the book's turn when bringing the book up to the clock moves nothing (see
        the module docstring)."""
        args = dict(arguments or {})

        def work() -> dict[str, Any]:
            return self._table.call(self._venue, name, args, text=False)

        return self._in_read(work) if name in READ_TOOLS else self._in_turn(work)

    @property
    def venue(self) -> Venue:
        """The venue the book runs on: what ``run``'s work reads and moves (its desks and
        accounts), never to be touched outside ``run``."""
        return self._venue

    def run(self, work: Callable[[], T], *, moves: bool) -> T:
        """``work`` on the book brought up to the clock, as a tool call is: in the book's
        turn when it may move the book (``moves``), else as a read of ``READ_TOOLS`` is.
        What another front of the venue does on the book (its REST routes) runs here."""
        return self._in_turn(work) if moves else self._in_read(work)

    def run_if_priced(
        self, work: Callable[[], T], *, moves: bool, stale: Callable[[Wanted], Wanted | None]
    ) -> T | Wanted:
        """``run``, unless ``stale`` names something of what the book, as committed, may
        need prices for: then what it names (as ``call_if_priced``)."""

        def checked() -> T | Wanted:
            return work()

        return self._in_turn(checked, stale) if moves else self._in_read(checked, stale)

    def call_if_priced(
        self, name: str, arguments: Mapping[str, Any], stale: Callable[[Wanted], Wanted | None]
    ) -> dict[str, Any] | Wanted:
        """``call``, unless ``stale`` names something of what the book, as committed, may
        need prices for (``wanted``): then what it names, and nothing is run. The book's row
        is read once for both, so what is checked is what the call then runs on."""
        args = dict(arguments)

        def work() -> dict[str, Any] | Wanted:
            return self._table.call(self._venue, name, args, text=False)

        if name in READ_TOOLS:
            return self._in_read(work, stale)
        return self._in_turn(work, stale)

    def open_orders_if_priced(
        self, stale: Callable[[Wanted], Wanted | None]
    ) -> list[dict[str, Any]] | Wanted:
        """``open_orders``, unless ``stale`` names something of what the book, as
        committed, may need prices for: then what it names (as ``call_if_priced``)."""

        def listing() -> list[dict[str, Any]] | Wanted:
            return self._open_listing()

        return self._in_read(listing, stale)

    def reads_if_priced(
        self,
        calls: Sequence[tuple[str, Mapping[str, Any]]],
        stale: Callable[[Wanted], Wanted | None] | None = None,
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | Wanted:
        """Each of ``calls`` (tools of ``READ_TOOLS``: ``call``'s answers, in order) and
        ``open_orders``, on one read of the book: one connection and one look at its row for
        all of them, each answering the same book. With ``stale``: unless it names
        something of what the book, as committed, may need prices for (as
        ``call_if_priced``); then what it names, and nothing is run."""
        asked = [(name, dict(arguments)) for name, arguments in calls]
        moving = [name for name, _ in asked if name not in READ_TOOLS]
        if moving:
            raise ValueError(f"not a read: {', '.join(moving)}")

        def work() -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | Wanted:
            answers = [
                self._table.call(self._venue, name, args, text=False) for name, args in asked
            ]
            return answers, self._open_listing()

        return self._in_read(work, stale)

    def order_by_ref(self, ref_id: str) -> dict[str, Any] | None:
        """The agentic account's order placed with ``ref_id`` (any case), open or ended, in
        ``get_equity_orders``' shape; ``None`` when there is none. A lookup by key."""

        return self._in_read(lambda: self._by_ref(ref_id))

    def order_by_ref_if_priced(
        self, ref_id: str, stale: Callable[[Wanted], Wanted | None]
    ) -> dict[str, Any] | Wanted | None:
        """``order_by_ref``, unless ``stale`` names something of what the book, as
        committed, may need prices for: then what it names (as ``call_if_priced``)."""

        def find() -> dict[str, Any] | Wanted | None:
            return self._by_ref(ref_id)

        return self._in_read(find, stale)

    def _by_ref(self, ref_id: str) -> dict[str, Any] | None:
        order = self._desk.by_ref(self.account.account_number, ref_id)
        return None if order is None else order_wire(order)

    def open_orders(self) -> list[dict[str, Any]]:
        """The agentic account's open orders, newest first, in ``get_equity_orders``' shape
        (read from memory: what is open, never the history)."""
        return self._in_read(self._open_listing)

    def _open_listing(self) -> list[dict[str, Any]]:
        orders = self._desk.open_orders(self.account.account_number)
        return [order_wire(order) for order in reversed(orders)]

    def wanted(self) -> Wanted:
        """What a call may need a price for, as committed: the
        symbols of the open equity orders and lots, the crypto pairs of the open crypto
        orders and holdings, the option contracts of the open option orders' legs and
        positions."""
        state = self._committed()
        if state is None:
            return Wanted(frozenset(), frozenset(), frozenset())
        # Read from the book's row without locking it; the open state is decoded only when
        # another engine moved it on since this one's last call (nothing is synced or written).
        return _wanted(*state)

    def _committed(self) -> _Held | None:
        with self._database.connect() as connection:
            self._tables.bind(connection)
            try:
                row = self._tables.stored()
            finally:
                self._tables.bind(None)
        if row is None:
            return None
        if row.version == self._version:
            return self._in_memory()
        state = decode_state(json.loads(row.state))
        return (
            state.orders,
            state.lots,
            state.crypto_orders,
            state.crypto_holdings,
            state.option_orders,
            state.option_positions,
        )

    def _in_memory(self) -> _Held:
        crypto = self._crypto
        return (
            self._desk.live_orders(),
            self._desk.positions.all_lots(),
            crypto.live_orders(),
            crypto.holdings.all(),
            self._options.live_orders(),
            self._options.positions.all(),
        )

    def _in_read(
        self, work: Callable[[], T], stale: Callable[[Wanted], T | None] | None = None
    ) -> T:
        """``work`` (which moves nothing itself) on the book brought up to the clock, in a
        read transaction: answered there when bringing the book up to the clock moved
        nothing that is kept (the open state apart from the instant synced to), else done
        again in the book's turn (``_in_turn``), which writes what moved. With ``stale``:
        what it names of what the committed book may need prices for, if anything, instead
        (nothing is run)."""
        if self._version is None:
            return self._in_turn(work, stale)
        moved = True
        try:
            with self._database.connect() as connection:
                if connection.dialect.name == "postgresql":
                    # The row and the ended orders read from one snapshot.
                    connection.execution_options(isolation_level="REPEATABLE READ")
                self._tables.bind(connection)
                row = self._tables.stored()
                if row is not None and row.version == self._version:
                    # Memory holds the committed book: what it may need prices for is read
                    # there, before the clock moves anything.
                    wanted = None if stale is None else stale(_wanted(*self._in_memory()))
                    if wanted is not None:
                        return wanted
                    if self._venue.idle():
                        # Nothing open to walk and nothing due: a sync moves nothing kept.
                        result, moved = work(), False
                    else:
                        self._venue.sync()
                        result = work()
                        moved = _kept_part(encode_state(self._open_state())) != self._kept
        except BaseException:
            self._version = None
            raise
        finally:
            self._tables.bind(None)
        if moved:
            # Memory moved past what committed: the turn reloads it and writes what moves.
            self._version = None
            return self._in_turn(work, stale)
        return result

    def _in_turn(
        self, work: Callable[[], T], stale: Callable[[Wanted], T | None] | None = None
    ) -> T:
        """``work`` on the book brought up to the clock, in one write transaction on its row
        (see the module docstring). The open state is written back when it changed apart
        from the instant synced to (a sync that moved nothing else leaves nothing to
        keep: the next one walks the same stretch again, to the same end). With ``stale``:
        as ``_in_read``, checked on the book as locked, before anything moves (nothing is
        then written)."""
        try:
            with write_transaction(self._database, durable=self._durable) as connection:
                self._tables.bind(connection)
                row = self._tables.lock(self._initial)
                if row.version != self._version:
                    stored = json.loads(row.state)
                    self._load(decode_state(stored))
                    self._kept = _kept_part(stored)
                wanted = None if stale is None else stale(_wanted(*self._in_memory()))
                if wanted is not None:
                    self._version = row.version  # memory is the book as committed
                    return wanted
                self._venue.sync()
                result = work()
                self._tables.end_orders(self._desk.evict_ended())
                self._tables.crypto_orders.end(self._crypto.evict_ended())
                self._tables.option_orders.end(self._options.evict_ended())
                trades = (
                    self._desk.positions.drain_closed()
                    + self._crypto.holdings.drain_closed()
                    + self._options.positions.drain_closed()
                )
                self._tables.close_trades(self._trades, trades)
                self._trades += len(trades)
                encoded = encode_state(self._open_state())
                kept = _kept_part(encoded)
                version = row.version
                if kept != self._kept:
                    version += 1
                    self._tables.write(version, _stored_state(kept, encoded["synced_to"]))
                    self._kept = kept
        except BaseException:
            # Memory may be ahead of what committed: the next call reloads.
            self._version = None
            raise
        finally:
            self._tables.bind(None)
        self._version = version
        return result

    # -- the open state ----------------------------------------------------------------------

    def _open_state(self) -> OpenState:
        venue, desk, crypto = self._venue, self._desk, self._crypto
        accounts = venue.accounts.all()
        return OpenState(
            ids=venue.ids.issued,
            synced_to=venue.synced_to,
            cash={a.account_number: a.cash for a in accounts},
            holds={a.account_number: dict(a.holds) for a in accounts},
            sequence=desk.sequence,
            trades=self._trades,
            splits_applied=frozenset(desk.splits_applied),
            orders=desk.live_orders(),
            lots=desk.positions.all_lots(),
            crypto_sequence=crypto.sequence,
            crypto_orders=crypto.live_orders(),
            crypto_holdings=crypto.holdings.all(),
            option_sequence=self._options.sequence,
            option_orders=self._options.live_orders(),
            option_positions=self._options.positions.all(),
        )

    def _load(self, state: OpenState) -> None:
        venue, desk = self._venue, self._desk
        venue.ids.resume(state.ids)
        venue.resume(state.synced_to)
        accounts = venue.accounts.all()
        if {a.account_number for a in accounts} != set(state.cash):
            # Another seed names other accounts: refuse rather than mix two books.
            raise BookMismatch(f"book {self.book!r} was opened with another seed")
        for account in accounts:
            account.cash = state.cash[account.account_number]
            account.holds = dict(state.holds[account.account_number])
        desk.restore(state.orders, state.sequence)
        desk.positions.restore(state.lots)
        desk.splits_applied = set(state.splits_applied)
        self._crypto.restore(state.crypto_orders, state.crypto_sequence)
        self._crypto.holdings.restore(state.crypto_holdings)
        self._options.restore(state.option_orders, state.option_sequence)
        self._options.positions.restore(state.option_positions)
        # Trades closed in memory that never committed (a call rolled back, or a read that
        # moved the book and is done again in the turn) are not the stored book's.
        self._desk.positions.drain_closed()
        self._crypto.holdings.drain_closed()
        self._options.positions.drain_closed()
        self._trades = state.trades
