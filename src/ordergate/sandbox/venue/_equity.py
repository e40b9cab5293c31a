"""The equity desk: accepts, works, fills, expires and cancels equity orders.

Nothing happens in the background. ``sync(now)`` walks each open order forward through
venue time, in the order orders were placed:

1. ``queued`` → ``confirmed`` (or ``rejected`` under the forced-rejection fault) one
   second after placement;
2. from one second after confirmation, the order is looked at against the quote of that
   instant whenever its ``market_hours`` allow trading, at least a second apart (further
   apart when a long step of the clock has to be covered), each look yielding at most one
   execution (see ``_equity_fills``);
3. a ``gfd`` order still open when its trading day ends is cancelled at that instant.

Buys hold buying power (remaining shares × the held price) until they end; executions move
cash, open a tax lot per buy execution and close lots on sells (``_positions``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import ZERO, OrderState, Side, TimeInForce
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._accounts import Account
from ordergate.sandbox.venue._equity_fills import match, regulatory_fees, stop_triggered
from ordergate.sandbox.venue._equity_market import (
    EquityListing,
    EquityMarket,
    EquityQuote,
    VenueEquityMarket,
    session_window,
)
from ordergate.sandbox.venue._equity_model import (
    EquityApproval,
    EquityOrder,
    Execution,
    OrderTerms,
)
from ordergate.sandbox.venue._equity_rules import Holdings, check_terms
from ordergate.sandbox.venue._faults import Faults
from ordergate.sandbox.venue._positions import ClosedTrade, Positions, TaxLot

if TYPE_CHECKING:
    from ordergate.sandbox.venue._venue import Venue

__all__ = ["CONFIRM_DELAY", "FILL_INTERVAL", "EquityDesk", "OrderReview", "equity_desk"]

CONFIRM_DELAY = timedelta(seconds=1)
FILL_INTERVAL = timedelta(seconds=1)
APPROVAL_TTL = timedelta(hours=24)
# A long clock step is covered in at most this many looks per order, so jumping a week
# costs the same as jumping a minute.
_MAX_LOOKS_PER_SYNC = 500
_CENT = Decimal("0.01")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass(frozen=True, slots=True)
class OrderReview:
    """What ``review_equity_order`` reports about terms that passed every rule."""

    terms: OrderTerms
    quote: EquityQuote
    buying_power: Decimal
    required: Decimal
    estimated_fees: Decimal
    approval_required: bool

    @property
    def buying_power_ok(self) -> bool:
        return self.terms.side is Side.SELL or self.required <= self.buying_power


def _money(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_EVEN)


def _hold_key(order_id: str) -> str:
    return f"equity:{order_id}"


class EquityDesk:
    """Equity orders, positions and realised P&L of every account of the venue."""

    def __init__(self, venue: Venue, *, market: EquityMarket | None = None) -> None:
        self._venue = venue
        self.market: EquityMarket = market or VenueEquityMarket(venue.market)
        self.positions = Positions()
        self._orders: dict[str, EquityOrder] = {}
        self._by_ref: dict[tuple[str, str], EquityOrder | EquityApproval] = {}
        self._approvals: dict[str, EquityApproval] = {}

    # -- reading ---------------------------------------------------------------------------

    def listing(self, symbol: str) -> EquityListing | None:
        return self.market.listing(symbol.strip().upper())

    def order(self, account_number: str, order_id: str) -> EquityOrder:
        order = self._orders.get(order_id)
        if order is None or order.account_number != account_number:
            raise VenueError("NOT_FOUND", f"no equity order {order_id}", field="order_id")
        return order

    def orders(self, account_number: str) -> list[EquityOrder]:
        """The account's orders, newest first."""
        mine = [o for o in self._orders.values() if o.account_number == account_number]
        return sorted(mine, key=lambda o: o.sequence, reverse=True)

    def approvals(self, account_number: str) -> list[EquityApproval]:
        return [a for a in self._approvals.values() if a.terms.account_number == account_number]

    def held_for_sells(self, account_number: str, symbol: str) -> Decimal:
        return sum(
            (
                o.remaining
                for o in self._orders.values()
                if o.is_open
                and o.side is Side.SELL
                and o.account_number == account_number
                and o.symbol == symbol
            ),
            ZERO,
        )

    def held_for_buys(self, account_number: str, symbol: str) -> Decimal:
        return sum(
            (
                o.remaining
                for o in self._orders.values()
                if o.is_open
                and o.side is Side.BUY
                and o.account_number == account_number
                and o.symbol == symbol
            ),
            ZERO,
        )

    def market_value(self, account_number: str) -> Decimal:
        """The account's equity positions at the current last trade prices."""
        now = self._venue.now()
        total = ZERO
        for symbol in self.positions.symbols(account_number):
            quantity = self.positions.quantity(account_number, symbol)
            total += quantity * self.market.quote(symbol, now).last
        return _money(total)

    def portfolio_values(self, account_number: str) -> dict[str, Decimal]:
        """This desk's share of ``get_portfolio``."""
        return {"equity_value": self.market_value(account_number)}

    def closed_trades(self, account_number: str) -> list[ClosedTrade]:
        return self.positions.closed(account_number)

    # -- checking and placing --------------------------------------------------------------

    def _holdings(
        self, account_number: str, symbol: str, *, exclude: str | None = None
    ) -> Holdings:
        reserved: dict[str, Decimal] = {}
        for other in self._orders.values():
            if other.is_open and other.lots_left and other.id != exclude:
                for lot_id, quantity in other.lots_left:
                    reserved[lot_id] = reserved.get(lot_id, ZERO) + quantity
        lots = {
            lot.lot_id: lot.quantity - reserved.get(lot.lot_id, ZERO)
            for lot in self.positions.lots(account_number, symbol)
        }
        shares = self.positions.quantity(account_number, symbol)
        shares -= self.held_for_sells(account_number, symbol)
        # Shares another desk has spoken for (covering a short call, due to a put
        # exercise) are not for sale here.
        for desk in self._venue.desks:
            reserved_shares = getattr(desk, "reserved_shares", None)
            if reserved_shares is not None:
                shares -= reserved_shares(account_number, symbol)
        return Holdings(shares=shares, lots=lots)

    def _terms(self, args: Mapping[str, Any]) -> tuple[Account, OrderTerms]:
        account = self._venue.accounts.tradable(str(args["account_number"]))
        now = self._venue.now()
        terms = check_terms(
            args,
            listing_of=self.market.listing,
            quote_of=lambda symbol: self.market.quote(symbol, now),
            holdings_of=lambda symbol: self._holdings(account.account_number, symbol),
        )
        return account, terms

    def review(self, args: Mapping[str, Any]) -> OrderReview:
        """Check an order request without placing anything."""
        account, terms = self._terms(args)
        quote = self.market.quote(terms.symbol, self._venue.now())
        fees = regulatory_fees(terms.side, terms.estimated_price, terms.quantity)
        return OrderReview(
            terms=terms,
            quote=quote,
            buying_power=account.buying_power,
            required=_money(terms.estimated_cost) if terms.side is Side.BUY else ZERO,
            estimated_fees=fees,
            approval_required=account.human_must_approve_trades,
        )

    def place(self, args: Mapping[str, Any]) -> EquityOrder | EquityApproval:
        """Place an order (or file it for approval); the same ``ref_id`` returns the same."""
        account = self._venue.accounts.tradable(str(args["account_number"]))
        ref_id = args.get("ref_id")
        if ref_id is not None:
            ref_id = str(ref_id)
            if not _UUID.match(ref_id):
                raise VenueError("INVALID_ARGUMENT", "ref_id must be a UUID", field="ref_id")
            earlier = self._by_ref.get((account.account_number, ref_id.lower()))
            if earlier is not None:
                return earlier
        review = self.review(args)
        if not review.buying_power_ok:
            raise VenueError(
                "INSUFFICIENT_BUYING_POWER",
                f"this order needs {review.required} of buying power; "
                f"{_money(review.buying_power)} is available",
                field="dollar_amount" if review.terms.dollar_amount is not None else "quantity",
            )
        ids = self._venue.ids
        ref_id = ref_id or ids.next("equity-ref")
        now = self._venue.now()
        placed: EquityOrder | EquityApproval
        if account.human_must_approve_trades:
            placed = EquityApproval(
                approval_id=ids.next("equity-approval"),
                ref_id=ref_id,
                terms=review.terms,
                created_at=now,
                expires_at=now + APPROVAL_TTL,
            )
            self._approvals[placed.approval_id] = placed
        else:
            placed = self._accept(account, review.terms, ref_id, now)
        self._by_ref[(account.account_number, ref_id.lower())] = placed
        return placed

    def _accept(
        self, account: Account, terms: OrderTerms, ref_id: str, now: datetime
    ) -> EquityOrder:
        faults: Faults = self._venue.faults
        doomed, faults.reject_orders = Faults.take(faults.reject_orders)
        expires_at = None
        if terms.time_in_force is TimeInForce.GFD:
            expires_at = session_window(self.market.calendar, now, terms.market_hours).day_ends_at
        order = EquityOrder(
            id=self._venue.ids.next("equity-order"),
            ref_id=ref_id,
            terms=terms,
            created_at=now,
            confirm_at=now + CONFIRM_DELAY,
            expires_at=expires_at,
            updated_at=now,
            lots_left=list(terms.tax_lots) if terms.tax_lots else None,
            doomed_reason=faults.reject_reason if doomed else None,
            sequence=len(self._orders),
        )
        self._orders[order.id] = order
        if terms.side is Side.BUY:
            account.hold(_hold_key(order.id), _money(terms.estimated_cost))
        return order

    # -- cancelling ------------------------------------------------------------------------

    def cancel(self, account_number: str, order_id: str) -> EquityOrder:
        """Cancel an open order; raises ``ORDER_NOT_CANCELLABLE`` once it has ended."""
        self._venue.accounts.tradable(account_number)
        order = self.order(account_number, order_id)
        if not order.is_open:
            raise VenueError(
                "ORDER_NOT_CANCELLABLE",
                f"order {order_id} is already {order.state}",
                field="order_id",
            )
        self._end(order, self._venue.now(), cancelled=True)
        return order

    def _end(self, order: EquityOrder, at: datetime, *, cancelled: bool) -> None:
        if cancelled:
            order.state = (
                OrderState.PARTIALLY_FILLED_REST_CANCELLED
                if order.executions
                else OrderState.CANCELLED
            )
        order.updated_at = at
        self._account(order).release(_hold_key(order.id))

    def _account(self, order: EquityOrder) -> Account:
        return self._venue.accounts.get(order.account_number)

    # -- moving through time ---------------------------------------------------------------

    def sync(self, now: datetime) -> None:
        for order in sorted(self._orders.values(), key=lambda o: o.sequence):
            if order.is_open:
                self._advance(order, now)

    def _advance(self, order: EquityOrder, now: datetime) -> None:
        if order.state is OrderState.QUEUED:
            if now < order.confirm_at:
                return
            self._confirm(order)
            if not order.is_open:
                return
        look = order.next_check
        assert look is not None
        step = max(FILL_INTERVAL, (now - look) / _MAX_LOOKS_PER_SYNC)
        calendar = self.market.calendar
        while order.is_open and look <= now:
            if order.expires_at is not None and look >= order.expires_at:
                break
            opens_at = session_window(calendar, look, order.terms.market_hours).opens_at
            if opens_at > look:
                look = opens_at
                step = max(FILL_INTERVAL, (now - look) / _MAX_LOOKS_PER_SYNC)
                continue
            self._look(order, look)
            look += step
        order.next_check = look
        if order.is_open and order.expires_at is not None and now >= order.expires_at:
            # An order confirmed just after its day ended expires at its confirmation.
            confirmed_at = order.updated_at or order.expires_at
            self._end(order, max(order.expires_at, confirmed_at), cancelled=True)

    def _confirm(self, order: EquityOrder) -> None:
        at = order.confirm_at
        if order.doomed_reason is not None:
            order.state = OrderState.REJECTED
            order.reject_reason = order.doomed_reason
            self._end(order, at, cancelled=False)
            return
        order.state = OrderState.CONFIRMED
        order.updated_at = at
        order.next_check = at + FILL_INTERVAL

    def _look(self, order: EquityOrder, at: datetime) -> None:
        quote = self.market.quote(order.symbol, at)
        if not order.triggered:
            if not stop_triggered(order, quote):
                return
            order.triggered = True
        fill = match(order, quote)
        if fill is None:
            return
        quantity = fill.quantity
        plan: list[tuple[str, Decimal]] = []
        if order.side is Side.SELL:
            plan = self._lot_plan(order, quantity)
            quantity = sum((take for _, take in plan), ZERO)
            if quantity <= 0:
                return
        self._execute(order, fill.price, quantity, at, plan)

    def _lot_plan(self, order: EquityOrder, quantity: Decimal) -> list[tuple[str, Decimal]]:
        """Which lots this sell execution closes: the order's own, else oldest first."""
        plan: list[tuple[str, Decimal]] = []
        left = quantity
        if order.lots_left is not None:
            candidates = list(order.lots_left)
        else:
            free = self._holdings(order.account_number, order.symbol, exclude=order.id).lots
            candidates = list(free.items())
        for lot_id, available in candidates:
            take = min(available, left)
            if take > 0:
                plan.append((lot_id, take))
                left -= take
            if left <= 0:
                break
        return plan

    def _execute(
        self,
        order: EquityOrder,
        price: Decimal,
        quantity: Decimal,
        at: datetime,
        plan: list[tuple[str, Decimal]],
    ) -> None:
        ids = self._venue.ids
        account = self._account(order)
        fees = regulatory_fees(order.side, price, quantity)
        execution = Execution(
            id=ids.next("equity-execution"), price=price, quantity=quantity, timestamp=at, fees=fees
        )
        order.executions.append(execution)
        notional = _money(price * quantity)
        terms = order.terms
        if order.side is Side.BUY:
            account.cash -= notional + fees
            self.positions.buy(
                TaxLot(
                    lot_id=ids.next("equity-lot"),
                    account_number=order.account_number,
                    symbol=order.symbol,
                    instrument_id=terms.listing.instrument_id,
                    quantity=quantity,
                    original_quantity=quantity,
                    price=price,
                    acquired_at=at,
                    order_id=order.id,
                    execution_id=execution.id,
                )
            )
            account.hold(_hold_key(order.id), _money(order.remaining * terms.estimated_price))
        else:
            account.cash += notional - fees
            self.positions.sell(
                account_number=order.account_number,
                symbol=order.symbol,
                quantity=quantity,
                price=price,
                fees=fees,
                at=at,
                order_id=order.id,
                execution_id=execution.id,
                plan=plan,
                trade_ids=[ids.next("equity-closed-trade") for _ in plan],
            )
            if order.lots_left is not None:
                order.lots_left = _consume(order.lots_left, plan)
        order.updated_at = at
        if order.remaining <= 0:
            order.state = OrderState.FILLED
            self._end(order, at, cancelled=False)
        else:
            order.state = OrderState.PARTIALLY_FILLED


def _consume(
    lots: list[tuple[str, Decimal]], plan: list[tuple[str, Decimal]]
) -> list[tuple[str, Decimal]]:
    taken = dict(plan)
    left = [(lot_id, quantity - taken.get(lot_id, ZERO)) for lot_id, quantity in lots]
    return [(lot_id, quantity) for lot_id, quantity in left if quantity > 0]


def equity_desk(venue: Venue) -> EquityDesk:
    """The venue's equity desk (``VenueError`` when the venue runs none)."""
    for desk in venue.desks:
        if isinstance(desk, EquityDesk):
            return desk
    raise VenueError("UNAVAILABLE", "equity trading is not available on this venue")
