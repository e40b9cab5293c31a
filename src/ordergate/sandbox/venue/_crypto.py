"""The crypto desk: accepts, works, fills, expires and cancels crypto orders, 24/7.

Crypto tools name the account by its ``rhs_account_number``; the desk files everything under
the brokerage ``account_number`` it belongs to, so cash and buying power are the same ones
the equity and option desks use.

Nothing happens in the background. ``sync(now)`` walks each open order forward:

1. ``queued`` → ``confirmed`` (or ``rejected`` under the forced-rejection fault) one second
   after placement, whatever the day or hour;
2. from a second after confirmation the order is looked at against the pair's quote of that
   instant, at least a second apart. A stop (``stop_loss``, ``stop_limit``) waits until the
   mark crosses it (buy: mark ≥ stop; sell: mark ≤ stop). A buy takes the ask, a sell the
   bid; a limit waits until that crosses it; a market buy never pays more than the collared
   price it held. One execution takes at most ``EXECUTION_NOTIONAL`` dollars' worth, so a
   big order fills over several looks (``partially_filled`` in between);
3. time in force: ``gtc`` works until cancelled; ``gfd`` until the next midnight in New
   York, ``gfw`` until the next Monday's, ``gfm`` until the first of the next month's; then
   it is ``canceled`` (crypto's spelling) with whatever filled.

Buys hold buying power (remaining units x the held price) until they end; executions move
cash and units (average cost, see ``_crypto_book``). No fees: Robinhood earns on the spread.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from ordergate.core import ZERO, CryptoOrderState, CryptoTimeInForce, Side
from ordergate.sandbox.market import CryptoPair, CryptoQuote, UnknownInstrument
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._accounts import Account
from ordergate.sandbox.venue._crypto_book import CryptoHoldings
from ordergate.sandbox.venue._crypto_model import (
    CryptoApproval,
    CryptoExecution,
    CryptoOrder,
    CryptoTerms,
)
from ordergate.sandbox.venue._crypto_rules import check_crypto_terms
from ordergate.sandbox.venue._equity import CONFIRM_DELAY, FILL_INTERVAL
from ordergate.sandbox.venue._faults import Faults
from ordergate.sandbox.venue._positions import CENT, ClosedTrade

if TYPE_CHECKING:
    from ordergate.sandbox.venue._venue import Venue

__all__ = [
    "APPROVAL_TTL",
    "EXECUTION_NOTIONAL",
    "CryptoDesk",
    "CryptoPreview",
    "crypto_desk",
    "expires_at",
]

APPROVAL_TTL = timedelta(hours=24)
EXECUTION_NOTIONAL = Decimal(25_000)
_MAX_LOOKS_PER_SYNC = 500
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_NEW_YORK = ZoneInfo("America/New_York")


def _money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_EVEN)


def _hold_key(order_id: str) -> str:
    return f"crypto:{order_id}"


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=_NEW_YORK).astimezone(UTC)


def expires_at(time_in_force: CryptoTimeInForce, placed_at: datetime) -> datetime | None:
    """When an order of ``time_in_force`` placed at ``placed_at`` stops working."""
    today = placed_at.astimezone(_NEW_YORK).date()
    if time_in_force is CryptoTimeInForce.GFD:
        return _midnight(today + timedelta(days=1))
    if time_in_force is CryptoTimeInForce.GFW:
        return _midnight(today + timedelta(days=7 - today.weekday()))
    if time_in_force is CryptoTimeInForce.GFM:
        year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
        return _midnight(date(year, month, 1))
    return None


@dataclass(frozen=True, slots=True)
class CryptoPreview:
    """What ``preview_crypto_order`` reports about terms that passed every rule."""

    terms: CryptoTerms
    quote: CryptoQuote
    buying_power: Decimal
    approval_required: bool

    @property
    def required(self) -> Decimal:
        return _money(self.terms.estimated_cost) if self.terms.side is Side.BUY else ZERO

    @property
    def buying_power_ok(self) -> bool:
        return self.required <= self.buying_power


class CryptoDesk:
    """Crypto orders, holdings and realised P&L of every account of the venue."""

    def __init__(self, venue: Venue) -> None:
        self._venue = venue
        self.holdings = CryptoHoldings()
        self._orders: dict[str, CryptoOrder] = {}
        self._by_ref: dict[tuple[str, str], CryptoOrder | CryptoApproval] = {}
        self._approvals: dict[str, CryptoApproval] = {}

    # -- reading ---------------------------------------------------------------------------

    def pair(self, symbol: str) -> CryptoPair | None:
        try:
            return self._venue.market.universe.crypto_pair(symbol.strip())
        except UnknownInstrument:
            return None

    def quote(self, pair: CryptoPair, at: datetime) -> CryptoQuote:
        return self._venue.market.crypto_quote(pair.symbol, at)

    def order(self, account_number: str, order_id: str) -> CryptoOrder:
        order = self._orders.get(order_id)
        if order is None or order.account_number != account_number:
            raise VenueError("NOT_FOUND", f"no crypto order {order_id}", field="order_id")
        return order

    def orders(self, account_number: str) -> list[CryptoOrder]:
        """The account's orders, newest first."""
        mine = [o for o in self._orders.values() if o.account_number == account_number]
        return sorted(mine, key=lambda o: o.sequence, reverse=True)

    def approvals(self, account_number: str) -> list[CryptoApproval]:
        return [a for a in self._approvals.values() if a.terms.account_number == account_number]

    def held_for_sells(self, account_number: str, currency_code: str) -> Decimal:
        return sum(
            (
                o.remaining
                for o in self._orders.values()
                if o.is_open
                and o.side is Side.SELL
                and o.account_number == account_number
                and o.terms.pair.asset_code == currency_code
            ),
            ZERO,
        )

    def sellable(self, account_number: str, pair: CryptoPair) -> Decimal:
        code = pair.asset_code
        return self.holdings.quantity(account_number, code) - self.held_for_sells(
            account_number, code
        )

    def market_value(self, account_number: str) -> Decimal:
        now = self._venue.now()
        total = ZERO
        for holding in self.holdings.of(account_number):
            total += holding.quantity * self.quote(holding.pair, now).mark_price
        return _money(total)

    def portfolio_values(self, account_number: str) -> dict[str, Decimal]:
        """This desk's share of ``get_portfolio``."""
        return {"crypto_value": self.market_value(account_number)}

    def closed_trades(self, account_number: str) -> list[ClosedTrade]:
        return self.holdings.closed(account_number)

    # -- checking and placing --------------------------------------------------------------

    def _terms(self, args: Mapping[str, Any]) -> tuple[Account, CryptoTerms]:
        account = self._venue.accounts.tradable_rhs(str(args["rhs_account_number"]))
        now = self._venue.now()
        terms = check_crypto_terms(
            args,
            account_number=account.account_number,
            rhs_account_number=account.rhs_account_number,
            pair_of=self.pair,
            quote_of=lambda pair: self.quote(pair, now),
            sellable=lambda pair: self.sellable(account.account_number, pair),
        )
        return account, terms

    def preview(self, args: Mapping[str, Any]) -> CryptoPreview:
        """Check an order request without placing anything."""
        account, terms = self._terms(args)
        return CryptoPreview(
            terms=terms,
            quote=self.quote(terms.pair, self._venue.now()),
            buying_power=_money(account.buying_power),
            approval_required=account.human_must_approve_trades,
        )

    def place(self, args: Mapping[str, Any]) -> CryptoOrder | CryptoApproval:
        """Place an order (or file it for approval); the same ``ref_id`` returns the same."""
        account = self._venue.accounts.tradable_rhs(str(args["rhs_account_number"]))
        ref_id = args.get("ref_id")
        if ref_id is not None and ref_id != "":
            ref_id = str(ref_id)
            if not _UUID.match(ref_id):
                raise VenueError("INVALID_ARGUMENT", "ref_id must be a UUID", field="ref_id")
            earlier = self._by_ref.get((account.account_number, ref_id.lower()))
            if earlier is not None:
                return earlier
        else:
            ref_id = None
        preview = self.preview(args)
        if not preview.buying_power_ok:
            raise VenueError(
                "INSUFFICIENT_BUYING_POWER",
                f"this order needs {preview.required} of buying power; "
                f"{preview.buying_power} is available",
                field="dollar_amount" if preview.terms.dollar_amount is not None else "quantity",
            )
        ids = self._venue.ids
        ref_id = ref_id or ids.next("crypto-ref")
        now = self._venue.now()
        placed: CryptoOrder | CryptoApproval
        if account.human_must_approve_trades:
            placed = CryptoApproval(
                approval_id=ids.next("crypto-approval"),
                ref_id=ref_id,
                terms=preview.terms,
                created_at=now,
                expires_at=now + APPROVAL_TTL,
            )
            self._approvals[placed.approval_id] = placed
        else:
            placed = self._accept(account, preview.terms, ref_id, now)
        self._by_ref[(account.account_number, ref_id.lower())] = placed
        return placed

    def _accept(
        self, account: Account, terms: CryptoTerms, ref_id: str, now: datetime
    ) -> CryptoOrder:
        faults: Faults = self._venue.faults
        doomed, faults.reject_orders = Faults.take(faults.reject_orders)
        order = CryptoOrder(
            id=self._venue.ids.next("crypto-order"),
            ref_id=ref_id,
            terms=terms,
            created_at=now,
            confirm_at=now + CONFIRM_DELAY,
            expires_at=expires_at(terms.time_in_force, now),
            updated_at=now,
            doomed_reason=faults.reject_reason if doomed else None,
            sequence=len(self._orders),
        )
        self._orders[order.id] = order
        if terms.side is Side.BUY:
            account.hold(_hold_key(order.id), _money(terms.estimated_cost))
        return order

    # -- cancelling ------------------------------------------------------------------------

    def cancel(self, rhs_account_number: str, order_id: str) -> CryptoOrder:
        """Cancel an open order; raises ``ORDER_NOT_CANCELLABLE`` once it has ended."""
        account = self._venue.accounts.tradable_rhs(rhs_account_number)
        order = self.order(account.account_number, order_id)
        if not order.is_open:
            raise VenueError(
                "ORDER_NOT_CANCELLABLE",
                f"order {order_id} is already {order.state}",
                field="order_id",
            )
        self._end(order, CryptoOrderState.CANCELED, self._venue.now())
        return order

    def _end(self, order: CryptoOrder, state: CryptoOrderState, at: datetime) -> None:
        order.state = state
        order.updated_at = at
        self._venue.accounts.get(order.account_number).release(_hold_key(order.id))

    # -- moving through time ---------------------------------------------------------------

    def sync(self, now: datetime) -> None:
        for order in sorted(self._orders.values(), key=lambda o: o.sequence):
            if order.is_open:
                self._advance(order, now)

    def _advance(self, order: CryptoOrder, now: datetime) -> None:
        if order.state is CryptoOrderState.QUEUED:
            if now < order.confirm_at:
                return
            if order.doomed_reason is not None:
                order.reject_reason = order.doomed_reason
                self._end(order, CryptoOrderState.REJECTED, order.confirm_at)
                return
            order.state = CryptoOrderState.CONFIRMED
            order.updated_at = order.confirm_at
            order.next_check = order.confirm_at + FILL_INTERVAL
        look = order.next_check
        assert look is not None
        step = max(FILL_INTERVAL, (now - look) / _MAX_LOOKS_PER_SYNC)
        ends = order.expires_at
        while order.is_open and look <= now and (ends is None or look < ends):
            self._look(order, look)
            look += step
        order.next_check = look
        if order.is_open and ends is not None and now >= ends:
            self._end(order, CryptoOrderState.CANCELED, ends)

    def _look(self, order: CryptoOrder, at: datetime) -> None:
        terms = order.terms
        quote = self.quote(terms.pair, at)
        buying = terms.side is Side.BUY
        if not order.triggered:
            stop = terms.stop_price
            if stop is not None and (
                quote.mark_price < stop if buying else quote.mark_price > stop
            ):
                return
            order.triggered = True
        price = quote.ask_price if buying else quote.bid_price
        limit = terms.limit_price if terms.has_limit else None
        if limit is not None and (price > limit if buying else price < limit):
            return
        if limit is None and buying and price > terms.estimated_price:
            return
        increment = terms.pair.asset_increment
        cap = (EXECUTION_NOTIONAL / price / increment).to_integral_value(ROUND_FLOOR) * increment
        self._execute(order, price, min(order.remaining, max(cap, increment)), at)

    def _execute(self, order: CryptoOrder, price: Decimal, quantity: Decimal, at: datetime) -> None:
        ids = self._venue.ids
        terms = order.terms
        account = self._venue.accounts.get(order.account_number)
        notional = _money(price * quantity)
        execution = CryptoExecution(
            id=ids.next("crypto-execution"),
            price=price,
            quantity=quantity,
            notional=notional,
            timestamp=at,
        )
        order.executions.append(execution)
        if terms.side is Side.BUY:
            account.cash -= notional
            self.holdings.buy(
                account_number=order.account_number,
                pair=terms.pair,
                quantity=quantity,
                notional=notional,
                at=at,
                holding_id=ids.next("crypto-holding"),
            )
            account.hold(_hold_key(order.id), _money(order.remaining * terms.estimated_price))
        else:
            account.cash += notional
            self.holdings.sell(
                account_number=order.account_number,
                pair=terms.pair,
                quantity=quantity,
                price=price,
                notional=notional,
                at=at,
                order_id=order.id,
                execution_id=execution.id,
                trade_id=ids.next("crypto-closed-trade"),
            )
        order.updated_at = at
        if order.remaining <= 0:
            self._end(order, CryptoOrderState.FILLED, at)
        else:
            order.state = CryptoOrderState.PARTIALLY_FILLED


def crypto_desk(venue: Venue) -> CryptoDesk:
    """The venue's crypto desk (``VenueError`` when the venue runs none)."""
    for desk in venue.desks:
        if isinstance(desk, CryptoDesk):
            return desk
    raise VenueError("UNAVAILABLE", "crypto trading is not available on this venue")
