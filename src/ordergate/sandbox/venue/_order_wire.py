"""What every desk's records share on the wire: the approval envelope and the reject reason.

The formats themselves (money in cents, quantities without trailing zeros, ISO-8601 UTC
timestamps with microseconds and ``Z``) are ``ordergate.core``'s ``wire_*``.
"""

from __future__ import annotations

from typing import Any

from ordergate.core import wire_time
from ordergate.sandbox.venue._order_model import Approval, Order

__all__ = ["approval_envelope", "with_reject_reason"]


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
        "expires_at": wire_time(approval.expires_at),
        "created_at": wire_time(approval.created_at),
        "updated_at": wire_time(approval.created_at),
    }
