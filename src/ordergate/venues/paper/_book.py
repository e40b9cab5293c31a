"""The paper broker's book: its orders and fills, kept in the ledger's ``paper_orders`` and
``paper_fills`` tables, and each account's holdings in ``paper_positions``.

Rules:

- All state is in the database, nothing only in memory: any number of ``PaperBook``s, in
  any number of processes on the same ledger, see one paper broker.
- Every write is one write transaction that takes the book's write lock first (SQLite:
  ``BEGIN IMMEDIATE``; Postgres: one transaction-scoped advisory lock), so a read-then-write
  (the buying-power check before an order, the "still open?" check before a fill) never
  interleaves with another process's.
- A fill and its order's state change are written together: an order is never ``filled``
  without its fill, nor has a fill while open. An order that is no longer open is never
  filled (a second poller finds it filled, a cancel that won finds it cancelled).
- The book never lets the paper account go short or below zero cash: a fill that would is
  refused and the order is ``rejected`` with the reason (fail closed).
- Each account starts with ``starting_cash``; cash is that minus what its buy fills cost plus
  what its sell fills brought. Positions are signed share counts from the fills.
- Both are kept per account and symbol in ``paper_positions`` (shares, and the net cash the
  symbol's fills cost), updated in each fill's own transaction: reading an account costs the
  symbols it ever traded (its primary key), never its history of fills.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, Engine, String, bindparam, insert, select, text, update

from ordergate.core import (
    ZERO,
    Clock,
    MarketHours,
    OrderState,
    OrderType,
    Side,
    TimeInForce,
    to_wire,
)
from ordergate.policy import Proposal
from ordergate.store import Statement, iso, parse_iso, reading, write_transaction
from ordergate.venues import BrokerFill, BrokerOrder, BrokerRefusal, Ticket
from ordergate.venues.paper._pnl import PaperFill, account_fills
from ordergate.venues.paper._schema import paper_fills, paper_orders, paper_positions

__all__ = ["PaperAccount", "PaperBook", "PaperOrder"]

# Every paper-book write on Postgres holds this advisory lock until it commits.
_PG_BOOK_LOCK = 7707707702
_OPEN_STATES = (OrderState.QUEUED.value, OrderState.CONFIRMED.value)

# The book's statements, built once and run on the driver's cursor (``Statement``): the
# order path runs about a dozen of them per paper order.
_KEY = bindparam("b_key", type_=String)
_ACCOUNT = bindparam("b_account", type_=String)
_ORDER_BY_ID = Statement(select(paper_orders).where(paper_orders.c.order_id == _KEY))
_ORDER_BY_REF = Statement(select(paper_orders).where(paper_orders.c.ref_id == _KEY))
_OPEN_ORDERS = Statement(
    select(paper_orders)
    .where(paper_orders.c.account == _ACCOUNT, paper_orders.c.state.in_(_OPEN_STATES))
    .order_by(paper_orders.c.created_at, paper_orders.c.order_id)
)
_FILLS_OF = Statement(
    select(paper_fills)
    .where(paper_fills.c.order_id == _KEY)
    .order_by(paper_fills.c.executed_at, paper_fills.c.id)
)
# Cash and positions both come from an account's holdings: one read for the two.
_HOLDINGS = Statement(
    select(paper_positions.c.symbol, paper_positions.c.quantity, paper_positions.c.cost).where(
        paper_positions.c.account == _ACCOUNT
    )
)
_HOLDING_KEY = (
    paper_positions.c.account == _ACCOUNT,
    paper_positions.c.symbol == bindparam("b_symbol"),
)
_SET_HOLDING = Statement(update(paper_positions).where(*_HOLDING_KEY))
_UPDATE_ORDER = Statement(update(paper_orders).where(paper_orders.c.order_id == _KEY))
_BOOK_LOCK = Statement(text("SELECT pg_advisory_xact_lock(:key)"))
_INSERT_ORDER = Statement(insert(paper_orders))
_INSERT_FILL = Statement(insert(paper_fills))
_INSERT_HOLDING = Statement(insert(paper_positions))


@dataclass(frozen=True, slots=True)
class PaperOrder:
    """A paper order as the book holds it: the proposal as placed, its state and its fills."""

    order_id: str
    ref_id: UUID
    account: str
    proposal: Proposal
    state: OrderState
    triggered: bool
    reject_reason: str | None
    created_at: datetime
    updated_at: datetime
    fills: tuple[BrokerFill, ...] = ()

    @property
    def symbol(self) -> str:
        return self.proposal.symbol

    @property
    def side(self) -> Side:
        return self.proposal.side

    @property
    def open(self) -> bool:
        return not self.state.is_terminal

    @property
    def filled_quantity(self) -> Decimal:
        return sum((fill.quantity for fill in self.fills), ZERO)

    def broker_order(self) -> BrokerOrder:
        """The order as a broker reports it (a dollar order's quantity once it filled)."""
        filled = self.filled_quantity
        average = None
        if filled > 0:
            average = sum((fill.quantity * fill.price for fill in self.fills), ZERO) / filled
        quantity = self.proposal.quantity
        if quantity is None and self.fills:
            quantity = filled
        return BrokerOrder(
            order_id=self.order_id,
            ref_id=self.ref_id,
            symbol=self.symbol,
            side=self.side,
            state=self.state,
            quantity=quantity,
            cumulative_quantity=filled,
            average_price=average,
            fills=self.fills,
            reject_reason=self.reject_reason,
        )


@dataclass(frozen=True, slots=True)
class PaperAccount:
    """One paper account now: cash, signed share positions (zeros left out), open orders."""

    account: str
    cash: Decimal
    positions: dict[str, Decimal]
    open_orders: tuple[PaperOrder, ...]


class PaperBook:
    """The paper broker's persistent state on a ledger's engine."""

    def __init__(self, engine: Engine, *, clock: Clock, starting_cash: Decimal) -> None:
        if not isinstance(starting_cash, Decimal) or not starting_cash.is_finite():
            raise ValueError("starting_cash must be a finite Decimal")
        if starting_cash < 0:
            raise ValueError("starting_cash must not be negative")
        self._engine = engine
        self._clock = clock
        self._starting_cash = starting_cash

    # Reads -------------------------------------------------------------------------------

    def order(self, order_id: str) -> PaperOrder | None:
        """The order with its fills, or ``None``."""
        with reading(self._engine) as connection:
            return _read_order(connection, _ORDER_BY_ID, order_id)

    def placed(
        self, ref_id: UUID, account: str
    ) -> tuple[PaperOrder | None, tuple[PaperOrder, ...]]:
        """The order placed under ``ref_id`` (or ``None``) and ``account``'s open orders, read
        together (what placing an order looks at before it prices and records it)."""
        with reading(self._engine) as connection:
            existing = _read_order(connection, _ORDER_BY_REF, str(ref_id))
            return existing, _open_orders(connection, account)

    def order_by_ref(self, ref_id: UUID) -> PaperOrder | None:
        """The order placed under ``ref_id``, or ``None``."""
        with reading(self._engine) as connection:
            return _read_order(connection, _ORDER_BY_REF, str(ref_id))

    def open_orders(self, account: str) -> tuple[PaperOrder, ...]:
        """The account's open orders, oldest first."""
        with reading(self._engine) as connection:
            return _open_orders(connection, account)

    def positions(self, account: str) -> dict[str, Decimal]:
        """Signed shares per symbol from the fills (buys add, sells subtract); zeros left out."""
        with reading(self._engine) as connection:
            return _positions(connection, account)

    def holdings(self, account: str) -> dict[str, tuple[Decimal, Decimal]]:
        """Per symbol held, ``(shares, net cost)``: the signed shares and what the symbol's
        fills cost net (buys' cost minus sells' proceeds); zero holdings left out. Read from
        ``paper_positions`` by its primary key (account, symbol), never from the fills."""
        with reading(self._engine) as connection:
            held = _holdings(connection, account)
        return {symbol: held[symbol] for symbol in sorted(held) if held[symbol][0] != 0}

    @property
    def clock(self) -> Clock:
        """The book's (market) clock: what "now" is for its orders and fills."""
        return self._clock

    def fills(self, account: str) -> tuple[PaperFill, ...]:
        """The account's fills in execution order (``_paper_pnl``: for realised P&L)."""
        return account_fills(self._engine, account)

    def cash(self, account: str) -> Decimal:
        """``starting_cash`` − what buy fills cost + what sell fills brought."""
        with reading(self._engine) as connection:
            return self._cash(connection, account)

    def account(self, account: str) -> PaperAccount:
        """Cash, positions and open orders, read together."""
        with reading(self._engine) as connection:
            return self._account(connection, account)

    # Writes ------------------------------------------------------------------------------

    def add_order(
        self,
        ticket: Ticket,
        order_id: str,
        *,
        admit: Callable[[PaperAccount], None] | None = None,
    ) -> tuple[PaperOrder, bool]:
        """Record ``ticket`` as a queued order; ``(order, True)``.

        A ``ref_id`` already in the book is not an error: ``(that order, False)``, nothing
        written. ``admit`` sees the account inside the write transaction and raises (a
        ``BrokerRefusal``) to refuse; then nothing is written.
        """
        proposal = ticket.proposal
        with self._writing() as connection:
            existing = _read_order(connection, _ORDER_BY_REF, str(ticket.ref_id))
            if existing is not None:
                return existing, False
            if admit is not None:
                admit(self._account(connection, ticket.account))
            row = {
                "order_id": order_id,
                "ref_id": str(ticket.ref_id),
                "account": ticket.account,
                "symbol": proposal.symbol,
                "side": proposal.side.value,
                "type": proposal.order_type.value,
                "quantity": _wire(proposal.quantity),
                "dollar_amount": _wire(proposal.notional),
                "limit_price": _wire(proposal.limit_price),
                "stop_price": _wire(proposal.stop_price),
                "time_in_force": proposal.time_in_force.value,
                "market_hours": proposal.market_hours.value,
                "state": OrderState.QUEUED.value,
                "triggered": False,
                "reject_reason": None,
                "created_at": iso(self._clock.now()),
            }
            row["updated_at"] = row["created_at"]
            _INSERT_ORDER.run(connection, row)
        # The order as written: what reading it back would give.
        return _order_of(SimpleNamespace(**row), ()), True

    def set_state(
        self, order_id: str, state: OrderState, *, reject_reason: str | None = None
    ) -> PaperOrder:
        """Move an open order to ``state``. ``BrokerRefusal``: ``order_not_found``, or
        ``order_not_open`` when it is already terminal (it is left as it is)."""
        with self._writing() as connection:
            order = _open_order(connection, order_id)
            return _update(connection, order, self._clock.now(), state=state, reason=reject_reason)

    def mark_triggered(self, order_id: str) -> PaperOrder:
        """Remember that an open stop order's stop was crossed (same refusals as
        ``set_state``)."""
        with self._writing() as connection:
            order = _open_order(connection, order_id)
            return _update(connection, order, self._clock.now(), triggered=True)

    def add_fill(
        self, order_id: str, *, quantity: Decimal, price: Decimal, triggered: bool = False
    ) -> PaperOrder:
        """Fill an open order whole at ``price``, in one transaction with its ``filled`` state.

        The fill's id is ``f"{order_id}-{n}"`` (n counts the order's fills from 1). A buy the
        cash does not cover, a sell of more than is held, or a quantity that is not positive
        is not filled: the order becomes ``rejected`` with the reason. Same refusals as
        ``set_state`` for a missing or terminal order.
        """
        now = self._clock.now()
        with self._writing() as connection:
            order = _open_order(connection, order_id)
            # One read of the account's holdings gives its cash and the symbol's holding.
            held = _holdings(connection, order.account)
            reason = None
            if quantity <= 0:
                reason = "quantity_too_small"
            elif order.side is Side.BUY and quantity * price > self._cash_of(held):
                reason = "insufficient_buying_power"
            elif order.side is Side.SELL and quantity > held.get(order.symbol, (ZERO, ZERO))[0]:
                reason = "insufficient_shares"
            if reason is not None:
                return _update(connection, order, now, state=OrderState.REJECTED, reason=reason)
            fill = BrokerFill(
                id=f"{order_id}-{len(order.fills) + 1}",
                quantity=quantity,
                price=price,
                executed_at=parse_iso(iso(now)),  # as it reads back
            )
            _INSERT_FILL.run(
                connection,
                {
                    "id": fill.id,
                    "order_id": order_id,
                    "account": order.account,
                    "symbol": order.symbol,
                    "side": order.side.value,
                    "quantity": to_wire(quantity),
                    "price": to_wire(price),
                    "executed_at": iso(now),
                },
            )
            _hold(connection, order, held.get(order.symbol), quantity, price)
            return _update(
                connection,
                order,
                now,
                state=OrderState.FILLED,
                triggered=order.triggered or triggered,
                fill=fill,
            )

    @contextmanager
    def writing(self, *, durable: bool = True) -> Iterator[None]:
        """One write transaction for several of the book's writes made inside the block in
        this thread (an order and its fill): they join it and commit together, or not at
        all (see ``ordergate.store.write_transaction``). Never hold it across an await.

        ``durable=False``: the book is the paper venue, and its order is written after the
        filing was committed (flushed): see ``write_transaction``."""
        with self._writing(durable=durable):
            yield

    # Internals ---------------------------------------------------------------------------

    @contextmanager
    def _writing(self, *, durable: bool = True) -> Iterator[Connection]:
        with write_transaction(self._engine, durable=durable) as connection:
            if self._engine.dialect.name == "postgresql":
                _BOOK_LOCK.run(connection, {"key": _PG_BOOK_LOCK})
            yield connection

    def _cash(self, connection: Connection, account: str) -> Decimal:
        return self._cash_of(_holdings(connection, account))

    def _cash_of(self, held: dict[str, tuple[Decimal, Decimal]]) -> Decimal:
        return self._starting_cash - sum((cost for _, cost in held.values()), ZERO)

    def _account(self, connection: Connection, account: str) -> PaperAccount:
        held = _holdings(connection, account)
        return PaperAccount(
            account=account,
            cash=self._cash_of(held),
            positions=_shares(held),
            open_orders=_open_orders(connection, account),
        )


def _wire(value: Decimal | None) -> str | None:
    return None if value is None else to_wire(value)


def _decimal(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _holdings(connection: Connection, account: str) -> dict[str, tuple[Decimal, Decimal]]:
    """Per symbol the account ever held: ``(signed shares, net cost)``, zeros included."""
    rows = _HOLDINGS.rows(connection, {"b_account": account})
    return {row.symbol: (Decimal(row.quantity), Decimal(row.cost)) for row in rows}


def _shares(held: dict[str, tuple[Decimal, Decimal]]) -> dict[str, Decimal]:
    """Signed shares per symbol held, sorted by symbol; zeros left out."""
    return {symbol: held[symbol][0] for symbol in sorted(held) if held[symbol][0] != 0}


def _positions(connection: Connection, account: str) -> dict[str, Decimal]:
    return _shares(_holdings(connection, account))


def _hold(
    connection: Connection,
    order: PaperOrder,
    holding: tuple[Decimal, Decimal] | None,
    quantity: Decimal,
    price: Decimal,
) -> None:
    """Add a fill to its account's holding of the symbol (``holding`` as read in the fill's
    transaction, ``None`` when the account never held it)."""
    sign = 1 if order.side is Side.BUY else -1
    shares, cost = (ZERO, ZERO) if holding is None else holding
    values = {
        "quantity": to_wire(shares + sign * quantity),
        "cost": to_wire(cost + sign * quantity * price),
    }
    if holding is None:
        _INSERT_HOLDING.run(
            connection, {"account": order.account, "symbol": order.symbol, **values}
        )
    else:
        key = {"b_account": order.account, "b_symbol": order.symbol}
        _SET_HOLDING.run(connection, {**key, **values})


def _open_orders(connection: Connection, account: str) -> tuple[PaperOrder, ...]:
    rows = _OPEN_ORDERS.rows(connection, {"b_account": account})
    return tuple(_order(connection, row) for row in rows)


def _read_order(connection: Connection, statement: Statement, key: str) -> PaperOrder | None:
    row = statement.first(connection, {"b_key": key})
    return None if row is None else _order(connection, row)


def _open_order(connection: Connection, order_id: str) -> PaperOrder:
    order = _read_order(connection, _ORDER_BY_ID, order_id)
    if order is None:
        raise BrokerRefusal("order_not_found", order_id)
    if not order.open:
        raise BrokerRefusal("order_not_open", f"{order_id} is {order.state.value}")
    return order


def _update(
    connection: Connection,
    order: PaperOrder,
    now: datetime,
    *,
    state: OrderState | None = None,
    reason: str | None = None,
    triggered: bool | None = None,
    fill: BrokerFill | None = None,
) -> PaperOrder:
    """Write the order's changes; the order as it now stands (``fill`` added to its fills)."""
    values: dict[str, object] = {"updated_at": iso(now)}
    if state is not None:
        values["state"] = state.value
    if reason is not None:
        values["reject_reason"] = reason
    if triggered is not None:
        values["triggered"] = triggered
    _UPDATE_ORDER.run(connection, {"b_key": order.order_id, **values})
    return replace(
        order,
        state=order.state if state is None else state,
        reject_reason=order.reject_reason if reason is None else reason,
        triggered=order.triggered if triggered is None else triggered,
        # ``iso`` keeps microseconds: the time as it reads back.
        updated_at=parse_iso(str(values["updated_at"])),
        fills=order.fills if fill is None else (*order.fills, fill),
    )


def _order(connection: Connection, row: Any) -> PaperOrder:
    fills = _FILLS_OF.rows(connection, {"b_key": row.order_id})
    return _order_of(
        row,
        tuple(
            BrokerFill(
                id=fill.id,
                quantity=Decimal(fill.quantity),
                price=Decimal(fill.price),
                executed_at=parse_iso(fill.executed_at),
            )
            for fill in fills
        ),
    )


def _order_of(row: Any, fills: tuple[BrokerFill, ...]) -> PaperOrder:
    proposal = Proposal(
        symbol=row.symbol,
        side=Side(row.side),
        quantity=_decimal(row.quantity),
        notional=_decimal(row.dollar_amount),
        order_type=OrderType(row.type),
        limit_price=_decimal(row.limit_price),
        stop_price=_decimal(row.stop_price),
        time_in_force=TimeInForce(row.time_in_force),
        market_hours=MarketHours(row.market_hours),
        account=row.account,
    )
    return PaperOrder(
        order_id=row.order_id,
        ref_id=UUID(row.ref_id),
        account=row.account,
        proposal=proposal,
        state=OrderState(row.state),
        triggered=bool(row.triggered),
        reject_reason=row.reject_reason,
        created_at=parse_iso(row.created_at),
        updated_at=parse_iso(row.updated_at),
        fills=fills,
    )
