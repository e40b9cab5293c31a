"""A broker a test scripts: every fill, cancel, rejection and lost answer happens on demand.

No real venue can be made to produce an arbitrary interleaving of partial fills, cancels,
rejections and unanswered place calls when a test asks, so the wall's property tests drive
this one. ``ScriptedBroker`` is an ``OrderExecutor``: the guard reviews, places, looks up,
polls and cancels through it exactly as it does through the live executor; the test decides
everything else (``fill``, ``end``, ``fault_next``, ``go_quiet``, ``move``).

Rules — what a real broker guarantees and the wall's holds rely on (``_hold.py``):

- a buy never fills above its limit, and a market buy never above 5 % over the ask it was
  reviewed at (Robinhood's collar): every buy carries that ``ceiling`` from ``place``;
- a dollar-amount order never fills for more than its amount;
- no order fills for more than its quantity, and an order that ended never fills again
  (an order that ended keeps the fills it had: ``rejected`` after a partial fill is real);
- an order is only placed after it was reviewed (the review fixes a market buy's ceiling);
- ``place`` is counted per ``ref_id`` (``place_calls``), even when its answer is lost, so a
  test can see that nothing is ever sent twice.

Amounts are Decimals with at most 6 places for quantities and 2 for prices, so every fill's
notional is exact in the ledger's 10⁻⁸ USD units.

``StaticReader`` is the account reader to go with it: the broker's fills, open orders and
quote, over a fixed, ample account; ``scripted_venue`` puts the three behind the port.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_FLOOR, Decimal
from enum import StrEnum
from uuid import UUID

from ordergate.core import Clock, OrderState, OrderType, Side
from ordergate.policy import Position, Proposal, Quote, estimate_terms
from ordergate.venues import (
    AccountView,
    BrokerFill,
    BrokerOrder,
    BrokerRefusal,
    NoAnswer,
    Placement,
    Review,
    Ticket,
)
from ordergate.venues.robinhood import RobinhoodEquity, RobinhoodVenue

__all__ = [
    "Fault",
    "ScriptedBroker",
    "ScriptedOrder",
    "StaticQuotes",
    "StaticReader",
    "scripted_venue",
]

_CENT = Decimal("0.01")
_SHARE = Decimal("0.000001")
_AVERAGE = Decimal("0.00000001")
_ZERO = Decimal(0)
# Robinhood executes a market buy up to 5 % above the ask it was reviewed at, never higher.
MARKET_BUY_COLLAR = Decimal("0.05")


class Fault(StrEnum):
    """What goes wrong with the next order the guard sends."""

    REVIEW_UNANSWERED = "review_unanswered"
    """``review`` raises ``NoAnswer`` (nothing is live)."""
    PLACE_LOST = "place_lost"
    """``place`` raises ``NoAnswer`` and the order never reached the broker."""
    PLACE_LIVE = "place_live"
    """``place`` raises ``NoAnswer`` though the order is live at the broker."""


def _floor(value: Decimal, step: Decimal) -> Decimal:
    return value.quantize(step, rounding=ROUND_FLOOR)


@dataclass(slots=True)
class ScriptedOrder:
    """One order as the scripted broker holds it. ``ceiling`` is the highest price a buy may
    fill at (``None`` for a sell)."""

    order_id: str
    ref_id: UUID
    proposal: Proposal
    created_at: datetime
    ceiling: Decimal | None
    state: OrderState = OrderState.CONFIRMED
    fills: list[BrokerFill] = field(default_factory=list)
    reject_reason: str | None = None

    @property
    def terminal(self) -> bool:
        return self.state.is_terminal

    @property
    def buy(self) -> bool:
        return self.proposal.side is Side.BUY

    @property
    def filled_quantity(self) -> Decimal:
        return sum((fill.quantity for fill in self.fills), _ZERO)

    @property
    def filled_notional(self) -> Decimal:
        return sum((fill.quantity * fill.price for fill in self.fills), _ZERO)

    def report(self) -> BrokerOrder:
        """The order as the broker reports it now."""
        quantity = self.filled_quantity
        return BrokerOrder(
            order_id=self.order_id,
            ref_id=self.ref_id,
            symbol=self.proposal.symbol,
            side=self.proposal.side,
            state=self.state,
            quantity=self.proposal.quantity,
            cumulative_quantity=quantity,
            average_price=(
                (self.filled_notional / quantity).quantize(_AVERAGE) if quantity else None
            ),
            fills=tuple(self.fills),
            reject_reason=self.reject_reason,
        )


class ScriptedBroker:
    """An ``OrderExecutor`` whose market the test moves and whose orders the test fills."""

    def __init__(
        self, clock: Clock, prices: Mapping[str, Decimal], *, half_spread: Decimal = _CENT
    ) -> None:
        self._clock = clock
        self._mids = dict(prices)
        self._half_spread = half_spread
        self._orders: dict[str, ScriptedOrder] = {}
        self._reviewed: dict[UUID, Quote] = {}
        self._fault: Fault | None = None
        self._quiet = 0
        self.place_calls: Counter[UUID] = Counter()
        self.cancel_answer = OrderState.CANCELLED
        """What a cancel request leaves a working order in: ``cancelled`` (or
        ``partially_filled_rest_cancelled`` after a fill), or ``pending_cancelled``."""

    # -- the market ------------------------------------------------------------------------

    def quote(self, symbol: str) -> Quote | None:
        mid = self._mids.get(symbol)
        if mid is None:
            return None
        return Quote(
            symbol=symbol,
            bid=mid - self._half_spread,
            ask=mid + self._half_spread,
            last=mid,
            as_of=self._clock.now(),
        )

    def move(self, symbol: str, mid: Decimal) -> None:
        if mid <= self._half_spread:
            raise ValueError("the mid must stay above the half spread")
        self._mids[symbol] = mid.quantize(_CENT)

    # -- what the test scripts -------------------------------------------------------------

    def fault_next(self, fault: Fault) -> None:
        """Make the next review (or place) fail as ``fault`` says."""
        self._fault = fault

    def go_quiet(self, calls: int) -> None:
        """The next ``calls`` lookups, polls and cancels raise ``NoAnswer``."""
        self._quiet = calls

    def orders(self) -> list[ScriptedOrder]:
        return list(self._orders.values())

    def working(self) -> list[ScriptedOrder]:
        return [order for order in self._orders.values() if not order.terminal]

    def order(self, order_id: str) -> ScriptedOrder:
        return self._orders[order_id]

    def by_ref(self, ref_id: UUID) -> ScriptedOrder | None:
        for order in self._orders.values():
            if order.ref_id == ref_id:
                return order
        return None

    def fill(self, order_id: str, *, fraction: Decimal | None, at_ceiling: bool) -> bool:
        """Fill part (``fraction`` of what remains) or all (``None``) of a working order, at
        the best price the rules allow the broker (``at_ceiling``: the worst for the buyer).
        ``False`` when nothing could be filled (too little remains for one fill)."""
        order = self._orders[order_id]
        if order.terminal:
            raise ValueError("an order that ended never fills again")
        price = self._fill_price(order, at_ceiling=at_ceiling)
        proposal = order.proposal
        if proposal.quantity is not None:
            remaining = proposal.quantity - order.filled_quantity
            quantity = remaining if fraction is None else _floor(remaining * fraction, _SHARE)
        else:
            assert proposal.notional is not None
            amount = proposal.notional - order.filled_notional
            quantity = _floor(amount * (fraction or 1) / price, _SHARE)
        complete = fraction is None
        if quantity > 0:
            order.fills.append(
                BrokerFill(
                    id=f"{order_id}-fill-{len(order.fills) + 1}",
                    quantity=quantity,
                    price=price,
                    executed_at=self._clock.now(),
                )
            )
        if complete:
            order.state = OrderState.FILLED
        elif quantity > 0 and order.state is not OrderState.PENDING_CANCELLED:
            order.state = OrderState.PARTIALLY_FILLED
        self._check(order)
        return quantity > 0

    def end(self, order_id: str, state: OrderState, reason: str | None = None) -> None:
        """End a working order in ``state`` (cancelled, rejected, failed …), keeping its fills."""
        if not state.is_terminal:
            raise ValueError("end an order in a terminal state")
        order = self._orders[order_id]
        if order.terminal:
            raise ValueError("the order has already ended")
        order.state = state
        order.reject_reason = reason

    # -- the account's side ----------------------------------------------------------------

    def positions(self) -> dict[str, Position]:
        held: dict[str, Decimal] = {}
        for order in self._orders.values():
            sign = 1 if order.buy else -1
            symbol = order.proposal.symbol
            held[symbol] = held.get(symbol, _ZERO) + sign * order.filled_quantity
        return {
            symbol: Position(quantity, quantity * self._mids[symbol])
            for symbol, quantity in held.items()
            if quantity != 0
        }

    def open_orders(self) -> tuple[BrokerOrder, ...]:
        return tuple(order.report() for order in self.working())

    # -- OrderExecutor ---------------------------------------------------------------------

    @property
    def paper(self) -> bool:
        return False

    async def review(self, ticket: Ticket) -> Review:
        if self._take(Fault.REVIEW_UNANSWERED):
            raise NoAnswer("review: no answer (scripted)")
        quote = self.quote(ticket.proposal.symbol)
        if quote is None:
            raise BrokerRefusal("unknown_symbol")
        self._reviewed[ticket.ref_id] = quote
        return Review(terms=estimate_terms(ticket.proposal, quote), quote=quote, checks_passed=True)

    async def place(self, ticket: Ticket) -> Placement:
        self.place_calls[ticket.ref_id] += 1
        reviewed = self._reviewed.get(ticket.ref_id)
        if reviewed is None:
            raise AssertionError(f"{ticket.ref_id} was placed without a review")
        if self._take(Fault.PLACE_LOST):
            raise NoAnswer("place: no answer (scripted; the order is not live)")
        order = ScriptedOrder(
            order_id=f"order-{len(self._orders) + 1}",
            ref_id=ticket.ref_id,
            proposal=ticket.proposal,
            created_at=self._clock.now(),
            ceiling=_ceiling(ticket.proposal, reviewed),
        )
        self._orders[order.order_id] = order
        if self._take(Fault.PLACE_LIVE):
            raise NoAnswer("place: no answer (scripted; the order is live)")
        return Placement(order=order.report())

    async def lookup(self, ticket: Ticket, *, since: datetime) -> BrokerOrder | None:
        self._answer("lookup")
        for order in self._orders.values():
            if order.ref_id == ticket.ref_id and order.created_at >= since:
                return order.report()
        return None

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        self._answer("poll")
        order = self._orders.get(order_id)
        if order is None:
            raise BrokerRefusal("order_not_found")
        return order.report()

    async def cancel(self, account: str, order_id: str) -> None:
        self._answer("cancel")
        order = self._orders.get(order_id)
        if order is None:
            raise BrokerRefusal("order_not_found")
        if order.terminal:
            raise BrokerRefusal("order_not_cancellable", f"the order is {order.state}")
        answer = self.cancel_answer
        if answer is OrderState.CANCELLED and order.fills:
            answer = OrderState.PARTIALLY_FILLED_REST_CANCELLED
        order.state = answer

    # -- helpers ---------------------------------------------------------------------------

    def _take(self, fault: Fault) -> bool:
        if self._fault is fault:
            self._fault = None
            return True
        return False

    def _answer(self, call: str) -> None:
        if self._quiet > 0:
            self._quiet -= 1
            raise NoAnswer(f"{call}: no answer (scripted)")

    def _fill_price(self, order: ScriptedOrder, *, at_ceiling: bool) -> Decimal:
        quote = self.quote(order.proposal.symbol)
        assert quote is not None and quote.ask is not None and quote.bid is not None
        if order.ceiling is not None:
            return order.ceiling if at_ceiling else min(quote.ask, order.ceiling)
        limit = order.proposal.limit_price
        return quote.bid if limit is None else max(limit, quote.bid)

    @staticmethod
    def _check(order: ScriptedOrder) -> None:
        proposal = order.proposal
        if proposal.quantity is not None:
            assert order.filled_quantity <= proposal.quantity
        if proposal.notional is not None:
            assert order.filled_notional <= proposal.notional
        if order.ceiling is not None:
            assert all(fill.price <= order.ceiling for fill in order.fills)


def _ceiling(proposal: Proposal, reviewed: Quote) -> Decimal | None:
    """The highest price a buy may fill at: its limit, else 5 % over the reviewed ask."""
    if proposal.side is not Side.BUY:
        return None
    if proposal.order_type in (OrderType.LIMIT, OrderType.STOP_LIMIT):
        assert proposal.limit_price is not None
        return proposal.limit_price
    assert reviewed.ask is not None
    return _floor(reviewed.ask * (1 + MARKET_BUY_COLLAR), _CENT)


class StaticReader:
    """An ``AccountReader`` over a fixed, ample account and the scripted broker's book.

    Equity, cash and buying power are fixed and far above every cap, and the quote is always
    fresh (stamped now) and the symbol tradable: the property this serves is about the spend
    and order caps, so the account rules (cash, concentration, drawdown, stale quotes) must
    never be what stops an order. Positions are the broker's fills (so a sell of what was
    bought reduces a position) and open orders are the broker's working orders (so an order
    that is live at the broker counts, whatever the ledger knows of it).
    """

    EQUITY = Decimal(10_000_000)

    def __init__(self, broker: ScriptedBroker) -> None:
        self._broker = broker

    async def read(
        self,
        account: str,
        symbol: str | None,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> AccountView:
        if quote_from is not None:
            quote = await quote_from
        if quote is None and symbol is not None:
            quote = self._broker.quote(symbol)
        return AccountView(
            equity=self.EQUITY,
            cash=self.EQUITY,
            buying_power=self.EQUITY,
            positions=self._broker.positions(),
            open_orders=self._broker.open_orders(),
            quote=quote,
            tradable=True,
        )


class StaticQuotes:
    """A ``QuoteSource`` over the scripted broker: its quote, and every symbol tradable."""

    def __init__(self, broker: ScriptedBroker) -> None:
        self._broker = broker

    async def quote(self, symbol: str) -> Quote | None:
        return self._broker.quote(symbol)

    async def tradable(self, account: str, symbol: str) -> bool | None:
        return True


def scripted_venue(broker: ScriptedBroker) -> RobinhoodVenue:
    """The scripted broker behind the port, answering as the broker's API does: its orders,
    ``StaticReader``'s account and ``StaticQuotes``."""
    return RobinhoodVenue(RobinhoodEquity(broker, StaticReader(broker), StaticQuotes(broker)))
