"""Per-IP rate limits for what nobody is signed in to, and the request-size cap, in front of
every gateway route.

The IP is the socket's peer, or behind a proxy the operator named, the client that proxy
reports (``TrustedProxies``; a forwarded header from anyone else is never read), counted by
its address class: every loopback address as one (a local process can bind any of
127.0.0.0/8), others by their /24 or /64 (``address_class``). The OAuth routes are put in a
class by their path — ``register`` (``/oauth/register``), ``authorize`` (``/oauth/authorize``,
``/oauth/consent``, ``/oauth/callback``), ``token`` (``/oauth/token``, ``/oauth/revoke``) —
and so are the owner's: ``console`` (``/console/…`` but its static files) and ``owner``
(``/owner/…``); each is counted per address class in fixed one-minute windows of the injected
clock. Over the class's limit the answer is 429 with ``Retry-After``. A request of a class
where owner codes are typed (``authorize``, ``console``, ``owner``) is served with that
address class as the owner's **source** (``ordergate.owner.acting_from``), which the owner's
lockout counts wrong codes by.

Authenticated MCP traffic (``/mcp``, ``/api/…``) is not counted per IP: each connection has a
budget of its own (``_budget``, applied once the token is verified), so agents sharing one
machine do not share one allowance. What is counted per IP there is the ``unauthenticated``
class: each such request answered 401 (a missing, wrong or expired token) counts, and once an
IP has used its minute's allowance its further refused requests are answered 429 with
``Retry-After`` instead of 401, so a client looping on a bad token (or guessing tokens) is
slowed. A valid token from that IP is still served: one local agent stuck on an expired token
never cuts off the others on 127.0.0.1.

The counts live in memory for one process, or in Redis (``INCR`` + ``EXPIRE``, one key per
IP, class and minute) so that several replicas share them. A Redis that cannot be reached
refuses the request (503): the limit is never silently off.

A request body over ``max_body`` bytes is refused with 413, by its ``Content-Length`` or,
without one, as soon as the streamed body passes the cap; nothing past the cap is read, and
the application never sees an oversize body.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol

from ordergate.core import Clock
from ordergate.gateway._config import RateLimits
from ordergate.gateway._proxies import TrustedProxies
from ordergate.owner import acting_from

__all__ = [
    "LimitMiddleware",
    "MemoryCounter",
    "RedisCounter",
    "WindowCounter",
    "redis_counter",
    "request_class",
]

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_CLASSES = {
    "/oauth/register": "register",
    "/oauth/authorize": "authorize",
    "/oauth/consent": "authorize",
    "/oauth/callback": "authorize",
    "/oauth/token": "token",
    "/oauth/revoke": "token",
}
_CODE_CLASSES = frozenset({"authorize", "console", "owner"})


def request_class(path: str) -> str | None:
    """The rate-limit class of a path (``mcp``: counted per IP only when its token is
    refused), or ``None`` for unlimited paths (metadata, metrics, health)."""
    if path == "/mcp" or path.startswith(("/mcp/", "/api/")):
        return "mcp"
    if path.startswith("/console/static/"):
        return None  # the console's own scripts and styles, the same for everyone
    if path == "/console" or path.startswith("/console/"):
        return "console"
    if path == "/owner" or path.startswith("/owner/"):
        return "owner"
    return _CLASSES.get(path.rstrip("/") or "/")


class WindowCounter(Protocol):
    async def hit(self, key: str, window: int) -> int:
        """Count one request for ``key`` in minute ``window``; the count so far."""
        ...


class MemoryCounter:
    """Counts in this process (one gateway, no replicas)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = defaultdict(int)
        self._window = -1

    async def hit(self, key: str, window: int) -> int:
        if window != self._window:
            # Older windows can never be asked about again: drop them (bounded memory).
            self._counts = defaultdict(
                int, {k: v for k, v in self._counts.items() if k[1] >= window}
            )
            self._window = window
        self._counts[(key, window)] += 1
        return self._counts[(key, window)]


class RedisCounter:
    """Counts in Redis, shared by every replica."""

    def __init__(self, client: Any, *, prefix: str = "ordergate:rl:") -> None:
        self._client = client
        self._prefix = prefix

    async def hit(self, key: str, window: int) -> int:
        name = f"{self._prefix}{key}:{window}"
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.incr(name)
            pipe.expire(name, 120)
            count, _ = await pipe.execute()
        return int(count)

    @property
    def client(self) -> Any:
        """The Redis client (the per-connection budgets share it)."""
        return self._client

    async def aclose(self) -> None:
        """Close the connections to Redis."""
        await self._client.aclose()


def redis_counter(url: str, *, prefix: str = "ordergate:rl:") -> RedisCounter:
    """A counter on the Redis at ``url`` (connected on first use; bounded timeouts, so an
    unreachable Redis refuses requests rather than stalls them)."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    return RedisCounter(client, prefix=prefix)


class LimitMiddleware:
    def __init__(
        self,
        app: App,
        *,
        limits: RateLimits,
        counter: WindowCounter,
        clock: Clock,
        max_body: int,
        on_refusal: Callable[[str], None] | None = None,
        proxies: TrustedProxies | None = None,
    ) -> None:
        self._app = app
        self._proxies = proxies or TrustedProxies()
        self._limits = limits
        self._counter = counter
        self._clock = clock
        self._max_body = max_body
        self._on_refusal = on_refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        kind = request_class(scope.get("path", ""))
        source: str | None = None
        if kind is not None:
            if kind == "mcp":
                send = self._counting_refusals(send, scope)
            else:
                ip = self._proxies.counted(scope)
                if kind in _CODE_CLASSES:
                    source = ip
                window = int(self._clock.now().timestamp()) // 60
                try:
                    count = await self._counter.hit(f"{kind}:{ip}", window)
                except Exception as error:  # the counter's store is down: refuse, never unlimited
                    logger.warning("rate-limit store unavailable: %s", type(error).__name__)
                    await _refuse(send, 503, "rate limiting is unavailable; try again shortly")
                    return
                if count > getattr(self._limits, kind):
                    self._refused("rate_limited")
                    await _refuse(send, 429, "too many requests", retry_after=self._retry())
                    return
        declared = _content_length(scope)
        if declared is not None and declared > self._max_body:
            self._refused("body_too_large")
            await _refuse(send, 413, f"request body over {self._max_body} bytes")
            return
        # Bodies here are small (8 KB): read the whole body first, so an oversize one is
        # refused before the application sees a byte of it.
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = bool(message.get("more_body", False))
            if len(body) > self._max_body:
                self._refused("body_too_large")
                await _refuse(send, 413, f"request body over {self._max_body} bytes")
                return
        if source is None:
            await self._app(scope, _replay(bytes(body), receive), send)
            return
        with acting_from(source):
            await self._app(scope, _replay(bytes(body), receive), send)

    def _retry(self) -> int:
        """Seconds until the next minute's window."""
        return 60 - int(self._clock.now().timestamp()) % 60

    def _counting_refusals(self, send: Send, scope: Scope) -> Send:
        """``send``, counting a 401 against the request's IP in the ``unauthenticated``
        class (the IP and the minute read only then: most requests are served); past the
        limit the 401 becomes a 429 (the application's own answer is dropped)."""
        replaced = False

        async def counting(message: Message) -> None:
            nonlocal replaced
            if replaced:
                return
            if message["type"] == "http.response.start" and message.get("status") == 401:
                key = f"unauthenticated:{self._proxies.counted(scope)}"
                window = int(self._clock.now().timestamp()) // 60
                try:
                    count = await self._counter.hit(key, window)
                except Exception as error:  # the answer is a refusal already
                    logger.warning("rate-limit store unavailable: %s", type(error).__name__)
                    count = 0
                if count > self._limits.unauthenticated:
                    replaced = True
                    self._refused("rate_limited")
                    await _refuse(send, 429, "too many requests", retry_after=self._retry())
                    return
            await send(message)

        return counting

    def _refused(self, reason: str) -> None:
        if self._on_refusal is not None:
            self._on_refusal(reason)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, status: int, message: str, *, retry_after: int | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
