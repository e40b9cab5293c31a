"""The parts of a venue's lane (``_venue``): an ``OrderExecutor``, an ``AccountReader`` and a
``QuoteSource``, and the plain values they speak.

The guard never touches a client, a simulator or a book directly; it speaks these protocols
with plain values, so the same order path serves paper and live, the gateway, the library
and the command line.

- A ``Ticket`` is the filing's own order: its id (the broker's ``ref_id``), the account, and
  the ``Proposal`` exactly as filed. Nothing else is ever sent.
- ``OrderExecutor.review`` prices a ticket (the terms stage B runs on) and places nothing;
  ``place`` sends it and answers what the broker said, never a fill it did not report;
  ``lookup`` finds an order by ``ref_id`` (after an unanswered place or a crash); ``poll``
  reads an order by the broker's id; ``cancel`` asks to cancel.
- ``NoAnswer`` is the one exception meaning "the order may be live": a timeout, a reset, an
  unreadable answer to ``place``. Any other exception from ``place`` is a refusal the broker
  gave (the order is not live).
- ``AccountReader.read`` is the broker's side of the world for one decision: equity, cash,
  buying power, positions, open orders (with their ``ref_id``), the symbol's quote and
  tradability. Every field may be missing; the engine refuses on what it needs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable
from uuid import UUID

from ordergate.core import OrdergateError, OrderState, Side, to_wire
from ordergate.policy import Position, Proposal, Quote, Terms

__all__ = [
    "AccountReader",
    "AccountView",
    "BrokerFill",
    "BrokerOrder",
    "BrokerRefusal",
    "NoAnswer",
    "OrderExecutor",
    "Placement",
    "QuoteSource",
    "Review",
    "Ticket",
]


@dataclass(frozen=True, slots=True)
class Ticket:
    """The filing's order: ``ref_id`` is the filing's UUID, sent as the broker's ``ref_id``."""

    ref_id: UUID
    account: str
    proposal: Proposal


@dataclass(frozen=True, slots=True)
class Review:
    """The broker's priced view of a ticket (stage B runs on ``terms`` and ``quote``).

    ``checks_passed`` is the broker's own verdict on the order (``None`` when it gave none);
    ``broker_approval_required`` says the broker will ask the person to approve it.
    """

    terms: Terms
    quote: Quote | None
    checks_passed: bool | None = None
    broker_approval_required: bool = False


@dataclass(frozen=True, slots=True)
class BrokerFill:
    """One execution as the broker reported it."""

    id: str
    quantity: Decimal
    price: Decimal
    executed_at: datetime


@dataclass(frozen=True, slots=True)
class BrokerOrder:
    """An order as the broker last reported it. ``state`` is an ``OrderState`` when known and
    the broker's text otherwise (an unknown state counts as open)."""

    order_id: str
    ref_id: UUID | None
    symbol: str
    side: Side
    state: OrderState | str
    quantity: Decimal | None
    cumulative_quantity: Decimal
    average_price: Decimal | None
    fills: tuple[BrokerFill, ...] = ()
    reject_reason: str | None = None

    @property
    def terminal(self) -> bool:
        return isinstance(self.state, OrderState) and self.state.is_terminal

    @property
    def filled_notional(self) -> Decimal:
        """What the reported fills add up to, in USD."""
        return sum((fill.quantity * fill.price for fill in self.fills), Decimal(0))


@dataclass(frozen=True, slots=True)
class Placement:
    """What ``place`` answered: the order, or that the broker holds it for the person's
    approval (``order`` may then be ``None``)."""

    order: BrokerOrder | None
    awaiting_broker_approval: bool = False


class NoAnswer(OrdergateError):
    """The broker gave no usable answer: the order may be live. Look it up by ``ref_id``."""


class BrokerRefusal(OrdergateError):
    """The broker refused the request; nothing is live. ``code`` is the broker's reason."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code


@runtime_checkable
class OrderExecutor(Protocol):
    """Review, place, look up, poll and cancel equity orders (paper or live)."""

    @property
    def paper(self) -> bool:
        """True when nothing reaches a real market."""
        ...

    async def review(self, ticket: Ticket) -> Review:
        """Price ``ticket``; places nothing. ``NoAnswer`` or ``BrokerRefusal`` on failure."""
        ...

    async def place(self, ticket: Ticket) -> Placement:
        """Send ``ticket`` under its ``ref_id``. ``NoAnswer``: it may be live;
        ``BrokerRefusal``: it is not."""
        ...

    async def lookup(self, ticket: Ticket, *, since: datetime) -> BrokerOrder | None:
        """The broker's order with ``ticket.ref_id`` created at or after ``since``, or
        ``None`` when the broker has none. ``NoAnswer`` when it cannot tell."""
        ...

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        """The order as the broker reports it now. ``NoAnswer`` when it cannot tell."""
        ...

    async def cancel(self, account: str, order_id: str) -> None:
        """Ask to cancel. ``BrokerRefusal`` when refused, ``NoAnswer`` when unanswered."""
        ...


@dataclass(frozen=True, slots=True)
class AccountView:
    """The broker's side of the state for one decision; ``None`` is unknown (fail closed).

    ``open_orders`` are every open order at the broker, ours or not (``ref_id`` tells which).
    """

    equity: Decimal | None = None
    cash: Decimal | None = None
    buying_power: Decimal | None = None
    positions: Mapping[str, Position] | None = None
    open_orders: tuple[BrokerOrder, ...] | None = None
    quote: Quote | None = None
    tradable: bool | None = None
    notes: tuple[str, ...] = field(default=())

    def account_wire(self, *, paper: bool) -> dict[str, Any]:
        """The account part as people are shown it (``ordergate status``, the console): exact
        Decimal strings, ``None`` for what could not be read (``notes`` say why)."""
        positions = None
        if self.positions is not None:
            positions = [
                {
                    "symbol": symbol,
                    "quantity": to_wire(held.quantity),
                    "market_value": to_wire(held.market_value),
                }
                for symbol, held in sorted(self.positions.items())
            ]
        return {
            "source": "paper book" if paper else "broker",
            "cash": _exact(self.cash),
            "buying_power": _exact(self.buying_power),
            "equity": _exact(self.equity),
            "positions": positions,
            "notes": list(self.notes),
        }


def _exact(value: Decimal | None) -> str | None:
    return None if value is None else to_wire(value)


@runtime_checkable
class AccountReader(Protocol):
    """Reads the account and one symbol's market for a decision."""

    async def read(
        self,
        account: str,
        symbol: str | None,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> AccountView:
        """Never raises for a failed read: the missing part is ``None``. ``quote`` is the
        symbol's quote the decision already read: it is the view's quote, not read a second
        time. ``quote_from`` gives it later (stage B: the review under way, which answers
        the quote it reviewed on, or ``None``, and never raises): the rest is read
        meanwhile."""
        ...


@runtime_checkable
class QuoteSource(Protocol):
    """Live quotes and tradability for the paper executor and the paper account."""

    async def quote(self, symbol: str) -> Quote | None:
        """The symbol's quote now, or ``None`` when there is none (never raises)."""
        ...

    async def tradable(self, account: str, symbol: str) -> bool | None:
        """Whether the account may trade the symbol; ``None`` when unknown (never raises)."""
        ...
