"""Per-IP rate limits and the body cap, over real loopback HTTP; Redis shared by replicas.

Authenticated ``/mcp`` traffic is not counted per IP (each connection has its own budget:
``test_budget``); only its refusals (401) are, in the ``unauthenticated`` class."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.core import SteppedClock
from ordergate.gateway._config import RateLimits
from ordergate.gateway._limits import (
    LimitMiddleware,
    MemoryCounter,
    RedisCounter,
    WindowCounter,
    redis_counter,
)

START = datetime(2026, 12, 1, 15, 0, 5, tzinfo=UTC)
REDIS_ENV = "ORDERGATE_TEST_REDIS_URL"


async def echo(request: Request) -> JSONResponse:
    return JSONResponse({"size": len(await request.body())})


async def refused(request: Request) -> JSONResponse:
    return JSONResponse({"error": "invalid_token"}, status_code=401)


APP = Starlette(
    routes=[
        *(
            Route(path, echo, methods=["POST", "GET"])
            for path in ("/oauth/register", "/oauth/token", "/mcp", "/.well-known/x")
        ),
        Route("/api/refused", refused, methods=["POST"]),
    ]
)


@contextmanager
def served(
    counter: WindowCounter,
    clock: SteppedClock,
    refusals: list[str],
    limits: RateLimits | None = None,
) -> Iterator[str]:
    app = LimitMiddleware(
        APP,
        limits=limits or RateLimits(),
        counter=counter,
        clock=clock,
        max_body=8192,
        on_refusal=refusals.append,
    )
    sock = bind_socket("127.0.0.1", 0)
    with BackgroundServer(app, sock):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=START)


@pytest.mark.req("gateway.threat.rate-limits")
def test_the_fourth_registration_in_a_minute_is_refused_until_the_next_minute(
    clock: SteppedClock,
) -> None:
    refusals: list[str] = []
    with served(MemoryCounter(), clock, refusals) as url, httpx2.Client() as http:
        codes = [http.post(url + "/oauth/register", json={}).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        refused = http.post(url + "/oauth/register", json={})
        assert refused.headers["retry-after"] == "55"
        # Other classes have their own budget.
        assert http.post(url + "/oauth/token", json={}).status_code == 200
        clock.advance(timedelta(seconds=55))
        assert http.post(url + "/oauth/register", json={}).status_code == 200
    assert refusals == ["rate_limited", "rate_limited"]


@pytest.mark.req("gateway.limits.per-connection")
def test_answered_mcp_requests_are_not_counted_per_ip_and_metadata_is_not_limited(
    clock: SteppedClock,
) -> None:
    with served(MemoryCounter(), clock, []) as url, httpx2.Client() as http:
        codes = [http.post(url + "/mcp", json={}).status_code for _ in range(200)]
        assert codes == [200] * 200
        assert all(http.get(url + "/.well-known/x").status_code == 200 for _ in range(130))


@pytest.mark.req("gateway.limits.per-connection")
def test_refused_tokens_are_counted_per_ip_and_past_the_limit_are_429_not_401(
    clock: SteppedClock,
) -> None:
    refusals: list[str] = []
    limits = RateLimits(unauthenticated=2)
    with served(MemoryCounter(), clock, refusals, limits) as url, httpx2.Client() as http:
        codes = [http.post(url + "/api/refused", json={}).status_code for _ in range(3)]
        limited = http.post(url + "/api/refused", json={})
        # An agent with a valid token on the same address is served all the same.
        answered = http.post(url + "/mcp", json={})
        clock.advance(timedelta(seconds=55))
        again = http.post(url + "/api/refused", json={})
    assert codes == [401, 401, 429]
    assert limited.status_code == 429 and limited.headers["retry-after"] == "55"
    assert limited.json() == {"error": "too many requests"}
    assert answered.status_code == 200
    assert again.status_code == 401
    assert refusals == ["rate_limited", "rate_limited"]


def test_a_body_over_8_kb_is_refused_by_length_or_while_streaming(clock: SteppedClock) -> None:
    refusals: list[str] = []
    with served(MemoryCounter(), clock, refusals) as url, httpx2.Client() as http:
        assert http.post(url + "/mcp", content=b"x" * 8192).json() == {"size": 8192}
        assert http.post(url + "/mcp", content=b"x" * 8193).status_code == 413

        def chunks() -> Iterator[bytes]:
            for _ in range(20):
                yield b"y" * 1000

        streamed = http.post(url + "/mcp", content=chunks())
        assert streamed.status_code == 413
    assert refusals == ["body_too_large", "body_too_large"]


def _redis_url() -> str:
    url = os.environ.get(REDIS_ENV)
    if not url:
        pytest.skip(f"Redis tests need {REDIS_ENV}, e.g. {REDIS_ENV}=redis://127.0.0.1:6379/0")
    return url


@pytest.mark.anyio
async def test_replicas_sharing_redis_share_one_budget(clock: SteppedClock) -> None:
    import redis.asyncio as aioredis

    client = aioredis.from_url(_redis_url())
    prefix = f"ordergate:test:{os.getpid()}:{id(clock)}:"
    try:
        first = RedisCounter(client, prefix=prefix)
        second = RedisCounter(client, prefix=prefix)
        counts = [await (first if n % 2 else second).hit("register:10.0.0.1", 7) for n in range(4)]
        assert counts == [1, 2, 3, 4]
        assert await first.hit("register:10.0.0.1", 8) == 1
        assert 0 < await client.ttl(f"{prefix}register:10.0.0.1:7") <= 120
    finally:
        await client.aclose()


@pytest.mark.anyio
async def test_the_redis_url_serve_is_given_counts_in_that_redis(clock: SteppedClock) -> None:
    import redis.asyncio as aioredis

    prefix = f"ordergate:test:url:{os.getpid()}:{id(clock)}:"
    counter = redis_counter(_redis_url(), prefix=prefix)
    assert [await counter.hit("mcp:10.0.0.2", 3) for _ in range(3)] == [1, 2, 3]
    await counter.aclose()
    reader = aioredis.from_url(_redis_url())
    try:
        assert await reader.get(f"{prefix}mcp:10.0.0.2:3") == b"3"
    finally:
        await reader.aclose()


def test_an_unreachable_redis_refuses_rather_than_lets_everything_through(
    clock: SteppedClock,
) -> None:
    import redis.asyncio as aioredis

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = aioredis.from_url(f"redis://127.0.0.1:{port}/0", socket_connect_timeout=2)
    with served(RedisCounter(client), clock, []) as url, httpx2.Client() as http:
        refused = http.post(url + "/oauth/register", json={})
        assert refused.status_code == 503
        assert http.get(url + "/.well-known/x").status_code == 200


class _Unwritable(MemoryCounter):
    """Cannot count (a Redis gone read-only, say)."""

    async def hit(self, key: str, window: int) -> int:
        raise ConnectionError("read-only")


def test_a_refusal_that_cannot_be_counted_is_still_answered(clock: SteppedClock) -> None:
    with served(_Unwritable(), clock, []) as url, httpx2.Client() as http:
        assert http.post(url + "/api/refused", json={}).status_code == 401
        assert http.post(url + "/mcp", json={}).status_code == 200
