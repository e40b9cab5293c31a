"""The simulated brokerage behind the sandbox's tools."""

from ordergate.sandbox.venue._accounts import ACCOUNT_TYPES, OPTION_LEVELS, Account, Accounts
from ordergate.sandbox.venue._desks import build_desks
from ordergate.sandbox.venue._equity import split_shares
from ordergate.sandbox.venue._faults import Faults, RateLimiter
from ordergate.sandbox.venue._ids import IdFactory, stable_uuid
from ordergate.sandbox.venue._venue import Desk, Venue

__all__ = [
    "ACCOUNT_TYPES",
    "OPTION_LEVELS",
    "Account",
    "Accounts",
    "Desk",
    "Faults",
    "IdFactory",
    "RateLimiter",
    "Venue",
    "build_desks",
    "split_shares",
    "stable_uuid",
]
