"""``SharedToolLists``: a connection's upstream tool list read once for every replica (Redis),
and the upstream read directly whenever Redis cannot help."""

from __future__ import annotations

import hashlib
import os
import uuid
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from gateway_testkit import sandbox_gateway
from mcp_http_testkit import McpSession
from sqlalchemy import select

from ordergate.gateway._tool_lists import SharedToolLists, redis_tool_lists

REDIS_ENV = "ORDERGATE_TEST_REDIS_URL"
TOOLS: list[dict[str, Any]] = [
    {"name": "get_equity_quotes", "inputSchema": {"type": "object", "minimum": Decimal("0.01")}}
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def redis_url() -> str:
    url = os.environ.get(REDIS_ENV)
    if not url:
        pytest.skip(f"needs {REDIS_ENV}, e.g. {REDIS_ENV}=redis://127.0.0.1:6379/0")
    return url


class Upstream:
    def __init__(self) -> None:
        self.reads = 0

    async def __call__(self, connection_id: str) -> list[dict[str, Any]]:
        self.reads += 1
        return TOOLS


@pytest.mark.anyio
@pytest.mark.req("gateway.replicas.shared-limits")
async def test_the_first_replica_reads_the_upstream_and_the_others_take_its_list() -> None:
    here = redis_tool_lists(redis_url(), ttl=timedelta(minutes=10))
    there = redis_tool_lists(redis_url(), ttl=timedelta(minutes=10))
    upstream = Upstream()
    connection = uuid.uuid4().hex
    try:
        first = await here.reading(upstream)(connection)
        second = await there.reading(upstream)(connection)
        assert await there.reading(upstream)(uuid.uuid4().hex) == TOOLS  # another connection
    finally:
        await here.aclose()
        await there.aclose()
    assert first == second == TOOLS  # Decimal in, the same Decimal out
    assert upstream.reads == 2
    assert connection not in here.key(connection)  # the id itself is never a key


@pytest.mark.anyio
async def test_an_unreachable_redis_or_a_value_that_is_no_list_reads_the_upstream() -> None:
    down = redis_tool_lists("redis://127.0.0.1:1/0", ttl=timedelta(seconds=1))
    upstream = Upstream()
    try:
        assert await down.reading(upstream)("c") == TOOLS
    finally:
        await down.aclose()
    assert upstream.reads == 1
    import redis.asyncio as aioredis

    client = aioredis.from_url(redis_url())
    lists = SharedToolLists(client, ttl=timedelta(minutes=1), prefix=f"test:{uuid.uuid4().hex}:")
    try:
        for stored in (b"not json", b'{"name": "x"}', b'["x"]'):
            await client.set(lists.key("c"), stored, px=60_000)
            assert await lists.reading(upstream)("c") == TOOLS
    finally:
        await client.delete(lists.key("c"))
        await lists.aclose()
    assert upstream.reads == 4


def test_a_gateway_given_redis_keeps_each_connections_tool_list_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    from ordergate.gateway._config import GatewayConfig
    from ordergate.gateway._minting import mint_owner_tokens
    from ordergate.gateway._schema import connections

    server = sandbox_gateway(
        tmp_path, monkeypatch, config=GatewayConfig(port=0, redis_url=redis_url())
    )
    with server as url:
        assert server.auth is not None
        pair = mint_owner_tokens(server.auth.store, client_name="lists", resource=url + "/mcp")
        session = McpSession(url, pair.access_token)
        try:
            assert "gate_how" in session.tools()
        finally:
            session.close()
        with server.auth.store.engine.connect() as db:
            (connection_id,) = [str(row.id) for row in db.execute(select(connections.c.id))]
    client = redis.Redis.from_url(redis_url())
    key = "ordergate:tools:" + hashlib.sha256(connection_id.encode()).hexdigest()
    try:
        assert client.exists(key) == 1
    finally:
        client.delete(key)
        client.close()
