"""The equity desk's records as Robinhood puts them on the wire (formats: ``_order_wire``).

Orders follow Robinhood's order resource: ``type`` is ``market`` or ``limit`` and
``trigger`` is ``immediate`` or ``stop``, so a ``stop_limit`` request reads back as a
``limit`` order with a ``stop`` trigger.
"""

from __future__ import annotations

from typing import Any

from ordergate.core import OrderType, to_wire
from ordergate.sandbox.venue._equity_market import EquityQuote
from ordergate.sandbox.venue._equity_model import EquityApproval, EquityOrder, OrderTerms
from ordergate.sandbox.venue._order_wire import (
    amount,
    approval_envelope,
    decimal_or_none,
    money,
    quantity,
    timestamp,
    with_reject_reason,
)

# amount, money, quantity and timestamp are the shared formats, still importable from here.
__all__ = [
    "amount",
    "approval_wire",
    "money",
    "order_wire",
    "quantity",
    "quote_wire",
    "timestamp",
]


def _base_type(order_type: OrderType) -> str:
    return "limit" if order_type.needs_limit_price else "market"


def _trigger(order_type: OrderType) -> str:
    return "stop" if order_type.needs_stop_price else "immediate"


def order_wire(order: EquityOrder) -> dict[str, Any]:
    terms = order.terms
    average = order.average_price
    last = order.last_transaction_at
    wire: dict[str, Any] = {
        "id": order.id,
        "ref_id": order.ref_id,
        "instrument_id": terms.listing.instrument_id,
        "symbol": terms.symbol,
        "side": str(terms.side),
        "type": _base_type(terms.type),
        "state": str(order.state),
        "quantity": quantity(terms.quantity),
        "cumulative_quantity": quantity(order.cumulative_quantity),
        "price": decimal_or_none(terms.limit_price),
        "stop_price": decimal_or_none(terms.stop_price),
        "average_price": None if average is None else quantity(average),
        "fees": money(order.fees),
        "dollar_based_amount": amount(terms.dollar_amount),
        "time_in_force": str(terms.time_in_force),
        "market_hours": str(terms.market_hours),
        "trigger": _trigger(terms.type),
        "placed_agent": str(order.placed_agent),
        "created_at": timestamp(order.created_at),
        "last_transaction_at": None if last is None else timestamp(last),
        "executions": [
            {
                "id": e.id,
                "price": to_wire(e.price),
                "quantity": quantity(e.quantity),
                "timestamp": timestamp(e.timestamp),
                "fees": money(e.fees),
            }
            for e in order.executions
        ],
    }
    return with_reject_reason(wire, order)


def proposed_order(terms: OrderTerms) -> dict[str, Any]:
    """The ``proposed_order`` of an approval: the terms exactly as they would be placed."""
    proposed: dict[str, Any] = {
        "asset_class": "equity",
        "symbol": terms.symbol,
        "side": str(terms.side),
        "order_type": str(terms.type),
        "time_in_force": str(terms.time_in_force),
        "market_hours": str(terms.market_hours),
        "trigger": _trigger(terms.type),
        "quantity": quantity(terms.quantity),
        "dollar_amount": amount(terms.dollar_amount),
        "limit_price": amount(terms.limit_price, cents=False),
        "stop_price": amount(terms.stop_price, cents=False),
        "estimated_quantity": quantity(terms.quantity),
    }
    if terms.side.value == "buy":
        proposed["estimated_cost"] = amount(terms.estimated_cost)
    else:
        proposed["estimated_credit"] = amount(terms.estimated_cost)
    if terms.tax_lots:
        proposed["tax_lot_selection_type"] = "specific_lots"
        proposed["tax_lots"] = [
            {"open_lot_id": lot_id, "quantity": quantity(take)} for lot_id, take in terms.tax_lots
        ]
    return proposed


def approval_wire(approval: EquityApproval) -> dict[str, Any]:
    return approval_envelope(
        approval,
        account_number=approval.terms.account_number,
        asset_class="equity",
        proposed=proposed_order(approval.terms),
    )


def quote_wire(quote: EquityQuote, *, state: str = "active") -> dict[str, Any]:
    """A ``quote_data`` object as ``review_equity_order`` returns it."""
    non_regular_at = quote.last_non_regular_at
    return {
        "symbol": quote.symbol,
        "last_trade_price": to_wire(quote.last),
        "venue_last_trade_time": timestamp(quote.last_trade_at),
        "last_non_reg_trade_price": decimal_or_none(quote.last_non_regular),
        "venue_last_non_reg_trade_time": None
        if non_regular_at is None
        else timestamp(non_regular_at),
        "adjusted_previous_close": to_wire(quote.previous_close),
        "previous_close": to_wire(quote.previous_close),
        "previous_close_date": None
        if quote.previous_close_date is None
        else quote.previous_close_date.isoformat(),
        "bid_price": to_wire(quote.bid),
        "venue_bid_time": timestamp(quote.at),
        "ask_price": to_wire(quote.ask),
        "venue_ask_time": timestamp(quote.at),
        "has_traded": True,
        "state": state,
    }
