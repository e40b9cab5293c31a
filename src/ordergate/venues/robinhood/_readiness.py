"""``McpCryptoOffered``: whether the MCP offers crypto orders to the signed-in account now.

Discovery's readiness (``ordergate tools readiness``) read live: the upstream's
``tools/list`` drained and ``crypto_place`` resolved by capability, never by a guessed tool
name. Agentic crypto shows up in the listing only for an account enabled for it, so the
listing is the account's answer. The ``auto`` route asks it once per crypto filing
(``CryptoLanes.choose``); a listing that cannot be read raises, and the route counts that as
not offered.
"""

from __future__ import annotations

from ordergate.client import Robinhood
from ordergate.discovery import assess

__all__ = ["McpCryptoOffered"]


class McpCryptoOffered:
    """Called: ``True`` when the MCP's ``tools/list`` resolves ``crypto_place`` now."""

    def __init__(self, rh: Robinhood) -> None:
        self._rh = rh

    async def __call__(self) -> bool:
        return assess(await self._rh.list_tools()).ready
