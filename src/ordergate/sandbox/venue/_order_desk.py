"""What every order desk (equity, options, crypto) does the same way.

- Placing: a ``ref_id`` must be a UUID, and the same one from the same account returns what
  it returned the first time; an order short of buying power is refused
  (``INSUFFICIENT_BUYING_POWER``); then, while the account holder must approve trades, an
  approval is filed, else the order is accepted. An accepted order takes the next forced
  rejection (``faults.reject_orders``) with it, to show when it would have confirmed.
- Reading an account's orders (newest first) and approvals; cancelling an open order.
- ``sync(now)`` walks each open order forward, in the order orders were placed: ``queued``
  until its ``confirm_at``, then ``confirmed`` (or ``rejected``); from ``FILL_INTERVAL``
  later it is looked at against the market of that instant, at least ``FILL_INTERVAL`` apart
  and only while its market is open, until it ends or its ``expires_at`` cancels it. A long
  clock step is covered in at most ``max_looks`` looks per order, so jumping a week costs
  the same as jumping a minute.

What the asset classes do differently stays with each desk: the terms and their rules,
when an order confirms and expires, what a look fills, what it holds of buying power.

A desk keeps its ended orders in memory unless it is given an ``EndedOrders`` archive: then
``evict_ended`` hands them over (the caller stores them) and every read of an ended order,
by id, by ``ref_id`` or in a listing, asks the archive, so memory holds open orders only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from ordergate.core import OrderState
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._accounts import Account
from ordergate.sandbox.venue._faults import Faults
from ordergate.sandbox.venue._order_model import Approval, Order, Terms
from ordergate.sandbox.venue._order_rules import ref_id_of
from ordergate.sandbox.venue._positions import cents

if TYPE_CHECKING:
    from ordergate.sandbox.venue._venue import Venue

__all__ = [
    "APPROVAL_TTL",
    "CONFIRM_DELAY",
    "FILL_INTERVAL",
    "ORDER_LIFECYCLE",
    "Checked",
    "EndedOrders",
    "Lifecycle",
    "OrderDesk",
    "desk_of",
    "find_desk",
]

CONFIRM_DELAY = timedelta(seconds=1)
FILL_INTERVAL = timedelta(seconds=1)
APPROVAL_TTL = timedelta(hours=24)

TermsT = TypeVar("TermsT", bound=Terms)
TermsT_co = TypeVar("TermsT_co", bound=Terms, covariant=True)
OrderT = TypeVar("OrderT", bound="Order[Any, Any, Any]")
DeskT = TypeVar("DeskT")


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """The states a desk's orders move through, as its asset class spells them."""

    queued: StrEnum
    confirmed: StrEnum
    rejected: StrEnum
    cancelled: StrEnum


ORDER_LIFECYCLE = Lifecycle(
    queued=OrderState.QUEUED,
    confirmed=OrderState.CONFIRMED,
    rejected=OrderState.REJECTED,
    cancelled=OrderState.CANCELLED,
)
"""Equity and option orders (crypto spells its states its own way)."""


class Checked(Protocol[TermsT_co]):
    """A review or preview of terms that passed every rule of the desk."""

    @property
    def terms(self) -> TermsT_co: ...

    @property
    def required(self) -> Decimal: ...

    @property
    def buying_power(self) -> Decimal: ...

    @property
    def buying_power_ok(self) -> bool: ...


class EndedOrders(Protocol[OrderT]):
    """Where a desk's ended orders are read back from once evicted from memory."""

    def order(self, account_number: str, order_id: str) -> OrderT | None:
        """The account's ended order ``order_id``, or ``None``."""
        ...

    def by_ref(self, account_number: str, ref_id: str) -> OrderT | None:
        """The account's ended order placed with ``ref_id`` (lower case), or ``None``."""
        ...

    def orders(self, account_number: str) -> list[OrderT]:
        """The account's ended orders, in any order."""
        ...


class OrderDesk(ABC, Generic[OrderT, TermsT]):
    """Orders and approvals of one asset class for every account of the venue.

    ``kind`` names the desk in ids (``{kind}-order``), buying-power holds (``{kind}:{id}``)
    and messages.
    """

    kind: ClassVar[str]
    lifecycle: ClassVar[Lifecycle]
    max_looks: ClassVar[int] = 500
    account_field: ClassVar[str] = "account_number"
    blank_ref_id_is_absent: ClassVar[bool] = True

    def __init__(self, venue: Venue) -> None:
        self._venue = venue
        self._orders: dict[str, OrderT] = {}
        self._by_ref: dict[tuple[str, str], OrderT | Approval[TermsT]] = {}
        self._approvals: dict[str, Approval[TermsT]] = {}
        self.sequence = 0
        """How many orders the desk has accepted: the next order's ``sequence``."""
        self.archive: EndedOrders[OrderT] | None = None

    # -- what each desk does its own way ---------------------------------------------------

    @abstractmethod
    def _check(self, args: Mapping[str, Any]) -> Checked[TermsT]:
        """Check an order request against every rule without placing anything."""
        raise NotImplementedError

    @abstractmethod
    def _open(
        self,
        terms: TermsT,
        *,
        order_id: str,
        ref_id: str,
        now: datetime,
        doomed_reason: str | None,
        sequence: int,
    ) -> OrderT:
        """The order accepted on ``terms``, with its confirmation and expiry instants."""
        raise NotImplementedError

    @abstractmethod
    def _held_for(self, terms: TermsT) -> Decimal | None:
        """Buying power an order on ``terms`` holds from its acceptance (``None``: none)."""
        raise NotImplementedError

    @abstractmethod
    def _look(self, order: OrderT, at: datetime) -> None:
        """Look at the market for ``order`` at ``at``, executing what it allows."""
        raise NotImplementedError

    def _tradable(self, number: str) -> Account:
        return self._venue.accounts.tradable(number)

    def _short_field(self, terms: TermsT) -> str:
        """The argument named when an order on ``terms`` is short of buying power."""
        return "quantity"

    def _opens_at(self, order: OrderT, at: datetime) -> datetime:
        """When the order's market is next open, at or after ``at`` (crypto: always open)."""
        return at

    def _cancelled_state(self, order: OrderT) -> StrEnum:
        return self.lifecycle.cancelled

    def _expired_at(self, order: OrderT, ends: datetime) -> datetime:
        """When an order still open at its ``expires_at`` (``ends``) is cancelled."""
        # An order confirmed just after its day ended expires at its confirmation.
        return max(ends, order.confirm_at)

    # -- reading ---------------------------------------------------------------------------

    def find(self, account_number: str, order_id: str) -> OrderT | None:
        """The account's order ``order_id`` (open, or ended and kept), ``None`` if none."""
        order = self._orders.get(order_id)
        if order is None and self.archive is not None:
            order = self.archive.order(account_number, order_id)
        if order is None or order.account_number != account_number:
            return None
        return order

    def order(self, account_number: str, order_id: str) -> OrderT:
        order = self.find(account_number, order_id)
        if order is None:
            raise VenueError("NOT_FOUND", f"no {self.kind} order {order_id}", field="order_id")
        return order

    def placed_by_ref(self, account_number: str, ref_id: str) -> OrderT | Approval[TermsT] | None:
        """What the account placed with ``ref_id`` (any case): an order, open or ended and
        kept, or an approval; ``None`` if nothing."""
        key = (account_number, ref_id.lower())
        earlier = self._by_ref.get(key)
        if earlier is None and self.archive is not None:
            earlier = self.archive.by_ref(*key)
        return earlier

    def by_ref(self, account_number: str, ref_id: str) -> OrderT | None:
        """The account's order placed with ``ref_id`` (any case), ``None`` if none."""
        placed = self.placed_by_ref(account_number, ref_id)
        return None if isinstance(placed, Approval) else placed

    def listed(self, account_number: str, order_id: object = None) -> list[OrderT]:
        """What a listing of the account's orders looks through, newest first: the one order
        asked for by ``order_id`` (a lookup by key, however long the history), else all."""
        if order_id:
            found = self.find(account_number, str(order_id))
            return [] if found is None else [found]
        return self.orders(account_number)

    def orders(self, account_number: str) -> list[OrderT]:
        """The account's orders, newest first."""
        mine = [o for o in self._orders.values() if o.account_number == account_number]
        if self.archive is not None:
            mine.extend(self.archive.orders(account_number))
        return sorted(mine, key=lambda o: o.sequence, reverse=True)

    def live_orders(self) -> list[OrderT]:
        """Every order in memory (all of them, unless ended ones were evicted), as placed."""
        return sorted(self._orders.values(), key=lambda o: o.sequence)

    def restore(self, orders: list[OrderT], sequence: int) -> None:
        """Replace the orders in memory with ``orders`` (open ones, read back from storage)."""
        self._orders = {o.id: o for o in orders}
        self._by_ref = {(o.account_number, o.ref_id.lower()): o for o in orders}
        self._approvals = {}
        self.sequence = sequence

    def evict_ended(self) -> list[OrderT]:
        """Take the ended orders out of memory, for the caller to store in the archive."""
        ended = [o for o in self.live_orders() if not o.is_open]
        for order in ended:
            del self._orders[order.id]
            self._by_ref.pop((order.account_number, order.ref_id.lower()), None)
        return ended

    def approvals(self, account_number: str) -> list[Approval[TermsT]]:
        return [a for a in self._approvals.values() if a.terms.account_number == account_number]

    def open_orders(self, account_number: str) -> list[OrderT]:
        """The account's orders still working, in the order they were placed."""
        return [
            o for o in self._orders.values() if o.is_open and o.account_number == account_number
        ]

    # -- placing ---------------------------------------------------------------------------

    def place(self, args: Mapping[str, Any]) -> OrderT | Approval[TermsT]:
        """Place an order (or file it for approval); the same ``ref_id`` returns the same."""
        account = self._tradable(str(args[self.account_field]))
        ref_id = ref_id_of(args, blank_is_absent=self.blank_ref_id_is_absent)
        if ref_id is not None:
            earlier = self.placed_by_ref(account.account_number, ref_id)
            if earlier is not None:
                return earlier
        checked = self._check(args)
        if not checked.buying_power_ok:
            raise VenueError(
                "INSUFFICIENT_BUYING_POWER",
                f"this order needs {checked.required} of buying power; "
                f"{cents(checked.buying_power)} is available",
                field=self._short_field(checked.terms),
            )
        ids = self._venue.ids
        ref_id = ref_id or ids.next(f"{self.kind}-ref")
        now = self._venue.now()
        placed: OrderT | Approval[TermsT]
        if account.human_must_approve_trades:
            placed = Approval(
                approval_id=ids.next(f"{self.kind}-approval"),
                ref_id=ref_id,
                terms=checked.terms,
                created_at=now,
                expires_at=now + APPROVAL_TTL,
            )
            self._approvals[placed.approval_id] = placed
        else:
            placed = self._accept(account, checked.terms, ref_id, now)
        self._by_ref[(account.account_number, ref_id.lower())] = placed
        return placed

    def _accept(self, account: Account, terms: TermsT, ref_id: str, now: datetime) -> OrderT:
        faults: Faults = self._venue.faults
        doomed, faults.reject_orders = Faults.take(faults.reject_orders)
        order = self._open(
            terms,
            order_id=self._venue.ids.next(f"{self.kind}-order"),
            ref_id=ref_id,
            now=now,
            doomed_reason=faults.reject_reason if doomed else None,
            sequence=self.sequence,
        )
        self.sequence += 1
        self._orders[order.id] = order
        held = self._held_for(terms)
        if held is not None:
            self._hold(order, held)
        return order

    def _hold(self, order: OrderT, amount: Decimal) -> None:
        self._account(order).hold(f"{self.kind}:{order.id}", cents(amount))

    def _account(self, order: OrderT) -> Account:
        return self._venue.accounts.get(order.account_number)

    # -- cancelling and ending -------------------------------------------------------------

    def cancel(self, number: str, order_id: str) -> OrderT:
        """Cancel an open order; raises ``ORDER_NOT_CANCELLABLE`` once it has ended."""
        account = self._tradable(number)
        order = self.order(account.account_number, order_id)
        if not order.is_open:
            raise VenueError(
                "ORDER_NOT_CANCELLABLE",
                f"order {order_id} is already {order.state}",
                field="order_id",
            )
        self._end(order, self._cancelled_state(order), self._venue.now())
        return order

    def _end(self, order: OrderT, state: StrEnum, at: datetime) -> None:
        """End ``order`` in ``state`` at ``at``, releasing the buying power it held."""
        order.state = state
        order.updated_at = at
        self._account(order).release(f"{self.kind}:{order.id}")

    # -- moving through time ---------------------------------------------------------------

    def idle(self, now: datetime) -> bool:
        """No open order to walk (a desk with more to sync says so too)."""
        return not any(order.is_open for order in self._orders.values())

    def sync(self, now: datetime) -> None:
        for order in sorted(self._orders.values(), key=lambda o: o.sequence):
            if order.is_open:
                self._advance(order, now)

    def _advance(self, order: OrderT, now: datetime) -> None:
        states = self.lifecycle
        if order.state is states.queued:
            if now < order.confirm_at:
                return
            if order.doomed_reason is not None:
                order.reject_reason = order.doomed_reason
                self._end(order, states.rejected, order.confirm_at)
                return
            order.state = states.confirmed
            order.updated_at = order.confirm_at
            order.next_check = order.confirm_at + FILL_INTERVAL
        look = order.next_check
        assert look is not None
        step = max(FILL_INTERVAL, (now - look) / self.max_looks)
        ends = order.expires_at
        while order.is_open and look <= now and (ends is None or look < ends):
            opens_at = self._opens_at(order, look)
            if opens_at > look:
                look = opens_at
                step = max(FILL_INTERVAL, (now - look) / self.max_looks)
                continue
            self._look(order, look)
            look += step
        order.next_check = look
        if order.is_open and ends is not None and now >= ends:
            self._end(order, self._cancelled_state(order), self._expired_at(order, ends))


OrderDeskT = TypeVar("OrderDeskT", bound=OrderDesk[Any, Any])


def find_desk(venue: Venue, desk_type: type[DeskT]) -> DeskT | None:
    """The venue's desk of ``desk_type``, ``None`` when it runs none."""
    for desk in venue.desks:
        if isinstance(desk, desk_type):
            return desk
    return None


def desk_of(venue: Venue, desk_type: type[OrderDeskT]) -> OrderDeskT:
    """The venue's desk of ``desk_type``; ``UNAVAILABLE`` when it runs none."""
    desk = find_desk(venue, desk_type)
    if desk is None:
        raise VenueError("UNAVAILABLE", f"{desk_type.kind} trading is not available on this venue")
    return desk
