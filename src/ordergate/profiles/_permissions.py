"""The fixed permission vocabulary a profile grants from.

A permission is one kind of thing an agent may do through the gateway. The list is closed:
a profile naming anything else is refused at load. Moving money (transfers, deposits) and
placing anything but equity orders have no permission at all — the gateway refuses those
whatever the profile says, so no profile can grant them.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

__all__ = ["PERMISSION_PHRASES", "Permission"]


class Permission(StrEnum):
    """One grantable permission; the value is what a profile file names."""

    ACCOUNT_READ = "account.read"
    MARKET_READ = "market.read"
    RESEARCH_READ = "research.read"
    ORDERS_READ = "orders.read"
    ORDERS_REVIEW = "orders.review"
    ORDERS_PLACE = "orders.place"
    ORDERS_CANCEL = "orders.cancel"
    WATCHLISTS_WRITE = "watchlists.write"
    ALERTS_WRITE = "alerts.write"
    SCANNER_WRITE = "scanner.write"


PERMISSION_PHRASES: Mapping[Permission, str] = MappingProxyType(
    {
        Permission.ACCOUNT_READ: "reading account data",
        Permission.MARKET_READ: "reading market data",
        Permission.RESEARCH_READ: "reading research",
        Permission.ORDERS_READ: "reading orders",
        Permission.ORDERS_REVIEW: "reviewing orders",
        Permission.ORDERS_PLACE: "placing orders",
        Permission.ORDERS_CANCEL: "cancelling orders",
        Permission.WATCHLISTS_WRITE: "changing watchlists",
        Permission.ALERTS_WRITE: "changing alerts",
        Permission.SCANNER_WRITE: "changing saved scans",
    }
)
"""What each permission lets an agent do, as the object of "does not permit …"."""
