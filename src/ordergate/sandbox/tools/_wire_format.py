"""How generated values are written on the wire: ISO 8601 UTC times, decimal strings."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal

from ordergate.core import to_wire, wire_money

__all__ = ["iso", "iso_day", "money", "number"]


def iso(instant: datetime | None) -> str | None:
    """``2026-09-21T14:30:00Z`` (microseconds only when present)."""
    if instant is None:
        return None
    return instant.astimezone(UTC).isoformat().replace("+00:00", "Z")


def iso_day(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


def money(value: Decimal | None) -> str | None:
    """A dollar amount to the cent, as a string (``wire_money``), or ``None``."""
    return None if value is None else wire_money(value)


def number(value: Decimal | None, places: int = 2) -> str | None:
    """A ratio or percentage to ``places`` decimals, as a string."""
    if value is None:
        return None
    return to_wire(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))
