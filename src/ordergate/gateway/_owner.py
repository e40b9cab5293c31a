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
from ordergate.ledger import digest_in
from ordergate.runtime import Running

__all__ = ["OwnerBackend", "connection_digest", "digest_in", "identity_of"]


def connection_digest(connection_id: str) -> str:
    """What an identity on the record keeps of a connection id: its SHA-256, 32 hex digits."""
    return hashlib.sha256(connection_id.encode("utf-8")).hexdigest()[:32]


def identity_of(connection_id: str) -> str:
    """The identity a connection's filings are recorded under."""
    return "conn:" + connection_digest(connection_id)


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

    def open_guard(self, connection_id: str) -> Guard | None:
        return self._running.guard

    def identity(self, connection_id: str) -> str:
        return identity_of(connection_id)

    async def disconnect(self, connection_id: str) -> None:
        await self._erase(connection_id)
