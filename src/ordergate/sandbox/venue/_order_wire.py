"""How every desk's records go on the wire: the formats they share and the approval envelope.

Money, prices and quantities are canonical decimal strings (``to_wire``): quantities without
trailing zeros, money in cents. Timestamps are ISO-8601 UTC with microseconds and ``Z``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from ordergate.core import to_wire
from ordergate.sandbox.venue._order_model import Approval, Order

__all__ = [
    "amount",
    "approval_envelope",
    "decimal_or_none",
    "money",
    "quantity",
    "timestamp",
    "with_reject_reason",
]

_CENT = Decimal("0.01")


def timestamp(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def quantity(value: Decimal) -> str:
    """A share count or price without trailing zeros (``10``, ``0.5``, ``0.000001``)."""
    return to_wire(value.normalize())


def money(value: Decimal) -> str:
    """A dollar amount in cents (``12.30``)."""
    return to_wire(value.quantize(_CENT))


def amount(value: Decimal | None, *, cents: bool = True) -> dict[str, str] | None:
    if value is None:
        return None
    return {"amount": money(value) if cents else to_wire(value), "currency_code": "USD"}


def decimal_or_none(value: Decimal | None) -> str | None:
    return None if value is None else to_wire(value)


def with_reject_reason(wire: dict[str, Any], order: Order[Any, Any, Any]) -> dict[str, Any]:
    """``wire`` with the order's ``reject_reason`` once it is rejected (never before)."""
    if order.state == "rejected" and order.reject_reason is not None:
        wire["reject_reason"] = order.reject_reason
    return wire


def approval_envelope(
    approval: Approval[Any], *, account_number: str, asset_class: str, proposed: dict[str, Any]
) -> dict[str, Any]:
    """An approval as the place tools return it; ``proposed`` is the desk's proposed order."""
    return {
        "approval_id": approval.approval_id,
        "account_number": account_number,
        "asset_class": asset_class,
        "state": approval.state,
        "is_edited": False,
        "proposed_order": proposed,
        "expires_at": timestamp(approval.expires_at),
        "created_at": timestamp(approval.created_at),
        "updated_at": timestamp(approval.created_at),
    }
