"""A grade's arithmetic: the excess return of one filled placement over SPY, in basis points.

For a fill at average price ``P`` and the close ``C`` one trading day later, with SPY at
``S0`` when the order filled and ``S1`` at that same close::

    return  = C / P - 1
    spy     = S1 / S0 - 1
    excess  = sign × (return − spy) × 10 000       sign = +1 for a buy, −1 for a sell

A sell is a bet that the symbol does worse than the market, so the whole excess is negated
(selling SPY itself grades 0). Everything is exact ``Decimal`` arithmetic at 40 digits; only
the figures stored are rounded, each on its own to hundredths of a basis point, half to even
(``ROUND_HALF_EVEN``): the excess is rounded from the exact difference, not from the two
rounded returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from ordergate.core import Side

__all__ = ["BPS_PLACES", "Excess", "excess_bps"]

BPS_PLACES = Decimal("0.01")
_BPS = Decimal(10_000)
_PRECISION = 40


@dataclass(frozen=True, slots=True)
class Excess:
    """A placement's return, SPY's over the same span, and the signed excess, in bps."""

    return_bps: Decimal
    spy_bps: Decimal
    excess_bps: Decimal


def _rounded(value: Decimal) -> Decimal:
    return value.quantize(BPS_PLACES, rounding=ROUND_HALF_EVEN)


def excess_bps(
    side: Side, *, fill: Decimal, close: Decimal, spy_start: Decimal, spy_close: Decimal
) -> Excess:
    """The grade of one placement; ``ValueError`` naming the price that is not positive."""
    for name, price in (
        ("fill", fill),
        ("close", close),
        ("spy_start", spy_start),
        ("spy_close", spy_close),
    ):
        if not price.is_finite() or price <= 0:
            raise ValueError(f"{name} must be a positive price")
    sign = Decimal(-1) if side is Side.SELL else Decimal(1)
    with localcontext() as context:
        context.prec = _PRECISION
        own = (close / fill - 1) * _BPS
        spy = (spy_close / spy_start - 1) * _BPS
        excess = sign * (own - spy)
        return Excess(return_bps=_rounded(own), spy_bps=_rounded(spy), excess_bps=_rounded(excess))
