"""The equity desk: accepts, works, fills, expires and cancels equity orders.

Nothing happens in the background. ``sync(now)`` walks each open order forward through
venue time, in the order orders were placed:

1. ``queued`` → ``confirmed`` (or ``rejected`` under the forced-rejection fault) one
   second after placement;
2. from one second after confirmation, the order is looked at against the quote of that
   instant whenever its ``market_hours`` allow trading, at least a second apart (further
   apart when a long step of the clock has to be covered), each look yielding at most one
   execution (see ``_equity_fills``);
3. a ``gfd`` order still open when its trading day ends is cancelled at that instant;
4. a split the market announces takes effect when the walk reaches its instant: orders still
   open in the symbol are cancelled there (their terms name pre-split shares and prices)
   and every account's lots re-based (``Positions.split``).

Prices come from the desk's ``EquityMarket`` (the seeded market, or observed quotes). A look
without a usable quote executes nothing; the order waits for the next look.

Buys hold buying power (remaining shares × the held price) until they end; executions move
cash, open a tax lot per buy execution and close lots on sells (``_positions``). Placing,
cancelling and the walk through time are every desk's (``_order_desk``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from ordergate.core import ZERO, OrderState, Side, TimeInForce
from ordergate.sandbox.venue._accounts import Account
from ordergate.sandbox.venue._equity_fills import match, regulatory_fees, stop_triggered
from ordergate.sandbox.venue._equity_market import (
    EquityListing,
    EquityMarket,
    EquityQuote,
    Split,
    VenueEquityMarket,
    session_window,
)
from ordergate.sandbox.venue._equity_model import EquityOrder, Execution, OrderTerms
from ordergate.sandbox.venue._equity_rules import Holdings, check_terms, quote_unavailable
from ordergate.sandbox.venue._order_desk import (
    CONFIRM_DELAY,
    ORDER_LIFECYCLE,
    OrderDesk,
    desk_of,
    find_desk,
)
from ordergate.sandbox.venue._positions import ClosedTrade, Positions, TaxLot, cents

if TYPE_CHECKING:
    from ordergate.sandbox.venue._venue import Venue

__all__ = ["ClosedTrades", "EquityDesk", "OrderReview", "equity_desk", "split_shares"]


@dataclass(frozen=True, slots=True)
class OrderReview:
    """What ``review_equity_order`` reports about terms that passed every rule."""

    terms: OrderTerms
    quote: EquityQuote | None
    buying_power: Decimal
    required: Decimal
    estimated_fees: Decimal
    approval_required: bool

    @property
    def buying_power_ok(self) -> bool:
        return self.terms.side is Side.SELL or self.required <= self.buying_power


class ClosedTrades(Protocol):
    """Where the desk's closed trades are read back from once drained from memory."""

    def closed(self, account_number: str) -> list[ClosedTrade]:
        """Every stored closed trade of ``account_number``, oldest first."""
        ...


class EquityDesk(OrderDesk[EquityOrder, OrderTerms]):
    """Equity orders, positions and realised P&L of every account of the venue."""

    kind = "equity"
    lifecycle = ORDER_LIFECYCLE
    # The equity tools have always refused an empty ref_id (the others read it as absent).
    blank_ref_id_is_absent = False

    def __init__(self, venue: Venue, *, market: EquityMarket | None = None) -> None:
        super().__init__(venue)
        self.market: EquityMarket = market or VenueEquityMarket(venue.market)
        self.positions = Positions()
        self.splits_applied: set[tuple[str, Decimal, datetime]] = set()
        """The splits re-based already, so one announced again is applied once."""
        self.closed_archive: ClosedTrades | None = None

    # -- reading ---------------------------------------------------------------------------

    def listing(self, symbol: str) -> EquityListing | None:
        return self.market.listing(symbol.strip().upper())

    def held_for_sells(self, account_number: str, symbol: str) -> Decimal:
        return self._held(account_number, symbol, Side.SELL)

    def held_for_buys(self, account_number: str, symbol: str) -> Decimal:
        return self._held(account_number, symbol, Side.BUY)

    def _held(self, account_number: str, symbol: str, side: Side) -> Decimal:
        """Shares the account's open orders of ``side`` still have to fill."""
        return sum(
            (
                o.remaining
                for o in self.open_orders(account_number)
                if o.side is side and o.symbol == symbol
            ),
            ZERO,
        )

    def last_price(self, symbol: str, at: datetime) -> Decimal:
        """The last trade price of ``symbol`` at ``at``; ``UNAVAILABLE`` without a usable
        quote (a position is never marked at an invented price)."""
        quote = self.market.quote(symbol, at)
        if quote is None:
            raise quote_unavailable(symbol)
        return quote.last

    def market_value(self, account_number: str) -> Decimal:
        """The account's equity positions at the current last trade prices."""
        now = self._venue.now()
        total = ZERO
        for symbol in self.positions.symbols(account_number):
            quantity = self.positions.quantity(account_number, symbol)
            total += quantity * self.last_price(symbol, now)
        return cents(total)

    def portfolio_values(self, account_number: str) -> dict[str, Decimal]:
        """This desk's share of ``get_portfolio``."""
        return {"equity_value": self.market_value(account_number)}

    def split(self, symbol: str, ratio: Decimal) -> int:
        """A ``ratio``-for-1 split of ``symbol`` now: announced to the market (its prices
        divided by ``ratio`` from now on) and every account's lots re-based at once; returns
        how many lots were. Refused (``ValueError``) while any order in ``symbol`` is open
        (its terms would name pre-split shares and prices), and for a bad ratio or symbol."""
        now = self._venue.sync()
        if any(o.symbol == symbol for o in self._orders.values() if o.is_open):
            raise ValueError(f"an order in {symbol} is open: cancel it or let it fill first")
        self.market.split(symbol, ratio, now)
        return self._apply_splits(now)

    def _splits_due(self, now: datetime) -> list[Split]:
        """The splits announced up to ``now`` not applied yet, in the order they fall."""
        due = [
            s
            for s in self.market.splits()
            if s.at <= now and (s.symbol, s.ratio, s.at) not in self.splits_applied
        ]
        return sorted(due, key=lambda s: s.at)

    def _apply_splits(self, now: datetime) -> int:
        """Apply the splits announced up to ``now`` not applied yet; the lots re-based."""
        rebased = 0
        for split in self._splits_due(now):
            key = (split.symbol, split.ratio, split.at)
            super().sync(split.at)
            for order in [o for o in self._orders.values() if o.is_open]:
                if order.symbol == split.symbol:
                    self._end(order, self._cancelled_state(order), split.at)
            rebased += self.positions.split(split.symbol, split.ratio)
            self.splits_applied.add(key)
        return rebased

    def idle(self, now: datetime) -> bool:
        return super().idle(now) and not self._splits_due(now)

    def sync(self, now: datetime) -> None:
        self._apply_splits(now)
        super().sync(now)

    def closed_trades(self, account_number: str) -> list[ClosedTrade]:
        trades = self.positions.closed(account_number)
        if self.closed_archive is not None:
            trades = self.closed_archive.closed(account_number) + trades
        return trades

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
            required=cents(terms.estimated_cost) if terms.side is Side.BUY else ZERO,
            estimated_fees=fees,
            approval_required=account.human_must_approve_trades,
        )

    # -- the equity desk's part of placing and working orders ------------------------------

    def _check(self, args: Mapping[str, Any]) -> OrderReview:
        return self.review(args)

    def _short_field(self, terms: OrderTerms) -> str:
        return "dollar_amount" if terms.dollar_amount is not None else "quantity"

    def _open(
        self,
        terms: OrderTerms,
        *,
        order_id: str,
        ref_id: str,
        now: datetime,
        doomed_reason: str | None,
        sequence: int,
    ) -> EquityOrder:
        window = session_window(self.market.calendar, now, terms.market_hours)
        expires_at = window.day_ends_at if terms.time_in_force is TimeInForce.GFD else None
        return EquityOrder(
            id=order_id,
            ref_id=ref_id,
            terms=terms,
            created_at=now,
            # Placed while its market is closed, an order stays queued until the next open.
            confirm_at=max(now, window.opens_at) + CONFIRM_DELAY,
            expires_at=expires_at,
            updated_at=now,
            lots_left=list(terms.tax_lots) if terms.tax_lots else None,
            doomed_reason=doomed_reason,
            sequence=sequence,
        )

    def _held_for(self, terms: OrderTerms) -> Decimal | None:
        return terms.estimated_cost if terms.side is Side.BUY else None

    def _cancelled_state(self, order: EquityOrder) -> OrderState:
        if order.executions:
            return OrderState.PARTIALLY_FILLED_REST_CANCELLED
        return OrderState.CANCELLED

    def _opens_at(self, order: EquityOrder, at: datetime) -> datetime:
        """When the order's session is next open at or after ``at``, and its market has a
        price then. A market that can say so (``priced_from``: an observed one, paper's)
        moves a look where it has no price yet to the first instant it observed one: one
        process's feed starts empty, so an order another process placed fills at this
        feed's first observation rather than at no look at all. A market without it (the
        seeded one) prices every instant."""
        opens = session_window(self.market.calendar, at, order.terms.market_hours).opens_at
        if opens > at:
            return opens
        priced_from = getattr(self.market, "priced_from", None)
        priced = None if priced_from is None else priced_from(order.symbol, at)
        return at if priced is None else priced

    def _look(self, order: EquityOrder, at: datetime) -> None:
        quote = self.market.quote(order.symbol, at)
        if quote is None:
            return
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
        notional = cents(price * quantity)
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
            self._hold(order, order.remaining * terms.estimated_price)
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
            self._end(order, OrderState.FILLED, at)
        else:
            order.state = OrderState.PARTIALLY_FILLED


def _consume(
    lots: list[tuple[str, Decimal]], plan: list[tuple[str, Decimal]]
) -> list[tuple[str, Decimal]]:
    taken = dict(plan)
    left = [(lot_id, quantity - taken.get(lot_id, ZERO)) for lot_id, quantity in lots]
    return [(lot_id, quantity) for lot_id, quantity in left if quantity > 0]


def split_shares(venue: Venue, symbol: str, ratio: Decimal) -> int:
    """``EquityDesk.split`` on ``venue``'s equity desk (``KeyError`` without one)."""
    desk = find_desk(venue, EquityDesk)
    if desk is None:
        raise KeyError("the venue has no equity desk")
    return desk.split(symbol, ratio)


def equity_desk(venue: Venue) -> EquityDesk:
    """The venue's equity desk (``VenueError`` when the venue runs none)."""
    return desk_of(venue, EquityDesk)
