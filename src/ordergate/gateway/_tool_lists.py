"""``SharedToolLists``: each connection's upstream tool list, read once for every replica.

Without it every replica reads a connection's ``tools/list`` from the upstream on its own
(each keeps it ``tools_cache``, ten minutes). With Redis the first replica to read it keeps
it there for the same time (key ``ordergate:tools:<SHA-256 of the connection id>``; the id
itself is never a key), and the others take it from there: one upstream read per connection
per ten minutes, and every replica routes the same tools the same way.

Redis holds a list, never a decision: a Redis that cannot be reached, or a value that does
not parse as a list of tool objects, is passed over and the upstream is read directly (the
upstream's own list is always a valid answer). Numbers keep their exact value (Decimal in,
the same JSON number out).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from ordergate.mcpserve import dumps_decimal_numbers, loads_json

__all__ = ["SharedToolLists", "redis_tool_lists"]

logger = logging.getLogger(__name__)

Read = Callable[[str], Awaitable[list[dict[str, Any]]]]


class SharedToolLists:
    """Tool lists kept in Redis (``client``: a ``redis.asyncio`` client) for ``ttl``."""

    def __init__(self, client: Any, *, ttl: timedelta, prefix: str = "ordergate:tools:") -> None:
        self._client = client
        self._ttl_ms = max(1, int(ttl.total_seconds() * 1000))
        self._prefix = prefix

    def key(self, connection_id: str) -> str:
        return self._prefix + hashlib.sha256(connection_id.encode()).hexdigest()

    def reading(self, read: Read) -> Read:
        """``read`` with the shared list in front of it."""

        async def shared(connection_id: str) -> list[dict[str, Any]]:
            key = self.key(connection_id)
            kept = await self._kept(key)
            if kept is not None:
                return kept
            tools = await read(connection_id)
            try:
                await self._client.set(key, dumps_decimal_numbers(tools), px=self._ttl_ms)
            except Exception as error:  # the list still answers; the next replica reads too
                logger.warning("could not share a tool list: %s", type(error).__name__)
            return tools

        return shared

    async def _kept(self, key: str) -> list[dict[str, Any]] | None:
        try:
            raw = await self._client.get(key)
        except Exception as error:
            logger.warning("shared tool lists unavailable: %s", type(error).__name__)
            return None
        if raw is None:
            return None
        try:
            tools = loads_json(raw)
        except ValueError:
            return None
        if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
            return None
        return tools

    async def aclose(self) -> None:
        """Close the connections to Redis."""
        await self._client.aclose()


def redis_tool_lists(url: str, *, ttl: timedelta) -> SharedToolLists:
    """Shared tool lists on the Redis at ``url`` (connected on first use; bounded timeouts,
    so an unreachable Redis costs a bounded wait before the upstream is read directly)."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    return SharedToolLists(client, ttl=ttl)
