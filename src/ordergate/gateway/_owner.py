"""The owner's backend: every connection acts on the owner's own upstream session.

Self-hosted with one owner: ``ordergate login`` (or the embedded sandbox) set up one upstream
session and one guard; each client the owner approves on the consent page gets a connection
of its own, and its identity on the record is its connection id, hashed — no account number,
handle or name. Reads are forwarded on the one session; orders go through the one guard.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ordergate.execution import Guard
from ordergate.runtime import Running

__all__ = ["OwnerBackend", "identity_of"]


def identity_of(connection_id: str) -> str:
    """The identity a connection's filings are recorded under."""
    return "conn:" + hashlib.sha256(connection_id.encode("utf-8")).hexdigest()[:32]


class OwnerBackend:
    def __init__(self, running: Running, *, erase: Any) -> None:
        self._running = running
        self._erase = erase

    async def upstream_tools(self, connection_id: str) -> list[dict[str, Any]]:
        return await self._running.upstream.rh.list_tools()

    async def forward(self, connection_id: str, name: str, arguments: dict[str, Any]) -> Any:
        return await self._running.upstream.rh.call(name, arguments)

    async def guard(self, connection_id: str) -> Guard:
        return self._running.guard

    def identity(self, connection_id: str) -> str:
        return identity_of(connection_id)

    async def disconnect(self, connection_id: str) -> None:
        await self._erase(connection_id)
