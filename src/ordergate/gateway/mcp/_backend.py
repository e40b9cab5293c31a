"""What the gateway's MCP methods need from the rest of the gateway, one connection at a time.

The lead's gateway implements ``GatewayBackend``: the upstream session of a connection (its
live tool list and the one call that forwards), the guard its orders go through, the
identity its filings carry, and erasure. The methods never see a token: the backend holds
the upstream session and unseals it only to forward.
"""

from __future__ import annotations

from typing import Any, Protocol

from ordergate.execution import Guard

__all__ = ["GatewayBackend"]


class GatewayBackend(Protocol):
    async def upstream_tools(self, connection_id: str) -> list[dict[str, Any]]:
        """The upstream's live ``tools/list`` for this connection (every page).

        Raises an ``ordergate.client`` error (``ToolError``) when it cannot be read.
        """
        ...

    async def forward(self, connection_id: str, name: str, arguments: dict[str, Any]) -> Any:
        """Call upstream tool ``name``; the ``data`` of its ``{data, guide}`` result.

        Raises ``ordergate.client`` errors: ``BusinessError`` (the tool answered
        ``isError``), ``TransportError`` (no answer), ``HTTPStatusError``, ``RpcError`` …
        """
        ...

    async def guard(self, connection_id: str) -> Guard:
        """The guard this connection's orders go through (opened on first use when each
        connection has an upstream session of its own)."""
        ...

    def open_guard(self, connection_id: str) -> Guard | None:
        """``guard``'s answer when it needs no waiting (the guard is open), else ``None``:
        never opens anything, never raises (a forwarded read's fast path asks this)."""
        ...

    def identity(self, connection_id: str) -> str:
        """The connection id, hashed: the identity on the record (the verifier puts it in
        the request's ``Principal``)."""
        ...

    async def disconnect(self, connection_id: str) -> None:
        """Erase the connection and its upstream tokens."""
        ...
