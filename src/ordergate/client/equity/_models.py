"""Response models of the equity tools: orders, positions, tax lots, tradability, reviews.

Amounts follow the Decimal rules (``Money``: absent → zero; ``OptionalMoney``: absent,
``null`` or ``""`` → ``None``; anything unparseable is a ``ResponseParseError`` naming the
field). An order's ``state`` is an ``OrderState`` when known and the wire text otherwise: a
state Robinhood adds must not make a live order unreadable, and ``is_terminal`` treats an
unknown state as still open, so a caller keeps watching it rather than forgetting it.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._fields import NextCursor, NullableList, OptionalTime, WireBool
from ordergate.client._models import WireModel
from ordergate.client._orders import Amount, OrderStateText
from ordergate.core import ZERO, OrderState, Side

__all__ = [
    "AccountTypeTradability",
    "EquityExecution",
    "EquityOrder",
    "EquityOrdersPage",
    "EquityPosition",
    "EquityPositionsPage",
    "EquityReview",
    "EquityTradability",
    "OrderChecks",
    "ReviewQuote",
    "TaxLot",
    "TaxLotsPage",
    "TradabilityResult",
]


class EquityExecution(WireModel):
    id: str
    price: Money = ZERO
    quantity: Money = ZERO
    timestamp: datetime
    fees: Money = ZERO


class EquityOrder(WireModel):
    """An equity order. ``type`` is ``market`` or ``limit`` and ``trigger`` ``immediate`` or
    ``stop`` (a ``stop_limit`` request reads back as a ``limit`` order with a ``stop``
    trigger); ``price`` is the limit price."""

    id: str
    ref_id: str | None = None
    instrument_id: str | None = None
    symbol: str
    side: Side
    type: str
    trigger: str | None = None
    state: OrderStateText
    quantity: OptionalMoney = None
    cumulative_quantity: Money = ZERO
    price: OptionalMoney = None
    stop_price: OptionalMoney = None
    average_price: OptionalMoney = None
    fees: Money = ZERO
    dollar_based_amount: Amount | None = None
    time_in_force: str | None = None
    market_hours: str | None = None
    placed_agent: str | None = None
    created_at: datetime
    last_transaction_at: OptionalTime = None
    executions: NullableList[EquityExecution] = Field(default_factory=list)
    reject_reason: str | None = None

    @property
    def is_terminal(self) -> bool:
        """Filled, cancelled, rejected …; ``False`` for an unknown state (keep watching it)."""
        return isinstance(self.state, OrderState) and self.state.is_terminal


class EquityOrdersPage(WireModel):
    orders: NullableList[EquityOrder]
    next: NextCursor = None


class EquityPosition(WireModel):
    account_number: str | None = None
    symbol: str
    instrument_id: str | None = None
    quantity: Money = ZERO
    average_buy_price: OptionalMoney = None
    cost_basis: OptionalMoney = None
    last_trade_price: OptionalMoney = None
    market_value: OptionalMoney = None
    unrealized_pnl: OptionalMoney = None
    shares_held_for_buys: Money = ZERO
    shares_held_for_sells: Money = ZERO
    shares_available_for_sells: OptionalMoney = None
    created_at: OptionalTime = None
    updated_at: OptionalTime = None


class EquityPositionsPage(WireModel):
    positions: NullableList[EquityPosition]
    next: NextCursor = None


class TaxLot(WireModel):
    open_lot_id: str
    symbol: str | None = None
    instrument_id: str | None = None
    quantity: Money = ZERO
    original_quantity: OptionalMoney = None
    cost_basis_per_share: OptionalMoney = None
    cost_basis: OptionalMoney = None
    market_value: OptionalMoney = None
    unrealized_pnl: OptionalMoney = None
    acquired_at: OptionalTime = None
    holding_period: str | None = None
    order_id: str | None = None


class TaxLotsPage(WireModel):
    symbol: str | None = None
    tax_lots: NullableList[TaxLot]
    next: NextCursor = None


class AccountTypeTradability(WireModel):
    account_type: str
    account_type_tradability: str


class EquityTradability(WireModel):
    symbol: str
    name: str | None = None
    simple_name: str | None = None
    state: str | None = None
    country: str | None = None
    tradeable: WireBool
    fractional_tradability: str | None = None
    extended_hours_fractional_tradability: WireBool
    all_day_tradability: str | None = None
    twenty_four_seven_tradability: str | None = None
    short_selling_tradability: str | None = None
    internal_halt_reason: str | None = None
    internal_halt_details: str | None = None
    internal_halt_sessions: NullableList[str] = Field(default_factory=list)
    internal_halt_start_time: OptionalTime = None
    internal_halt_end_time: OptionalTime = None
    account_type_tradabilities: NullableList[AccountTypeTradability] = Field(default_factory=list)


class TradabilityResult(WireModel):
    results: NullableList[EquityTradability]
    not_found: NullableList[str] = Field(default_factory=list)


class ReviewQuote(WireModel):
    symbol: str
    last_trade_price: Money = ZERO
    venue_last_trade_time: OptionalTime = None
    last_non_reg_trade_price: OptionalMoney = None
    venue_last_non_reg_trade_time: OptionalTime = None
    adjusted_previous_close: OptionalMoney = None
    previous_close: OptionalMoney = None
    previous_close_date: str | None = None
    bid_price: Money = ZERO
    venue_bid_time: OptionalTime = None
    ask_price: Money = ZERO
    venue_ask_time: OptionalTime = None
    has_traded: WireBool | None = None
    state: str | None = None


class OrderChecks(WireModel):
    """The venue's checks on a reviewed order; the contract leaves their shape open, so only
    ``passed`` is typed and everything else is kept as sent (``model_extra``)."""

    passed: WireBool | None = None


class EquityReview(WireModel):
    """What ``review_equity_order`` reports; it places nothing."""

    symbol: str
    side: Side
    type: str
    quantity: OptionalMoney = None
    dollar_amount: OptionalMoney = None
    limit_price: OptionalMoney = None
    stop_price: OptionalMoney = None
    order_checks: OrderChecks
    quote_data: ReviewQuote | None = None
    market_data_disclosure: str | None = None
    customer_approval_required: WireBool | None = None
    customer_approval_required_reason: str | None = None
