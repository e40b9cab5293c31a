"""``DeferredCaller``: a connection opened by the first call that needs it.

A command that may never call the venue (``ordergate status`` over an empty paper book needs
no price) should not pay for a connection it does not use; the embedded sandbox venue, which
starts a server for the connection, costs most of such a command's time. ``opener`` returns
the ``Robinhood`` to call through (and keeps whatever it opened until its owner closes it); it
runs once, on the first call, and a failed open is tried again by the next call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from ordergate.client._robinhood import Robinhood

__all__ = ["DeferredCaller"]


class DeferredCaller:
    """A ``Caller`` that opens the connection it calls through on its first call."""

    def __init__(self, opener: Callable[[], Awaitable[Robinhood]]) -> None:
        self._opener = opener
        self._opened: Robinhood | None = None
        self._lock = anyio.Lock()

    @property
    def opened(self) -> bool:
        """Whether a call has opened the connection."""
        return self._opened is not None

    async def _connection(self) -> Robinhood:
        async with self._lock:
            if self._opened is None:
                self._opened = await self._opener()
            return self._opened

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        return await (await self._connection()).call(name, arguments)

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        connection = await self._connection()
        request = getattr(connection._caller, "request", None)
        if request is None:
            raise TypeError("this connection cannot send requests (its caller has no request())")
        return await request(method, params)
