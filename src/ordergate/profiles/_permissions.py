"""The fixed permission vocabulary a profile grants from.

A permission is one kind of thing an agent may do through the gateway. The list is closed:
a profile naming anything else is refused at load. Moving money (transfers, deposits) and
placing anything but equity and option orders have no permission at all — the gateway refuses
those whatever the profile says, so no profile can grant them. Option orders have permissions
of their own (``options.review``, ``options.place``, ``options.cancel``), which no built-in
profile grants; exercising a contract is the owner's act, never a permission.

``orders.cancel_any`` is the one permission no tool needs by itself: beside
``orders.cancel`` it lets a connection cancel orders it did not file (placed in the Robinhood
app, or by another connection); without it a connection cancels only its own. No built-in
profile grants it.
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
    ORDERS_CANCEL_ANY = "orders.cancel_any"
    OPTIONS_REVIEW = "options.review"
    OPTIONS_PLACE = "options.place"
    OPTIONS_CANCEL = "options.cancel"
    CRYPTO_PLACE = "crypto.place"
    CRYPTO_CANCEL = "crypto.cancel"
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
        Permission.ORDERS_CANCEL_ANY: "cancelling orders it did not file",
        Permission.OPTIONS_REVIEW: "reviewing option orders",
        Permission.OPTIONS_PLACE: "placing option orders",
        Permission.OPTIONS_CANCEL: "cancelling option orders",
        Permission.CRYPTO_PLACE: "placing crypto orders",
        Permission.CRYPTO_CANCEL: "cancelling crypto orders",
        Permission.WATCHLISTS_WRITE: "changing watchlists",
        Permission.ALERTS_WRITE: "changing alerts",
        Permission.SCANNER_WRITE: "changing saved scans",
    }
)
"""What each permission lets an agent do, as the object of "does not permit …"."""
