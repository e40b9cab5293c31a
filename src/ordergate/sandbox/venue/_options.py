"""The options desk: accepts, works, fills, expires and cancels option orders.

Nothing happens in the background. ``sync(now)`` moves the desk forward through venue time:

1. orders, in the order they were placed. An order is ``queued`` until one second after the
   first regular-session instant at or after its placement (so one placed on a Saturday
   waits for Monday's open), then ``confirmed`` (or ``rejected`` under the forced-rejection
   fault). From a second after confirmation it is looked at against the quotes of that
   instant, at least a second apart, during regular sessions only. A look fills every leg
   at its natural price (ask for a buy, bid for a sell), when the net crosses the limit (a
   debit at most ``price``, a credit at least ``price``); a market order takes the natural
   price (a market buy never above the collared price it held). One look fills at most the
   units every leg's displayed size covers (a leg's size over its ratio), so an order bigger
   than the quotes show fills over several looks (``partially_filled`` in between; the
   hold shrinks to what is left, and a cancel ends it ``partially_filled_rest_cancelled``).
   A ``gfd`` order still open at the regular close is cancelled then; a ``gtc`` order when
   its first contract expires.
2. exercises whose regular close has come, then expirations (a short contract in the money
   that only cash or shares secure is assigned in shares, the rest settles in cash at
   intrinsic value): see ``_options_settlement``.

Prices come from the desk's ``OptionMarket`` (the seeded market unless another is given):
without a usable quote an order is refused, a resting one waits and a mark is refused.

Cash moves by premium x 100 per contract. A working order holds its estimated debit plus
the cash securing the puts it sells to open; a short put position keeps that cash held
(``strike x 100`` a contract) until it is closed, expires or settles. Placing, cancelling
and the walk through time are every desk's (``_order_desk``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.calendar import NyseCalendar
from ordergate.core import (
    ZERO,
    MarketHours,
    OptionDirection,
    OptionPositionEffect,
    OrderState,
    Side,
    TimeInForce,
)
from ordergate.sandbox.market import MULTIPLIER, OptionInstrument, OptionQuote
from ordergate.sandbox.venue._accounts import Account
from ordergate.sandbox.venue._equity import ClosedTrades, EquityDesk
from ordergate.sandbox.venue._equity_market import session_window
from ordergate.sandbox.venue._equity_rules import quote_unavailable
from ordergate.sandbox.venue._option_market import OptionMarket, VenueOptionMarket
from ordergate.sandbox.venue._options_book import OptionPositions
from ordergate.sandbox.venue._options_cover import Holding, cover, opened
from ordergate.sandbox.venue._options_model import (
    OptionExecution,
    OptionExercise,
    OptionOrder,
    OptionOrderType,
    OptionTerms,
)
from ordergate.sandbox.venue._options_rules import check_option_terms, option_level
from ordergate.sandbox.venue._options_settlement import Settlement
from ordergate.sandbox.venue._order_desk import (
    APPROVAL_TTL,
    CONFIRM_DELAY,
    ORDER_LIFECYCLE,
    OrderDesk,
    desk_of,
    find_desk,
)
from ordergate.sandbox.venue._positions import ClosedTrade, cents

if TYPE_CHECKING:
    from ordergate.sandbox.venue._venue import Venue

__all__ = ["APPROVAL_TTL", "OptionReview", "OptionsDesk", "options_desk"]

_NET_PLACES = Decimal("0.0001")


def _collateral_key(option_id: str) -> str:
    return f"option-collateral:{option_id}"


@dataclass(frozen=True, slots=True)
class OptionReview:
    """What ``review_option_order`` reports about terms that passed every rule."""

    terms: OptionTerms
    quotes: tuple[OptionQuote, ...]
    buying_power: Decimal
    approval_required: bool
    executable_now: bool
    next_execution_at: datetime

    @property
    def required(self) -> Decimal:
        return cents(self.terms.required)

    @property
    def buying_power_ok(self) -> bool:
        return self.required <= self.buying_power


class _AccountBook:
    """``OptionBook`` for one account at one instant."""

    def __init__(self, desk: OptionsDesk, account_number: str, now: datetime) -> None:
        self._desk = desk
        self._account = account_number
        self._now = now

    def instrument(self, option_id: str) -> OptionInstrument | None:
        return self._desk.instrument(option_id)

    def quote(self, option_id: str) -> OptionQuote:
        return self._desk.quote(option_id, self._now)

    def position(self, option_id: str) -> int:
        return self._desk.positions.quantity(self._account, option_id)

    def closing(self, option_id: str) -> int:
        return self._desk.closing(self._account, option_id)

    def free_shares(self, symbol: str) -> Decimal:
        return self._desk.free_shares(self._account, symbol)

    def holdings(self) -> list[Holding]:
        return self._desk.holdings(self._account)


class OptionsDesk(OrderDesk[OptionOrder, OptionTerms]):
    """Option orders, positions, exercises and realised P&L of every account of the venue."""

    kind = "option"
    lifecycle = ORDER_LIFECYCLE
    # Pricing an option is costly (Black-Scholes per leg), so a long clock step is covered
    # in fewer looks per order.
    max_looks = 200

    def __init__(self, venue: Venue, *, market: OptionMarket | None = None) -> None:
        super().__init__(venue)
        self.market: OptionMarket = market or VenueOptionMarket(venue.market)
        self.positions = OptionPositions()
        self.settlement = Settlement(venue, self)
        self.closed_archive: ClosedTrades | None = None
        """Where closed trades drained from ``positions`` are read back from (``None``: none
        are drained)."""

    @property
    def calendar(self) -> NyseCalendar:
        return self._venue.market.calendar

    # -- reading ---------------------------------------------------------------------------

    def instrument(self, option_id: str) -> OptionInstrument | None:
        return self.market.instrument(option_id.strip().lower())

    def quote(self, option_id: str, at: datetime) -> OptionQuote:
        """The contract's quote at ``at``; ``UNAVAILABLE`` without a usable one (nothing is
        priced or marked at an invented price)."""
        quote = self.market.quote(option_id, at)
        if quote is None:
            raise quote_unavailable(option_id)
        return quote

    def exercises(self, account_number: str) -> list[OptionExercise]:
        return self.settlement.exercises(account_number)

    def pending_exercise(self, account_number: str, option_id: str) -> int:
        return self.settlement.pending(account_number, option_id)

    def pending(self, account_number: str, option_id: str, side: Side) -> int:
        """Contracts of ``option_id`` that open orders of the account would still buy or
        sell (what is left of each)."""
        return sum(
            order.remaining * leg.ratio_quantity
            for order in self.open_orders(account_number)
            for leg in order.terms.legs
            if leg.option_id == option_id and leg.side is side
        )

    def closing(self, account_number: str, option_id: str) -> int:
        """Contracts spoken for by open closing orders and pending exercises."""
        in_orders = sum(
            order.remaining * leg.ratio_quantity
            for order in self.open_orders(account_number)
            for leg in order.terms.legs
            if leg.option_id == option_id and leg.position_effect is OptionPositionEffect.CLOSE
        )
        return in_orders + self.pending_exercise(account_number, option_id)

    def equity_desk(self) -> EquityDesk | None:
        return find_desk(self._venue, EquityDesk)

    def free_shares(self, account_number: str, symbol: str) -> Decimal:
        """Shares that could still cover a short call or be delivered by a put exercise."""
        desk = self.equity_desk()
        if desk is None:
            return ZERO
        shares = desk.positions.quantity(account_number, symbol)
        shares -= desk.held_for_sells(account_number, symbol)
        return shares - self.reserved_shares(account_number, symbol)

    def holdings(self, account_number: str) -> list[Holding]:
        """The account's open option positions, as the cover pairing reads them."""
        return [
            Holding(p.instrument, p.quantity)
            for p in self.positions.of(account_number)
            if p.quantity != 0
        ]

    def reserved_shares(self, account_number: str, symbol: str) -> Decimal:
        """Shares this desk has spoken for: covering short calls (held or being sold to
        open) and due for delivery by pending put exercises. The equity desk will not sell
        them."""
        held = cover(self.holdings(account_number))
        short_calls = held.calls.get(symbol, 0)
        selling_calls = sum(
            cover(opened(order.terms.legs, order.remaining)).calls.get(symbol, 0)
            for order in self.open_orders(account_number)
        )
        delivering = self.settlement.delivering(account_number, symbol)
        return Decimal(MULTIPLIER * (short_calls + selling_calls + delivering))

    def market_value(self, account_number: str) -> Decimal:
        """Long positions at their marks less short positions at theirs."""
        now = self._venue.now()
        total = ZERO
        for position in self.positions.of(account_number):
            if position.quantity:
                mark = self.quote(position.option_id, now).mark_price
                total += position.quantity * mark * MULTIPLIER
        return cents(total)

    def portfolio_values(self, account_number: str) -> dict[str, Decimal]:
        """This desk's share of ``get_portfolio``."""
        return {"options_value": self.market_value(account_number)}

    def closed_trades(self, account_number: str) -> list[ClosedTrade]:
        trades = self.positions.closed(account_number)
        if self.closed_archive is not None:
            trades = self.closed_archive.closed(account_number) + trades
        return trades

    # -- checking and placing --------------------------------------------------------------

    def _terms(self, args: Mapping[str, Any]) -> tuple[Account, OptionTerms]:
        account = self._venue.accounts.tradable(str(args["account_number"]))
        book = _AccountBook(self, account.account_number, self._venue.now())
        terms = check_option_terms(
            args,
            account_number=account.account_number,
            level=option_level(account.option_level),
            margin=account.multi_leg_allowed,
            book=book,
        )
        return account, terms

    def review(self, args: Mapping[str, Any]) -> OptionReview:
        """Check an option order request without placing anything."""
        account, terms = self._terms(args)
        now = self._venue.now()
        window = session_window(self.calendar, now, MarketHours.REGULAR_HOURS)
        return OptionReview(
            terms=terms,
            quotes=tuple(self.quote(leg.option_id, now) for leg in terms.legs),
            buying_power=cents(account.buying_power),
            approval_required=account.human_must_approve_trades,
            executable_now=window.opens_at <= now,
            next_execution_at=window.opens_at,
        )

    # -- the options desk's part of placing and working orders -----------------------------

    def _check(self, args: Mapping[str, Any]) -> OptionReview:
        return self.review(args)

    def _open(
        self,
        terms: OptionTerms,
        *,
        order_id: str,
        ref_id: str,
        now: datetime,
        doomed_reason: str | None,
        sequence: int,
    ) -> OptionOrder:
        window = session_window(self.calendar, now, MarketHours.REGULAR_HOURS)
        expires_at = min(leg.instrument.expires_at for leg in terms.legs)
        if terms.time_in_force is TimeInForce.GFD:
            expires_at = min(expires_at, window.day_ends_at)
        ids = self._venue.ids
        return OptionOrder(
            id=order_id,
            ref_id=ref_id,
            terms=terms,
            leg_ids=tuple(ids.next("option-leg") for _ in terms.legs),
            created_at=now,
            confirm_at=window.opens_at + CONFIRM_DELAY,
            expires_at=expires_at,
            updated_at=now,
            executions=[[] for _ in terms.legs],
            doomed_reason=doomed_reason,
            sequence=sequence,
        )

    def _held_for(self, terms: OptionTerms) -> Decimal:
        return terms.required

    def _opens_at(self, order: OptionOrder, at: datetime) -> datetime:
        return session_window(self.calendar, at, MarketHours.REGULAR_HOURS).opens_at

    # -- exercising ------------------------------------------------------------------------

    def exercise(self, args: Mapping[str, Any]) -> OptionExercise:
        """Ask to exercise long contracts, carried out at the next regular close
        (``_options_settlement``); raises ``VenueError``."""
        return self.settlement.exercise(args)

    def cancel_exercise(self, account_number: str, option_id: str) -> list[OptionExercise]:
        """Withdraw the account's pending exercises of ``option_id``; raises ``VenueError``."""
        return self.settlement.withdraw(account_number, option_id)

    # -- moving through time ---------------------------------------------------------------

    def idle(self, now: datetime) -> bool:
        return super().idle(now) and self.settlement.idle(now)

    def sync(self, now: datetime) -> None:
        super().sync(now)
        self.settlement.sync(now)

    def _look(self, order: OptionOrder, at: datetime) -> None:
        terms = order.terms
        prices: list[Decimal] = []
        units = order.remaining
        for leg in terms.legs:
            quote = self.market.quote(leg.option_id, at)
            if quote is None:
                return
            buying = leg.side is Side.BUY
            price = quote.ask_price if buying else quote.bid_price
            size = quote.ask_size if buying else quote.bid_size
            if price <= 0:
                return
            prices.append(price)
            units = min(units, int(size) // leg.ratio_quantity)
        if units <= 0:
            return
        net = sum(
            (leg.sign * leg.ratio_quantity * p for leg, p in zip(terms.legs, prices, strict=True)),
            ZERO,
        )
        if terms.type is OptionOrderType.MARKET:
            if terms.legs[0].side is Side.BUY and net > terms.estimated_price:
                return
        elif terms.direction is OptionDirection.DEBIT:
            assert terms.price is not None
            if net > terms.price:
                return
        else:
            assert terms.price is not None
            if -net < terms.price:
                return
        self._fill(order, prices, units, at)

    def _fill(self, order: OptionOrder, prices: list[Decimal], units: int, at: datetime) -> None:
        ids = self._venue.ids
        terms = order.terms
        account = self._account(order)
        for index, (leg, price) in enumerate(zip(terms.legs, prices, strict=True)):
            contracts = units * leg.ratio_quantity
            execution = OptionExecution(
                id=ids.next("option-execution"), price=price, quantity=contracts, timestamp=at
            )
            order.executions[index].append(execution)
            account.cash -= leg.sign * price * MULTIPLIER * contracts
            if leg.position_effect is OptionPositionEffect.OPEN:
                self.positions.open(
                    account_number=order.account_number,
                    instrument=leg.instrument,
                    contracts=contracts,
                    long=leg.side is Side.BUY,
                    price=price,
                    at=at,
                    position_id=ids.next("option-position"),
                )
            else:
                self.positions.close(
                    account_number=order.account_number,
                    option_id=leg.option_id,
                    contracts=contracts,
                    price=price,
                    at=at,
                    order_id=order.id,
                    execution_id=execution.id,
                    trade_id=ids.next("option-closed-trade"),
                )
        done = order.processed_quantity
        order.net_price = (order.processed_premium / (MULTIPLIER * done)).quantize(_NET_PLACES)
        if order.remaining:
            order.state = OrderState.PARTIALLY_FILLED
            order.updated_at = at
            self._hold(order, terms.required * order.remaining / terms.quantity)
        else:
            self._end(order, OrderState.FILLED, at)
        self.secure(order.account_number)

    def _cancelled_state(self, order: OptionOrder) -> OrderState:
        if order.processed_quantity:
            return OrderState.PARTIALLY_FILLED_REST_CANCELLED
        return OrderState.CANCELLED

    def secure(self, account_number: str) -> None:
        """Hold what secures every short contract of the account: a short put's strike, a
        spread's most it can lose (``_options_cover``); nothing for a long or covered call."""
        account = self._venue.accounts.get(account_number)
        positions = self.positions.of(account_number)
        secured = cover(self.holdings(account_number))
        for position in positions:
            key = _collateral_key(position.option_id)
            cash = secured.cash.get(position.option_id, ZERO) if position.quantity < 0 else ZERO
            if cash > 0:
                account.hold(key, cash)
            else:
                account.release(key)


def options_desk(venue: Venue) -> OptionsDesk:
    """The venue's options desk (``VenueError`` when the venue runs none)."""
    return desk_of(venue, OptionsDesk)
