"""Money as people read it: dollars to the cent (``$24.99977156`` → ``$25.00``).

Only human output is rounded (half to even, like the ledger's own quantising); ``--json``
keeps the exact Decimal string. A value that is not a number is shown as it came; a value
nobody could read (``None``) as ``unknown``.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

__all__ = ["usd"]

_CENT = Decimal("0.01")


def usd(value: object) -> str:
    """``value`` (a Decimal, int or decimal string) as ``$1,234.57`` / ``-$5.00``."""
    if value is None:
        return "unknown"
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return f"${value}"
    if not amount.is_finite():
        return f"${value}"
    cents = amount.quantize(_CENT, ROUND_HALF_EVEN)
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents):,.2f}"
