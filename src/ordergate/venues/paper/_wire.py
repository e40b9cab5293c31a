"""The paper book's orders, positions and portfolio in the venue's own wire shapes.

Orders follow the captured ``get_equity_orders`` output schema (contract 1.7.0) field for
field; the portfolio the captured ``get_portfolio`` schema; positions the rows the venue's
``get_equity_positions`` answers (no output schema of it was captured). Amounts are strings,
dollars in cents, shares and prices without trailing zeros, instants in UTC with a ``Z``.

What the paper book does not hold is said plainly rather than invented: an order's
``instrument_id`` is ``paper:SYMBOL`` (the book keeps no broker instrument), fees are zero
(the paper broker charges none), a position's cost basis is the net cash its fills cost.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from ordergate.core import (
    ZERO,
    Side,
    to_wire,
    wire_amount,
    wire_money,
    wire_or_none,
    wire_quantity,
    wire_time,
)
from ordergate.venues import AccountView
from ordergate.venues.paper._book import PaperOrder

__all__ = ["PAPER_AGENT", "instrument_id", "order_wire", "portfolio_wire", "position_wire"]

PAPER_AGENT = "agentic"
"""Every paper order was placed by an agent through the gateway."""
NO_FEES = ZERO_DOLLARS = "0.00"
_PRICE = Decimal("0.0001")
_OTHER_VALUES = (
    "options_value",
    "futures_value",
    "event_contracts_value",
    "crypto_value",
)
_LATER_VALUES = ("mutual_funds_value", "fixed_income_value")


def instrument_id(symbol: str) -> str:
    return f"paper:{symbol}"


def _last_transaction(order: PaperOrder) -> datetime | None:
    if order.fills:
        return max(fill.executed_at for fill in order.fills)
    return None if order.open else order.updated_at


def order_wire(order: PaperOrder) -> dict[str, Any]:
    """One paper order as ``get_equity_orders`` lists an order."""
    proposal = order.proposal
    broker = order.broker_order()
    last = _last_transaction(order)
    wire: dict[str, Any] = {
        "id": order.order_id,
        "ref_id": str(order.ref_id),
        "instrument_id": instrument_id(order.symbol),
        "symbol": order.symbol,
        "side": order.side.value,
        "type": proposal.order_type.base_type,
        "state": order.state.value,
        "quantity": None if broker.quantity is None else wire_quantity(broker.quantity),
        "cumulative_quantity": wire_quantity(broker.cumulative_quantity),
        "price": wire_or_none(proposal.limit_price),
        "stop_price": wire_or_none(proposal.stop_price),
        "average_price": None
        if broker.average_price is None
        else wire_quantity(broker.average_price.quantize(_PRICE)),
        "fees": NO_FEES,
        "dollar_based_amount": wire_amount(proposal.notional),
        "time_in_force": proposal.time_in_force.value,
        "market_hours": proposal.market_hours.value,
        "trigger": proposal.order_type.trigger,
        "placed_agent": PAPER_AGENT,
        "created_at": wire_time(order.created_at),
        "last_transaction_at": None if last is None else wire_time(last),
        "executions": [
            {
                "id": fill.id,
                "price": to_wire(fill.price),
                "quantity": wire_quantity(fill.quantity),
                "timestamp": wire_time(fill.executed_at),
                "fees": NO_FEES,
            }
            for fill in order.fills
        ],
    }
    if order.reject_reason:
        wire["reject_reason"] = order.reject_reason
    return wire


def position_wire(
    account: str,
    symbol: str,
    *,
    held: tuple[Decimal, Decimal],
    last: Decimal,
    open_orders: tuple[PaperOrder, ...],
) -> dict[str, Any]:
    """One paper holding as ``get_equity_positions`` lists a position; ``held`` is its
    ``(shares, net cost)``, ``last`` the symbol's last trade price."""
    quantity, cost = held
    value = quantity * last
    for_buys = _offered(open_orders, symbol, Side.BUY)
    for_sells = _offered(open_orders, symbol, Side.SELL)
    return {
        "account_number": account,
        "symbol": symbol,
        "instrument_id": instrument_id(symbol),
        "quantity": wire_quantity(quantity),
        "average_buy_price": to_wire((cost / quantity).quantize(_PRICE)),
        "cost_basis": wire_money(cost),
        "last_trade_price": to_wire(last),
        "market_value": wire_money(value),
        "unrealized_pnl": wire_money(value - cost),
        "shares_held_for_buys": wire_quantity(for_buys),
        "shares_held_for_sells": wire_quantity(for_sells),
        "shares_available_for_sells": wire_quantity(quantity - for_sells),
    }


def _offered(open_orders: tuple[PaperOrder, ...], symbol: str, side: Side) -> Decimal:
    """The shares open orders of ``side`` in ``symbol`` name (a dollar order names none yet)."""
    return sum(
        (
            order.proposal.quantity
            for order in open_orders
            if order.symbol == symbol and order.side is side and order.proposal.quantity
        ),
        ZERO,
    )


def portfolio_wire(view: AccountView) -> dict[str, Any]:
    """The paper account as ``get_portfolio`` answers it; ``view`` has every figure known
    (the caller refuses an account it cannot value)."""
    assert view.equity is not None and view.cash is not None
    assert view.buying_power is not None and view.positions is not None
    equity_value = sum((held.market_value for held in view.positions.values()), ZERO)
    buying_power = wire_money(view.buying_power)
    data: dict[str, Any] = {
        "total_value": wire_money(view.equity),
        "equity_value": wire_money(equity_value),
    }
    data.update(dict.fromkeys(_OTHER_VALUES, ZERO_DOLLARS))
    data.update({"cash": wire_money(view.cash), "pending_deposits": ZERO_DOLLARS})
    data.update(dict.fromkeys(_LATER_VALUES, ZERO_DOLLARS))
    data.update(
        {
            "currency": "USD",
            "buying_power": {
                "buying_power": buying_power,
                "unleveraged_buying_power": buying_power,
                "intraday_buying_power": None,
                "off_intraday_buying_power": None,
                "display_currency": "USD",
            },
            "crypto_buying_power": None,
        }
    )
    return data
