"""How values are written on Robinhood's wire, for every place that answers in its shapes (the
sandbox venue, the paper book) and for what ordergate stores in the same text.

- an instant: fixed-width UTC ISO-8601 with microseconds and ``Z``
  (``2026-12-01T15:00:00.000000Z``); a naive datetime is refused, never guessed;
- money: dollars in cents (``12.30``); a money object ``{"amount", "currency_code"}``;
- a share count or price: no trailing zeros (``10``, ``0.5``, ``0.000001``);
- an order type: Robinhood's ``type`` and ``trigger`` are ``OrderType.base_type`` and
  ``OrderType.trigger``.

Every decimal goes out through ``to_wire`` (plain notation, never an exponent).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal

from ordergate.core._money import to_wire

__all__ = [
    "wire_amount",
    "wire_money",
    "wire_or_none",
    "wire_quantity",
    "wire_time",
]

_CENT = Decimal("0.01")


def wire_time(instant: datetime) -> str:
    """``2026-12-01T15:00:00.000000Z``; ``ValueError`` for a naive datetime."""
    if instant.tzinfo is not UTC:
        if instant.tzinfo is None:
            raise ValueError("naive datetime: give a timezone")
        instant = instant.astimezone(UTC)
    # isoformat is about 25% cheaper than strftime, and a quote writes several of these.
    return instant.isoformat(timespec="microseconds")[:-6] + "Z"


def wire_money(value: Decimal) -> str:
    """A dollar amount in cents (``12.30``), half to even."""
    return to_wire(value.quantize(_CENT, rounding=ROUND_HALF_EVEN))


def wire_quantity(value: Decimal) -> str:
    """A share count or price without trailing zeros (``10``, ``0.5``, ``0.000001``)."""
    return to_wire(value.normalize())


def wire_or_none(value: Decimal | None) -> str | None:
    """``value`` as it is (``to_wire``), or ``None`` when absent."""
    return None if value is None else to_wire(value)


def wire_amount(value: Decimal | None, *, cents: bool = True) -> dict[str, str] | None:
    """A money object in USD (``{"amount": "12.30", "currency_code": "USD"}``), or ``None``;
    ``cents=False`` keeps the value's own places (a limit price)."""
    if value is None:
        return None
    return {"amount": wire_money(value) if cents else to_wire(value), "currency_code": "USD"}
