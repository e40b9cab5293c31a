"""Option orders for the policy tests: contracts on one expiry, legs by a short spelling."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from ordergate.core import OptionDirection, OptionPositionEffect, OptionType, OrderType, Side
from ordergate.policy.options import OptionContract, OptionLeg, OptionProposal

D = Decimal
EXPIRY = date(2026, 12, 18)
CALL = OptionType.CALL
PUT = OptionType.PUT
BUY = Side.BUY
SELL = Side.SELL
OPEN = OptionPositionEffect.OPEN
CLOSE = OptionPositionEffect.CLOSE
DEBIT = OptionDirection.DEBIT
CREDIT = OptionDirection.CREDIT


def contract(
    strike: int | str, kind: OptionType = CALL, *, underlying: str = "SPY", expiry: date = EXPIRY
) -> OptionContract:
    return OptionContract(underlying, expiry, D(strike), kind)


def leg(
    side: Side,
    strike: int | str,
    kind: OptionType = CALL,
    *,
    effect: OptionPositionEffect = OPEN,
    ratio: int = 1,
    underlying: str = "SPY",
    expiry: date = EXPIRY,
) -> OptionLeg:
    option_id = f"{underlying}-{expiry.isoformat()}-{kind.value[0]}{strike}"
    return OptionLeg(
        option_id, contract(strike, kind, underlying=underlying, expiry=expiry), side, effect, ratio
    )


def order(
    *legs: OptionLeg,
    quantity: int = 1,
    price: str | None = "1.00",
    direction: OptionDirection | None = None,
) -> OptionProposal:
    if direction is None:
        direction = DEBIT if legs[0].side is BUY else CREDIT
    return OptionProposal(
        legs=legs,
        quantity=quantity,
        direction=direction,
        order_type=OrderType.LIMIT if price is not None else OrderType.MARKET,
        limit_price=None if price is None else D(price),
    )
