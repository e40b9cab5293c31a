"""What an order holds against the rolling daily spend while it works: the most it can cost.

The cap must hold for what *fills*, not for what was estimated, so a working order holds its
worst case, and the reconciler later corrects the hold to what actually filled:

- a dollar-amount order: its amount (the broker never spends more);
- a limit or stop-limit buy: quantity × the limit (it never fills above);
- a market or stop-market buy: quantity × the price (the ask, or the stop when higher) plus
  ``MARKET_BUY_COLLAR``, the 5 % above the ask up to which Robinhood executes a market buy;
- a sell that opens or grows a short: its estimated notional;
- an order that only reduces a position, when the policy exempts those: nothing.

Rounded up to the cent. A hold that cannot be priced is the estimate's notional (``None``
only for an order the engine refused).
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from ordergate.core import OrderType, Side
from ordergate.policy import Decision, PolicyConfig, Proposal, Terms

__all__ = ["MARKET_BUY_COLLAR", "hold_for"]

MARKET_BUY_COLLAR = Decimal("0.05")
_CENT = Decimal("0.01")
_ZERO = Decimal(0)


def hold_for(proposal: Proposal, terms: Terms, decision: Decision, policy: PolicyConfig) -> Decimal:
    if not decision.allowed:
        return _ZERO
    if decision.reduces_position and policy.reducing_exempt:
        return _ZERO
    if proposal.notional is not None:
        return proposal.notional
    quantity = proposal.quantity
    assert quantity is not None
    if proposal.side is Side.BUY:
        if proposal.order_type in (OrderType.LIMIT, OrderType.STOP_LIMIT):
            assert proposal.limit_price is not None
            return _cents(quantity * proposal.limit_price)
        price = terms.price
        if price is not None:
            if proposal.stop_price is not None:
                price = max(price, proposal.stop_price)
            return _cents(quantity * price * (1 + MARKET_BUY_COLLAR))
    return _cents(terms.notional) if terms.notional is not None else _ZERO


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_CEILING)
