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

Prices come from the desk's ``CryptoMarket`` (the seeded market unless another is given):
without a usable quote an order is refused and a resting one waits.

Buys hold buying power (remaining units x the held price) until they end; executions move
cash and units (average cost, see ``_crypto_book``). No fees: Robinhood earns on the spread.
Placing, cancelling and the walk through time are every desk's (``_order_desk``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from ordergate.core import ZERO, CryptoOrderState, CryptoTimeInForce, Side
from ordergate.sandbox.market import CryptoPair, CryptoQuote
from ordergate.sandbox.venue._accounts import Account
from ordergate.sandbox.venue._crypto_book import CryptoHoldings
from ordergate.sandbox.venue._crypto_market import CryptoMarket, VenueCryptoMarket
from ordergate.sandbox.venue._crypto_model import CryptoExecution, CryptoOrder, CryptoTerms
from ordergate.sandbox.venue._crypto_rules import check_crypto_terms
from ordergate.sandbox.venue._equity import ClosedTrades
from ordergate.sandbox.venue._equity_rules import quote_unavailable
from ordergate.sandbox.venue._order_desk import (
    APPROVAL_TTL,
    CONFIRM_DELAY,
    Lifecycle,
    OrderDesk,
    desk_of,
)
from ordergate.sandbox.venue._positions import ClosedTrade, cents

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

EXECUTION_NOTIONAL = Decimal(25_000)
CRYPTO_LIFECYCLE = Lifecycle(
    queued=CryptoOrderState.QUEUED,
    confirmed=CryptoOrderState.CONFIRMED,
    rejected=CryptoOrderState.REJECTED,
    cancelled=CryptoOrderState.CANCELED,
)
_NEW_YORK = ZoneInfo("America/New_York")


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
        return cents(self.terms.estimated_cost) if self.terms.side is Side.BUY else ZERO

    @property
    def buying_power_ok(self) -> bool:
        return self.required <= self.buying_power


class CryptoDesk(OrderDesk[CryptoOrder, CryptoTerms]):
    """Crypto orders, holdings and realised P&L of every account of the venue."""

    kind = "crypto"
    lifecycle = CRYPTO_LIFECYCLE
    account_field = "rhs_account_number"

    def __init__(self, venue: Venue, *, market: CryptoMarket | None = None) -> None:
        super().__init__(venue)
        self.market: CryptoMarket = market or VenueCryptoMarket(venue.market)
        self.holdings = CryptoHoldings()
        self.closed_archive: ClosedTrades | None = None
        """Where closed trades drained from ``holdings`` are read back from (``None``: none
        are drained)."""

    # -- reading ---------------------------------------------------------------------------

    def pair(self, symbol: str) -> CryptoPair | None:
        return self.market.pair(symbol.strip().upper())

    def quote(self, pair: CryptoPair, at: datetime) -> CryptoQuote:
        """The pair's quote at ``at``; ``UNAVAILABLE`` without a usable one (nothing is
        priced or marked at an invented price)."""
        quote = self.market.quote(pair.symbol, at)
        if quote is None:
            raise quote_unavailable(pair.symbol)
        return quote

    def held_for_sells(self, account_number: str, currency_code: str) -> Decimal:
        return sum(
            (
                o.remaining
                for o in self.open_orders(account_number)
                if o.side is Side.SELL and o.terms.pair.asset_code == currency_code
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
        return cents(total)

    def portfolio_values(self, account_number: str) -> dict[str, Decimal]:
        """This desk's share of ``get_portfolio``."""
        return {"crypto_value": self.market_value(account_number)}

    def closed_trades(self, account_number: str) -> list[ClosedTrade]:
        trades = self.holdings.closed(account_number)
        if self.closed_archive is not None:
            trades = self.closed_archive.closed(account_number) + trades
        return trades

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
            buying_power=cents(account.buying_power),
            approval_required=account.human_must_approve_trades,
        )

    # -- the crypto desk's part of placing and working orders ------------------------------

    def _tradable(self, number: str) -> Account:
        return self._venue.accounts.tradable_rhs(number)

    def _check(self, args: Mapping[str, Any]) -> CryptoPreview:
        return self.preview(args)

    def _short_field(self, terms: CryptoTerms) -> str:
        return "dollar_amount" if terms.dollar_amount is not None else "quantity"

    def _open(
        self,
        terms: CryptoTerms,
        *,
        order_id: str,
        ref_id: str,
        now: datetime,
        doomed_reason: str | None,
        sequence: int,
    ) -> CryptoOrder:
        return CryptoOrder(
            id=order_id,
            ref_id=ref_id,
            terms=terms,
            created_at=now,
            confirm_at=now + CONFIRM_DELAY,
            expires_at=expires_at(terms.time_in_force, now),
            updated_at=now,
            doomed_reason=doomed_reason,
            sequence=sequence,
        )

    def _held_for(self, terms: CryptoTerms) -> Decimal | None:
        return terms.estimated_cost if terms.side is Side.BUY else None

    def _expired_at(self, order: CryptoOrder, ends: datetime) -> datetime:
        # A crypto order ends at its expiry even when it confirmed after it.
        return ends

    def _look(self, order: CryptoOrder, at: datetime) -> None:
        terms = order.terms
        quote = self.market.quote(terms.pair.symbol, at)
        if quote is None:
            return
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
        account = self._account(order)
        notional = cents(price * quantity)
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
            self._hold(order, order.remaining * terms.estimated_price)
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
    return desk_of(venue, CryptoDesk)
