"""Black–Scholes value and greeks of a European option, entirely in Decimal.

The normal CDF is Abramowitz & Stegun 26.2.17 (absolute error below 7.5e-8), which is far
finer than a premium's cent. Every function runs in its own 18-digit context so results do
not depend on whatever context the caller has set.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Context, Decimal, localcontext

__all__ = ["Valuation", "black_scholes", "norm_cdf", "norm_pdf", "probability_above"]

_CONTEXT = Context(prec=18)
_ONE = Decimal(1)
_TWO = Decimal(2)
_P = Decimal("0.2316419")
_B = (
    Decimal("0.319381530"),
    Decimal("-0.356563782"),
    Decimal("1.781477937"),
    Decimal("-1.821255978"),
    Decimal("1.330274429"),
)
_INV_SQRT_2PI = Decimal("0.398942280401432678")
_DAYS_PER_YEAR = Decimal(365)
_HUNDRED = Decimal(100)


def norm_pdf(x: Decimal) -> Decimal:
    """The standard normal density at ``x``."""
    with localcontext(_CONTEXT):
        return _INV_SQRT_2PI * (-(x * x) / _TWO).exp()


def norm_cdf(x: Decimal) -> Decimal:
    """The standard normal distribution function at ``x`` (A&S 26.2.17)."""
    with localcontext(_CONTEXT):
        z = abs(x)
        t = _ONE / (_ONE + _P * z)
        poly = Decimal(0)
        for coefficient in reversed(_B):
            poly = (poly + coefficient) * t
        upper = norm_pdf(z) * poly
        return _ONE - upper if x >= 0 else upper


@dataclass(frozen=True, slots=True)
class Valuation:
    """Value and sensitivities of one option contract share.

    ``vega`` and ``rho`` are per one percentage point, ``theta`` per calendar day.
    """

    price: Decimal
    delta: Decimal
    gamma: Decimal
    theta: Decimal
    vega: Decimal
    rho: Decimal


def _d2(spot: Decimal, strike: Decimal, years: Decimal, sigma: Decimal, rate: Decimal) -> Decimal:
    root = years.sqrt()
    return ((spot / strike).ln() + (rate - sigma * sigma / _TWO) * years) / (sigma * root)


def black_scholes(
    is_call: bool, spot: Decimal, strike: Decimal, years: Decimal, sigma: Decimal, rate: Decimal
) -> Valuation:
    """Value a European call (``is_call``) or put; ``years`` and ``sigma`` must be positive."""
    if years <= 0 or sigma <= 0 or spot <= 0 or strike <= 0:
        raise ValueError("Black–Scholes needs positive spot, strike, time and volatility")
    with localcontext(_CONTEXT):
        root = years.sqrt()
        d1 = ((spot / strike).ln() + (rate + sigma * sigma / _TWO) * years) / (sigma * root)
        d2 = d1 - sigma * root
        discounted = strike * (-rate * years).exp()
        density = norm_pdf(d1)
        decay = -spot * density * sigma / (_TWO * root)
        if is_call:
            n_d1, n_d2 = norm_cdf(d1), norm_cdf(d2)
            price = spot * n_d1 - discounted * n_d2
            delta = n_d1
            theta = (decay - rate * discounted * n_d2) / _DAYS_PER_YEAR
            rho = discounted * years * n_d2 / _HUNDRED
        else:
            n_d1, n_d2 = norm_cdf(-d1), norm_cdf(-d2)
            price = discounted * n_d2 - spot * n_d1
            delta = -n_d1
            theta = (decay + rate * discounted * n_d2) / _DAYS_PER_YEAR
            rho = -discounted * years * n_d2 / _HUNDRED
        return Valuation(
            price=price,
            delta=delta,
            gamma=density / (spot * sigma * root),
            theta=theta,
            vega=spot * density * root / _HUNDRED,
            rho=rho,
        )


def probability_above(
    level: Decimal, spot: Decimal, years: Decimal, sigma: Decimal, rate: Decimal
) -> Decimal:
    """Risk-neutral probability that the underlying ends above ``level``."""
    if level <= 0:
        return _ONE
    with localcontext(_CONTEXT):
        return norm_cdf(_d2(spot, level, years, sigma, rate))
