"""The options desk's records as Robinhood puts them on the wire.

Orders, legs and positions follow the contract's ``get_option_orders`` /
``get_option_positions`` shapes exactly (no field outside the output schema). Premiums are
per share (``2.35``); ``premium`` and ``processed_premium`` are dollars (x 100 a contract).
Money is in cents, times are those of ``_order_wire`` (ISO-8601 UTC, microseconds, ``Z``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from ordergate.calendar import NyseCalendar
from ordergate.core import OptionDirection, Side, to_wire, wire_amount, wire_money, wire_time
from ordergate.sandbox.market import MULTIPLIER, OptionType
from ordergate.sandbox.venue._options_book import OptionPosition
from ordergate.sandbox.venue._options_model import (
    OptionApproval,
    OptionExecution,
    OptionExercise,
    OptionLeg,
    OptionOrder,
    OptionTerms,
)
from ordergate.sandbox.venue._order_wire import approval_envelope, with_reject_reason

__all__ = [
    "approval_wire",
    "exercise_wire",
    "order_wire",
    "position_wire",
    "strategy",
]

_Held = tuple[OptionType, bool, Decimal, date]


def _held(leg: OptionLeg, *, closing: bool) -> _Held:
    """(type, long?, strike, expiration) of the position a leg opens or closes."""
    buys = leg.side is Side.BUY
    instrument = leg.instrument
    long = not buys if closing else buys
    return instrument.type, long, instrument.strike_price, instrument.expiration_date


def _name(held: Sequence[_Held]) -> str:
    if len(held) == 1:
        kind, long, _, _ = held[0]
        return f"{'long' if long else 'short'}_{kind}"
    if len(held) == 2:
        (kind_a, long_a, strike_a, exp_a), (kind_b, long_b, strike_b, exp_b) = held
        if kind_a is kind_b and long_a != long_b:
            if exp_a != exp_b:
                return "calendar_spread"
            low_is_long = (strike_a < strike_b) == long_a
            debit = low_is_long if kind_a is OptionType.CALL else not low_is_long
            return f"{'long' if debit else 'short'}_{kind_a}_spread"
        if kind_a is not kind_b and long_a == long_b and exp_a == exp_b:
            shape = "straddle" if strike_a == strike_b else "strangle"
            return f"{'long' if long_a else 'short'}_{shape}"
    return "custom"


def strategy(legs: Sequence[OptionLeg], *, closing: bool) -> str | None:
    """The strategy the order's opening (or closing) legs make, ``None`` when it has none."""
    effect = "close" if closing else "open"
    held = [_held(leg, closing=closing) for leg in legs if leg.position_effect == effect]
    return _name(held) if held else None


def _settlement(calendar: NyseCalendar, trade_date: date) -> date:
    days = calendar.session_days(trade_date + timedelta(days=1), trade_date + timedelta(days=14))
    return days[0] if days else trade_date + timedelta(days=1)


def _execution_wire(execution: OptionExecution, calendar: NyseCalendar) -> dict[str, Any]:
    trade_date = calendar.market_date(execution.timestamp)
    return {
        "id": execution.id,
        "price": to_wire(execution.price),
        "quantity": str(execution.quantity),
        "settlement_date": _settlement(calendar, trade_date).isoformat(),
        "trade_date": trade_date.isoformat(),
        "timestamp": wire_time(execution.timestamp),
    }


def _leg_wire(
    leg: OptionLeg,
    leg_id: str,
    executions: Sequence[OptionExecution],
    calendar: NyseCalendar,
) -> dict[str, Any]:
    instrument = leg.instrument
    return {
        "id": leg_id,
        "option_id": instrument.id,
        "side": str(leg.side),
        "position_effect": str(leg.position_effect),
        "ratio_quantity": leg.ratio_quantity,
        "expiration_date": instrument.expiration_date.isoformat(),
        "strike_price": to_wire(instrument.strike_price),
        "option_type": str(instrument.type),
        "executions": [_execution_wire(e, calendar) for e in executions],
    }


def _order_price(terms: OptionTerms) -> Decimal:
    return terms.price if terms.price is not None else terms.estimated_price


def order_wire(order: OptionOrder, calendar: NyseCalendar) -> dict[str, Any]:
    terms = order.terms
    price = _order_price(terms)
    processed = order.processed_quantity
    last = order.last_transaction_at
    wire: dict[str, Any] = {
        "id": order.id,
        "chain_id": terms.chain_id,
        "chain_symbol": terms.chain_symbol,
        "state": str(order.state),
        "type": str(terms.type),
        "trigger": "immediate",
        "direction": str(terms.direction),
        "quantity": str(terms.quantity),
        "processed_quantity": str(processed),
        "pending_quantity": str(order.pending_quantity),
        "canceled_quantity": str(order.canceled_quantity),
        "price": to_wire(price),
        "stop_price": None,
        "premium": wire_money(price * MULTIPLIER),
        "processed_premium": wire_money(order.processed_premium),
        "trade_value_multiplier": to_wire(MULTIPLIER),
        "time_in_force": str(terms.time_in_force),
        "market_hours": "regular_hours",
        "opening_strategy": strategy(terms.legs, closing=False),
        "closing_strategy": strategy(terms.legs, closing=True),
        "placed_agent": str(order.placed_agent),
        "created_at": wire_time(order.created_at),
        "updated_at": wire_time(order.updated_at or order.created_at),
        "last_transaction_at": None if last is None else wire_time(last),
        "is_replaceable": False,
        "legs": [
            _leg_wire(leg, leg_id, executions, calendar)
            for leg, leg_id, executions in zip(
                terms.legs, order.leg_ids, order.executions, strict=True
            )
        ],
    }
    return with_reject_reason(wire, order)


def position_wire(
    position: OptionPosition,
    *,
    calendar: NyseCalendar,
    now: datetime,
    pending_buy: int,
    pending_sell: int,
    pending_exercise: int,
) -> dict[str, Any]:
    instrument = position.instrument
    today = calendar.market_date(now)
    intraday = [(n, price) for at, n, price in position.opens if calendar.market_date(at) == today]
    intraday_contracts = sum(n for n, _ in intraday)
    intraday_cost = sum((n * price for n, price in intraday), Decimal(0))
    intraday_average = intraday_cost / intraday_contracts if intraday_contracts else Decimal(0)
    expiring = instrument.expiration_date == today and position.quantity != 0
    return {
        "option_id": instrument.id,
        "chain_id": instrument.chain_id,
        "chain_symbol": instrument.chain_symbol,
        "type": "long" if position.quantity >= 0 else "short",
        "quantity": str(position.contracts),
        "average_price": wire_money(position.average_price * MULTIPLIER),
        "expiration_date": instrument.expiration_date.isoformat(),
        "trade_value_multiplier": to_wire(MULTIPLIER),
        "intraday_average_open_price": wire_money(intraday_average * MULTIPLIER),
        "intraday_quantity": str(min(intraday_contracts, position.contracts)),
        "pending_buy_quantity": str(pending_buy),
        "pending_sell_quantity": str(pending_sell),
        "pending_exercise_quantity": str(pending_exercise),
        "pending_assignment_quantity": "0",
        "pending_expiration_quantity": str(position.contracts if expiring else 0),
        "opened_at": wire_time(position.opened_at),
    }


def _sub_order(leg: OptionLeg, terms: OptionTerms, primary: bool) -> dict[str, Any]:
    return {
        "asset_class": "option",
        "side": str(leg.side),
        "quantity": str(terms.contracts(leg)),
        "order_type": str(terms.type),
        "trigger": "immediate",
        "limit_price": None,
        "stop_price": None,
        "time_in_force": str(terms.time_in_force),
        "is_primary": primary,
    }


def proposed_order(terms: OptionTerms) -> dict[str, Any]:
    """The ``proposed_order`` of an approval: the terms exactly as they would be placed."""
    price = _order_price(terms)
    proposed: dict[str, Any] = {
        "asset_class": "option",
        "symbol": terms.chain_symbol,
        "order_type": str(terms.type),
        "time_in_force": str(terms.time_in_force),
        "market_hours": "regular_hours",
        "trigger": "immediate",
        "quantity": str(terms.quantity),
        "limit_price": wire_amount(terms.price, cents=False),
        "estimated_quantity": str(terms.quantity),
    }
    estimate = wire_amount(price * MULTIPLIER * terms.quantity)
    if terms.direction is OptionDirection.DEBIT:
        proposed["estimated_cost"] = estimate
    else:
        proposed["estimated_credit"] = estimate
    if len(terms.legs) == 1:
        leg = terms.legs[0]
        proposed.update(
            {
                "side": str(leg.side),
                "strike_price": wire_amount(leg.instrument.strike_price, cents=False),
                "expiration_date": leg.instrument.expiration_date.isoformat(),
                "option_type": str(leg.instrument.type),
                "position_effect": str(leg.position_effect),
            }
        )
    else:
        proposed["sub_orders"] = [
            _sub_order(leg, terms, index == 0) for index, leg in enumerate(terms.legs)
        ]
    return proposed


def approval_wire(approval: OptionApproval) -> dict[str, Any]:
    return approval_envelope(
        approval,
        account_number=approval.terms.account_number,
        asset_class="option",
        proposed=proposed_order(approval.terms),
    )


def exercise_wire(exercise: OptionExercise) -> dict[str, Any]:
    instrument = exercise.instrument
    wire: dict[str, Any] = {
        "id": exercise.id,
        "ref_id": exercise.ref_id,
        "account_number": exercise.account_number,
        "option_id": instrument.id,
        "chain_symbol": instrument.chain_symbol,
        "option_type": str(instrument.type),
        "strike_price": to_wire(instrument.strike_price),
        "expiration_date": instrument.expiration_date.isoformat(),
        "quantity": str(exercise.quantity),
        "state": str(exercise.state),
        "equity_side": "buy" if instrument.type is OptionType.CALL else "sell",
        "equity_quantity": to_wire(exercise.shares),
        "equity_amount": wire_money(exercise.strike_value),
        "reason": exercise.reason,
        "process_at": wire_time(exercise.process_at),
        "created_at": wire_time(exercise.created_at),
        "updated_at": wire_time(exercise.updated_at or exercise.created_at),
    }
    if exercise.failure_reason is not None:
        wire["failure_reason"] = exercise.failure_reason
    return wire
