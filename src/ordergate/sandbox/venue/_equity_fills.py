"""When and at what price a working equity order executes against a quote.

- A stop order waits until the last trade crosses its stop (buy: last ≥ stop; sell:
  last ≤ stop), then works as a market (``stop_market``) or limit (``stop_limit``) order.
- A market order takes the ask (buy) or the bid (sell); a market buy never pays more than
  the collar price it was held at, so it rests while the ask is above it.
- A limit order executes once the market crosses it (buy: ask ≤ limit; sell: bid ≥ limit),
  at the quote, which is never worse than the limit.
- One execution takes at most the size displayed on the side it trades against, so an
  order bigger than the book fills in several executions.

Sells pay Robinhood's pass-through regulatory fees (SEC Section 31 and FINRA TAF); buys
pay nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from ordergate.core import ZERO, OrderType, Side
from ordergate.sandbox.venue._equity_market import EquityQuote
from ordergate.sandbox.venue._equity_model import EquityOrder

__all__ = ["Fill", "match", "regulatory_fees", "stop_triggered"]

_CENT = Decimal("0.01")
# SEC Section 31 fee: $27.80 per million dollars of sale proceeds.
_SEC_RATE = Decimal("0.0000278")
# FINRA Trading Activity Fee: $0.000166 a share sold, at most $8.30 a trade.
_TAF_PER_SHARE = Decimal("0.000166")
_TAF_CAP = Decimal("8.30")


@dataclass(frozen=True, slots=True)
class Fill:
    price: Decimal
    quantity: Decimal


def regulatory_fees(side: Side, price: Decimal, quantity: Decimal) -> Decimal:
    """Fees charged on one execution, each fee rounded up to the cent as brokers do."""
    if side is Side.BUY:
        return Decimal("0.00")
    sec = (price * quantity * _SEC_RATE).quantize(_CENT, rounding=ROUND_CEILING)
    taf = min(quantity * _TAF_PER_SHARE, _TAF_CAP).quantize(_CENT, rounding=ROUND_CEILING)
    return sec + taf


def stop_triggered(order: EquityOrder, quote: EquityQuote) -> bool:
    stop = order.terms.stop_price
    if stop is None:
        return True
    return quote.last >= stop if order.side is Side.BUY else quote.last <= stop


def match(order: EquityOrder, quote: EquityQuote) -> Fill | None:
    """The execution ``order`` gets against ``quote`` (a triggered stop), or ``None``."""
    terms = order.terms
    buying = terms.side is Side.BUY
    price = quote.ask if buying else quote.bid
    size = quote.ask_size if buying else quote.bid_size
    if price <= 0 or size <= 0:
        return None
    if terms.type in (OrderType.LIMIT, OrderType.STOP_LIMIT):
        assert terms.limit_price is not None
        crossed = price <= terms.limit_price if buying else price >= terms.limit_price
        if not crossed:
            return None
    elif buying and price > terms.estimated_price:
        return None
    quantity = min(order.remaining, size)
    return Fill(price=price, quantity=quantity) if quantity > ZERO else None
