"""The crypto desk's records on the wire (inventory-only tools: plausible, consistent shapes).

Quantities are canonical strings without trailing zeros, prices as the pair quotes them,
money in cents; times as in ``_order_wire``. The order ``type`` is the one requested
(``market | limit | stop_loss | stop_limit``) and states spell ``canceled``.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from ordergate.core import (
    Side,
    to_wire,
    wire_amount,
    wire_money,
    wire_or_none,
    wire_quantity,
    wire_time,
)
from ordergate.sandbox.market import CryptoQuote
from ordergate.sandbox.venue._crypto_book import CryptoHolding
from ordergate.sandbox.venue._crypto_model import CryptoApproval, CryptoOrder, CryptoTerms
from ordergate.sandbox.venue._order_wire import approval_envelope, with_reject_reason

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
        "quantity": wire_quantity(terms.quantity),
        "cumulative_quantity": wire_quantity(order.cumulative_quantity),
        "remaining_quantity": wire_quantity(order.remaining if order.is_open else Decimal(0)),
        "dollar_amount": wire_amount(terms.dollar_amount),
        "limit_price": wire_or_none(terms.limit_price),
        "stop_price": wire_or_none(terms.stop_price),
        "average_price": wire_or_none(order.average_price),
        "executed_notional": wire_money(order.executed_notional),
        "fees": "0.00",
        "placed_agent": str(order.placed_agent),
        "created_at": wire_time(order.created_at),
        "updated_at": wire_time(order.updated_at or order.created_at),
        "last_transaction_at": None if last is None else wire_time(last),
        "expires_at": None if order.expires_at is None else wire_time(order.expires_at),
        "executions": [
            {
                "id": e.id,
                "price": to_wire(e.price),
                "quantity": wire_quantity(e.quantity),
                "notional": wire_money(e.notional),
                "timestamp": wire_time(e.timestamp),
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
        "updated_at": wire_time(quote.updated_at),
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
        "quantity": wire_quantity(terms.quantity),
        "dollar_amount": wire_amount(terms.dollar_amount),
        "limit_price": wire_amount(terms.limit_price, cents=False),
        "stop_price": wire_amount(terms.stop_price, cents=False),
        "estimated_quantity": wire_quantity(terms.quantity),
    }
    estimate = "estimated_cost" if terms.side is Side.BUY else "estimated_credit"
    proposed[estimate] = wire_amount(terms.estimated_cost)
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
        "quantity": wire_quantity(holding.quantity),
        "quantity_available": wire_quantity(holding.quantity - held_for_sells),
        "quantity_held_for_sells": wire_quantity(held_for_sells),
        "average_cost": to_wire(holding.average_cost),
        "cost_basis": wire_money(holding.cost),
        "mark_price": to_wire(mark),
        "market_value": wire_money(value),
        "unrealized_pnl": wire_money(value - holding.cost),
        "created_at": wire_time(holding.opened_at),
        "updated_at": wire_time(holding.updated_at),
        "as_of": wire_time(now),
    }
