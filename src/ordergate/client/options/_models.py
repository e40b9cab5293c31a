"""Response models of the option tools: chains, contracts, quotes, bars, positions, orders.

Premiums are per share (``2.35``); ``premium`` / ``processed_premium`` of an order and a
position's ``average_price`` are dollars (x 100 a contract). Contract counts arrive as
strings and read as Decimals like every other quantity. An order's ``state`` is an
``OrderState`` when known and the wire text otherwise (see ``EquityOrder``).
"""

from __future__ import annotations

import datetime as dt
from datetime import date, datetime

from pydantic import Field

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._fields import NextCursor, NullableList, OptionalTime, WireBool
from ordergate.client._models import WireModel
from ordergate.client._orders import OrderStateText
from ordergate.core import ZERO, OptionDirection, OptionPositionEffect, OrderState, Side

__all__ = [
    "MinTicks",
    "OptionBar",
    "OptionChain",
    "OptionClose",
    "OptionExecution",
    "OptionExercise",
    "OptionHistoricals",
    "OptionInstrument",
    "OptionInstrumentsPage",
    "OptionOrder",
    "OptionOrderLeg",
    "OptionOrdersPage",
    "OptionPosition",
    "OptionPositionsPage",
    "OptionQuote",
    "OptionQuoteResult",
    "OptionQuotes",
    "OptionSeries",
    "UnderlyingInstrument",
]


class MinTicks(WireModel):
    above_tick: Money = ZERO
    below_tick: Money = ZERO
    cutoff_price: Money = ZERO


class UnderlyingInstrument(WireModel):
    instrument: str
    symbol: str


class OptionChain(WireModel):
    id: str
    symbol: str
    can_open_position: WireBool
    cash_component: OptionalMoney = None
    expiration_dates: NullableList[date]
    trade_value_multiplier: Money = ZERO
    underlying_instruments: NullableList[UnderlyingInstrument] = Field(default_factory=list)
    min_ticks: MinTicks
    late_close_state: str | None = None
    extended_hours_state: str | None = None
    settle_on_open: WireBool | None = None
    sellout_time_to_expiration: int | None = None


class OptionInstrument(WireModel):
    id: str
    chain_id: str
    chain_symbol: str
    underlying_type: str | None = None
    expiration_date: date
    sellout_datetime: OptionalTime = None
    strike_price: Money = ZERO
    type: str
    state: str
    tradability: str
    trade_value_multiplier: Money = ZERO
    min_ticks: MinTicks | None = None


class OptionInstrumentsPage(WireModel):
    instruments: NullableList[OptionInstrument]
    next: NextCursor = None


class OptionQuote(WireModel):
    instrument_id: str
    ask_price: Money = ZERO
    ask_size: int
    bid_price: Money = ZERO
    bid_size: int
    break_even_price: OptionalMoney = None
    adjusted_mark_price: OptionalMoney = None
    mark_price: Money = ZERO
    high_fill_rate_buy_price: OptionalMoney = None
    low_fill_rate_buy_price: OptionalMoney = None
    high_fill_rate_sell_price: OptionalMoney = None
    low_fill_rate_sell_price: OptionalMoney = None
    previous_close_price: OptionalMoney = None
    previous_close_date: date | None = None
    implied_volatility: OptionalMoney = None
    delta: OptionalMoney = None
    gamma: OptionalMoney = None
    rho: OptionalMoney = None
    theta: OptionalMoney = None
    vega: OptionalMoney = None
    open_interest: int | None = None
    volume: int | None = None
    chance_of_profit_long: OptionalMoney = None
    chance_of_profit_short: OptionalMoney = None
    updated_at: OptionalTime = None


class OptionClose(WireModel):
    """A contract's latest regular-session close; ``symbol`` is the OCC symbol."""

    instrument_id: str
    symbol: str
    date: dt.date | None = None
    price: OptionalMoney = None
    interpolated: WireBool | None = None
    source: str | None = None


class OptionQuoteResult(WireModel):
    quote: OptionQuote | None = None
    close: OptionClose | None = None


class OptionQuotes(WireModel):
    """Quotes by instrument id; past 20 ids they come without closes (``closes_error``)."""

    results: NullableList[OptionQuoteResult]
    closes_error: str | None = None


class OptionBar(WireModel):
    begins_at: datetime
    open_price: Money = ZERO
    high_price: Money = ZERO
    low_price: Money = ZERO
    close_price: Money = ZERO
    session: str | None = None
    interpolated: WireBool | None = None


class OptionSeries(WireModel):
    instrument_id: str
    occ_symbol: str | None = None
    symbol: str | None = None
    interval: str | None = None
    bounds: str | None = None
    bars: NullableList[OptionBar]


class OptionHistoricals(WireModel):
    results: NullableList[OptionSeries]
    not_found: NullableList[str] = Field(default_factory=list)


class OptionPosition(WireModel):
    option_id: str
    chain_id: str
    chain_symbol: str
    type: str
    quantity: Money = ZERO
    average_price: Money = ZERO
    expiration_date: date
    trade_value_multiplier: Money = ZERO
    intraday_average_open_price: OptionalMoney = None
    intraday_quantity: OptionalMoney = None
    pending_buy_quantity: Money = ZERO
    pending_sell_quantity: Money = ZERO
    pending_exercise_quantity: Money = ZERO
    pending_assignment_quantity: Money = ZERO
    pending_expiration_quantity: Money = ZERO
    opened_at: OptionalTime = None


class OptionPositionsPage(WireModel):
    positions: NullableList[OptionPosition]
    next: NextCursor = None


class OptionExecution(WireModel):
    id: str
    price: Money = ZERO
    quantity: Money = ZERO
    settlement_date: date | None = None
    trade_date: date | None = None
    timestamp: datetime


class OptionOrderLeg(WireModel):
    id: str
    option_id: str | None = None
    side: Side
    position_effect: OptionPositionEffect
    ratio_quantity: int
    expiration_date: date
    strike_price: Money = ZERO
    option_type: str
    executions: NullableList[OptionExecution] = Field(default_factory=list)


class OptionOrder(WireModel):
    id: str
    ref_id: str | None = None
    chain_id: str
    chain_symbol: str
    state: OrderStateText
    type: str
    trigger: str | None = None
    direction: OptionDirection
    quantity: Money = ZERO
    processed_quantity: Money = ZERO
    pending_quantity: Money = ZERO
    canceled_quantity: Money = ZERO
    price: OptionalMoney = None
    stop_price: OptionalMoney = None
    premium: OptionalMoney = None
    processed_premium: Money = ZERO
    trade_value_multiplier: OptionalMoney = None
    time_in_force: str | None = None
    market_hours: str | None = None
    opening_strategy: str | None = None
    closing_strategy: str | None = None
    placed_agent: str | None = None
    created_at: datetime
    updated_at: OptionalTime = None
    last_transaction_at: OptionalTime = None
    reject_reason: str | None = None
    is_replaceable: WireBool | None = None
    legs: NullableList[OptionOrderLeg]

    @property
    def is_terminal(self) -> bool:
        """Filled, cancelled, rejected …; ``False`` for an unknown state (keep watching it)."""
        return isinstance(self.state, OrderState) and self.state.is_terminal


class OptionOrdersPage(WireModel):
    orders: NullableList[OptionOrder]
    next: NextCursor = None


class OptionExercise(WireModel):
    """A request to exercise long contracts, carried out at the regular close."""

    id: str
    ref_id: str | None = None
    account_number: str | None = None
    option_id: str
    chain_symbol: str | None = None
    option_type: str | None = None
    strike_price: OptionalMoney = None
    expiration_date: date | None = None
    quantity: Money = ZERO
    state: str
    equity_side: str | None = None
    equity_quantity: OptionalMoney = None
    equity_amount: OptionalMoney = None
    reason: str | None = None
    failure_reason: str | None = None
    process_at: OptionalTime = None
    created_at: OptionalTime = None
    updated_at: OptionalTime = None
