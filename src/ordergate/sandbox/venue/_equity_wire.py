"""The equity desk's records as Robinhood puts them on the wire (formats: ``ordergate.core``'s
``wire_*``).

Orders follow Robinhood's order resource: ``type`` is ``market`` or ``limit`` and
``trigger`` is ``immediate`` or ``stop`` (``OrderType.base_type``, ``.trigger``), so a
``stop_limit`` request reads back as a ``limit`` order with a ``stop`` trigger.
"""

from __future__ import annotations

from typing import Any

from ordergate.core import (
    to_wire,
    wire_amount,
    wire_money,
    wire_or_none,
    wire_quantity,
    wire_time,
)
from ordergate.sandbox.venue._equity_market import EquityQuote
from ordergate.sandbox.venue._equity_model import EquityApproval, EquityOrder, OrderTerms
from ordergate.sandbox.venue._order_wire import approval_envelope, with_reject_reason

__all__ = ["approval_wire", "order_wire", "quote_wire"]


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
        "type": terms.type.base_type,
        "state": str(order.state),
        "quantity": wire_quantity(terms.quantity),
        "cumulative_quantity": wire_quantity(order.cumulative_quantity),
        "price": wire_or_none(terms.limit_price),
        "stop_price": wire_or_none(terms.stop_price),
        "average_price": None if average is None else wire_quantity(average),
        "fees": wire_money(order.fees),
        "dollar_based_amount": wire_amount(terms.dollar_amount),
        "time_in_force": str(terms.time_in_force),
        "market_hours": str(terms.market_hours),
        "trigger": terms.type.trigger,
        "placed_agent": str(order.placed_agent),
        "created_at": wire_time(order.created_at),
        "last_transaction_at": None if last is None else wire_time(last),
        "executions": [
            {
                "id": e.id,
                "price": to_wire(e.price),
                "quantity": wire_quantity(e.quantity),
                "timestamp": wire_time(e.timestamp),
                "fees": wire_money(e.fees),
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
        "trigger": terms.type.trigger,
        "quantity": wire_quantity(terms.quantity),
        "dollar_amount": wire_amount(terms.dollar_amount),
        "limit_price": wire_amount(terms.limit_price, cents=False),
        "stop_price": wire_amount(terms.stop_price, cents=False),
        "estimated_quantity": wire_quantity(terms.quantity),
    }
    if terms.side.value == "buy":
        proposed["estimated_cost"] = wire_amount(terms.estimated_cost)
    else:
        proposed["estimated_credit"] = wire_amount(terms.estimated_cost)
    if terms.tax_lots:
        proposed["tax_lot_selection_type"] = "specific_lots"
        proposed["tax_lots"] = [
            {"open_lot_id": lot_id, "quantity": wire_quantity(take)}
            for lot_id, take in terms.tax_lots
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
        "venue_last_trade_time": wire_time(quote.last_trade_at),
        "last_non_reg_trade_price": wire_or_none(quote.last_non_regular),
        "venue_last_non_reg_trade_time": None
        if non_regular_at is None
        else wire_time(non_regular_at),
        "adjusted_previous_close": to_wire(quote.previous_close),
        "previous_close": to_wire(quote.previous_close),
        "previous_close_date": None
        if quote.previous_close_date is None
        else quote.previous_close_date.isoformat(),
        "bid_price": to_wire(quote.bid),
        "venue_bid_time": wire_time(quote.at),
        "ask_price": to_wire(quote.ask),
        "venue_ask_time": wire_time(quote.at),
        "has_traded": True,
        "state": state,
    }
