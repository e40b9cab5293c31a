"""The crypto desk's records on the wire (inventory-only tools: plausible, consistent shapes).

Quantities are canonical strings without trailing zeros, prices as the pair quotes them,
money in cents; times as in ``_order_wire``. The order ``type`` is the one requested
(``market | limit | stop_loss | stop_limit``) and states spell ``canceled``.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from ordergate.core import Side, to_wire
from ordergate.sandbox.market import CryptoQuote
from ordergate.sandbox.venue._crypto_book import CryptoHolding
from ordergate.sandbox.venue._crypto_model import CryptoApproval, CryptoOrder, CryptoTerms
from ordergate.sandbox.venue._order_wire import (
    amount,
    approval_envelope,
    decimal_or_none,
    money,
    quantity,
    timestamp,
    with_reject_reason,
)

__all__ = ["approval_wire", "holding_wire", "order_wire", "quote_wire"]


def order_wire(order: CryptoOrder) -> dict[str, Any]:
    terms = order.terms
    last = order.last_transaction_at
    wire: dict[str, Any] = {
        "id": order.id,
        "ref_id": order.ref_id,
        "rhs_account_number": terms.rhs_account_number,
        "currency_pair_id": terms.pair.id,
        "symbol": terms.symbol,
        "side": str(terms.side),
        "type": str(terms.type),
        "time_in_force": str(terms.time_in_force),
        "state": str(order.state),
        "quantity": quantity(terms.quantity),
        "cumulative_quantity": quantity(order.cumulative_quantity),
        "remaining_quantity": quantity(order.remaining if order.is_open else Decimal(0)),
        "dollar_amount": amount(terms.dollar_amount),
        "limit_price": decimal_or_none(terms.limit_price),
        "stop_price": decimal_or_none(terms.stop_price),
        "average_price": decimal_or_none(order.average_price),
        "executed_notional": money(order.executed_notional),
        "fees": "0.00",
        "placed_agent": str(order.placed_agent),
        "created_at": timestamp(order.created_at),
        "updated_at": timestamp(order.updated_at or order.created_at),
        "last_transaction_at": None if last is None else timestamp(last),
        "expires_at": None if order.expires_at is None else timestamp(order.expires_at),
        "executions": [
            {
                "id": e.id,
                "price": to_wire(e.price),
                "quantity": quantity(e.quantity),
                "notional": money(e.notional),
                "timestamp": timestamp(e.timestamp),
            }
            for e in order.executions
        ],
    }
    return with_reject_reason(wire, order)


def quote_wire(quote: CryptoQuote) -> dict[str, Any]:
    return {
        "symbol": quote.symbol,
        "currency_pair_id": quote.id,
        "bid_price": to_wire(quote.bid_price),
        "ask_price": to_wire(quote.ask_price),
        "mark_price": to_wire(quote.mark_price),
        "updated_at": timestamp(quote.updated_at),
    }


def proposed_order(terms: CryptoTerms) -> dict[str, Any]:
    """The ``proposed_order`` of an approval: the terms exactly as they would be placed."""
    proposed: dict[str, Any] = {
        "asset_class": "crypto",
        "symbol": terms.symbol,
        "side": str(terms.side),
        "order_type": str(terms.type),
        "time_in_force": str(terms.time_in_force),
        "trigger": "stop" if terms.stop_price is not None else "immediate",
        "quantity": quantity(terms.quantity),
        "dollar_amount": amount(terms.dollar_amount),
        "limit_price": amount(terms.limit_price, cents=False),
        "stop_price": amount(terms.stop_price, cents=False),
        "estimated_quantity": quantity(terms.quantity),
    }
    estimate = "estimated_cost" if terms.side is Side.BUY else "estimated_credit"
    proposed[estimate] = amount(terms.estimated_cost)
    return proposed


def approval_wire(approval: CryptoApproval) -> dict[str, Any]:
    return approval_envelope(
        approval,
        account_number=approval.terms.rhs_account_number,
        asset_class="crypto",
        proposed=proposed_order(approval.terms),
    )


def holding_wire(
    holding: CryptoHolding, *, mark: Decimal, held_for_sells: Decimal, now: datetime
) -> dict[str, Any]:
    pair = holding.pair
    value = holding.quantity * mark
    return {
        "currency_code": pair.asset_code,
        "currency_id": pair.asset_currency_id,
        "currency_pair_id": pair.id,
        "symbol": pair.symbol,
        "quantity": quantity(holding.quantity),
        "quantity_available": quantity(holding.quantity - held_for_sells),
        "quantity_held_for_sells": quantity(held_for_sells),
        "average_cost": to_wire(holding.average_cost),
        "cost_basis": money(holding.cost),
        "mark_price": to_wire(mark),
        "market_value": money(value),
        "unrealized_pnl": money(value - holding.cost),
        "created_at": timestamp(holding.opened_at),
        "updated_at": timestamp(holding.updated_at),
        "as_of": timestamp(now),
    }
