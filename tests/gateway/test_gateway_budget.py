"""Each connection's own call budget (issue 13 §5): GCRA in memory or in Redis, and the
gateway's answer to a request over it, over real loopback HTTP.

Agents on one machine all reach the gateway from 127.0.0.1; each connection (and each caller
token) spends its own budget, 4 calls a second in bursts of 8 by default, the pace Robinhood
itself tolerates. A request over it gets HTTP 429 with ``Retry-After`` and a JSON-RPC error
(``RATE_LIMITED``, ``data.retry_after``) that the client's SDK hands to the agent.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gateway_testkit import OPEN, sandbox_gateway

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret, SteppedClock
from ordergate.gateway._budget import (
    UNAVAILABLE_WAIT_S,
    BudgetUnavailable,
    MemoryBudget,
    RedisBudget,
    admission,
    budget_for,
    budget_key,
)
from ordergate.gateway._config import GatewayConfig, RateLimits
from ordergate.gateway._limits import MemoryCounter, RedisCounter
from ordergate.gateway._minting import mint_owner_tokens
from ordergate.gateway._owner import identity_of
from ordergate.gateway._serve import GatewayServer
from ordergate.gateway.mcp import Credential, Principal
from ordergate.mcpserve import RATE_LIMITED

REDIS_ENV = "ORDERGATE_TEST_REDIS_URL"
MASTER = "budget-test-master-secret-" + "b" * 24
ACCEPT = "application/json, text/event-stream"


def _at(seconds: float) -> datetime:
    return OPEN + timedelta(seconds=seconds)


def _principal(identity: str = "conn:abc") -> Principal:
    return Principal(
        connection_id="c", identity=identity, profile="trader", credential=Credential.OAUTH
    )


@pytest.mark.anyio
@pytest.mark.req("gateway.limits.per-connection")
async def test_a_burst_then_the_sustained_rate_each_key_its_own() -> None:
    budget = MemoryBudget(rate=4, burst=8)
    admitted = [await budget.take("a", _at(0)) for _ in range(8)]
    assert admitted == [None] * 8
    assert await budget.take("a", _at(0)) == pytest.approx(0.25)
    assert await budget.take("b", _at(0)) is None  # another connection: its own budget
    assert await budget.take("a", _at(0.25)) is None
    assert await budget.take("a", _at(0.25)) == pytest.approx(0.25)
    # Idle long enough, the whole burst is back.
    assert [await budget.take("a", _at(10)) for _ in range(8)] == [None] * 8


def test_the_defaults_are_robinhoods_pace_and_bad_budgets_are_refused() -> None:
    limits = RateLimits()
    assert (limits.mcp, limits.burst) == (4, 8)
    assert (limits.local, limits.local_burst) == (20, 60)
    assert isinstance(budget_for(limits, MemoryCounter()), MemoryBudget)
    with pytest.raises(ValueError, match="rate"):
        MemoryBudget(rate=0, burst=1)
    with pytest.raises(ValueError, match="burst"):
        MemoryBudget(rate=1, burst=0)
    assert RateLimits().overridden(["mcp=10", "burst=20"]) == RateLimits(mcp=10, burst=20)


def test_a_key_is_the_credential_and_the_identity_on_the_record_never_a_token() -> None:
    assert budget_key(_principal("conn:0123")) == "oauth:conn:0123"
    caller = Principal(
        connection_id="caller:bot", identity="caller:bot", profile=None,
        credential=Credential.CALLER,
    )  # fmt: skip
    assert budget_key(caller) == "caller:caller:bot"


def _redis_url() -> str:
    url = os.environ.get(REDIS_ENV)
    if not url:
        pytest.skip(f"Redis tests need {REDIS_ENV}, e.g. {REDIS_ENV}=redis://127.0.0.1:6379/0")
    return url


@pytest.mark.anyio
@pytest.mark.req("gateway.limits.redis-shared")
async def test_replicas_sharing_redis_spend_one_budget_per_connection() -> None:
    import redis.asyncio as aioredis

    client = aioredis.from_url(_redis_url())
    prefix = f"ordergate:test:budget:{os.getpid()}:{id(client)}:"
    try:
        first = RedisBudget(client, rate=4, burst=2, prefix=prefix)
        second = RedisBudget(client, rate=4, burst=2, prefix=prefix)
        assert await first.take("oauth:conn:a", _at(0)) is None
        assert await second.take("oauth:conn:a", _at(0)) is None
        assert await first.take("oauth:conn:a", _at(0)) == pytest.approx(0.25)
        assert await second.take("oauth:conn:b", _at(0)) is None
        assert await second.take("oauth:conn:a", _at(0.25)) is None
        # The key lives only until its budget is full again (plus a second).
        assert 0 < await client.pttl(prefix + "oauth:conn:a") <= 1500
    finally:
        await client.delete(prefix + "oauth:conn:a", prefix + "oauth:conn:b")
        await client.aclose()


@pytest.mark.anyio
@pytest.mark.req("gateway.limits.redis-shared")
async def test_an_unreachable_redis_refuses_the_call_rather_than_lets_it_through() -> None:
    import redis.asyncio as aioredis

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = aioredis.from_url(f"redis://127.0.0.1:{port}/0", socket_connect_timeout=2)
    try:
        budget = budget_for(RateLimits(), RedisCounter(client))
        assert isinstance(budget, RedisBudget)
        with pytest.raises(BudgetUnavailable):
            await budget.take("oauth:conn:a", _at(0))
        refusals: list[str] = []
        admit = admission(budget, clock=SteppedClock(start=OPEN), on_refusal=refusals.append)
        assert await admit(_principal()) == UNAVAILABLE_WAIT_S
        assert refusals == ["rate_limited"]
    finally:
        await client.aclose()


# -- through the gateway -----------------------------------------------------------------


@dataclass
class Budgeted:
    url: str
    server: GatewayServer
    clock: SteppedClock
    key: CallerKey
    http: httpx2.Client

    def access_token(self) -> str:
        assert self.server.auth is not None
        pair = mint_owner_tokens(
            self.server.auth.store, client_name="budget", resource=self.url + "/mcp",
            profile="trader",
        )  # fmt: skip
        return pair.access_token

    def caller_token(self, caller: str, profile: str = "trader") -> str:
        return mint(
            self.key, caller=caller, profile=profile, ttl=timedelta(minutes=15), now=OPEN
        ).reveal()

    def ping(self, token: str, request_id: int = 7) -> httpx2.Response:
        return self.http.post(
            self.url + "/mcp",
            json={"jsonrpc": "2.0", "id": request_id, "method": "ping"},
            headers={"authorization": f"Bearer {token}", "accept": ACCEPT},
        )

    def quote(self, token: str, request_id: int = 7) -> httpx2.Response:
        """A read that goes upstream (``get_equity_quotes``): it spends the upstream budget."""
        return self.http.post(
            self.url + "/mcp",
            json={
                "jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                "params": {"name": "get_equity_quotes", "arguments": {"symbols": ["SPY"]}},
            },
            headers={"authorization": f"Bearer {token}", "accept": ACCEPT},
        )  # fmt: skip

    def broker(self, token: str) -> httpx2.Response:
        return self.http.post(
            self.url + "/api/capability/market/quotes",
            json={"symbols": ["SPY"]},
            headers={"authorization": f"Bearer {token}"},
        )


@contextmanager
def budgeted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **config: Any) -> Iterator[Budgeted]:
    """The gateway with a stepped clock (the budget moves only when the test says)."""
    key = CallerKey.derive(Secret(MASTER))
    clock = SteppedClock(start=OPEN)
    server = sandbox_gateway(
        tmp_path,
        monkeypatch,
        config=GatewayConfig(port=0, caller_key=key, **config),
        clock=clock,
    )
    with server as url, httpx2.Client(timeout=30) as http:
        yield Budgeted(url, server, clock, key, http)


@pytest.mark.req("gateway.limits.per-connection")
@pytest.mark.req("gateway.limits.jsonrpc-error")
def test_a_connection_over_its_budget_gets_a_json_rpc_error_and_others_keep_theirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = RateLimits(mcp=1, burst=2)
    with budgeted(tmp_path, monkeypatch, limits=limits) as gw:
        first, second = gw.access_token(), gw.access_token()
        bot, other_bot = gw.caller_token("bot"), gw.caller_token("other")
        assert [gw.quote(first).status_code for _ in range(2)] == [200, 200]
        limited = gw.quote(first, request_id=42)
        # Every other agent on this machine has a budget of its own.
        others = [gw.quote(token).status_code for token in (second, bot, other_bot)]
        gw.clock.advance(timedelta(seconds=1))
        again = gw.quote(first)
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "1"
    assert limited.json() == {
        "jsonrpc": "2.0",
        "id": 42,
        "error": {
            "code": RATE_LIMITED,
            "message": "Rate limited: too many requests on this connection; retry after 1 s.",
            "data": {"code": "RATE_LIMITED", "retry_after": 1},
        },
    }
    assert others == [200, 200, 200]
    assert again.status_code == 200


@pytest.mark.req("callers.identity-per-mint")
@pytest.mark.req("callers.read-only-one-budget")
def test_a_read_only_token_named_like_a_trader_spends_none_of_its_budget_and_twelve_share_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with budgeted(tmp_path, monkeypatch, limits=RateLimits(mcp=1, burst=2)) as gw:
        trader = gw.caller_token("nightly-bot")
        spy = gw.caller_token("nightly-bot", "monitor")

        def limited(token: str) -> bool:
            # The broker's quote read goes upstream: it spends the budget sized to the broker.
            return gw.broker(token).status_code == 429

        spied = [limited(spy) for _ in range(3)]
        traders = [limited(trader) for _ in range(2)]
        monitors = [gw.caller_token(f"monitor-{n}", "monitor") for n in range(11)]
        others = [limited(token) for token in monitors]
        gw.clock.advance(timedelta(seconds=1))
        refilled = limited(monitors[0])
    assert spied == [False, False, True]
    assert traders == [False, False]
    # Twelve read-only tokens are one budget, whatever they are called.
    assert others == [True] * 11
    assert refilled is False


@pytest.mark.req("gateway.limits.per-connection")
def test_the_capability_broker_spends_the_same_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with budgeted(tmp_path, monkeypatch, limits=RateLimits(mcp=1, burst=1)) as gw:
        token = gw.access_token()
        assert gw.quote(token).status_code == 200
        limited = gw.broker(token)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "1"
    assert limited.json()["error"]["code"] == "RATE_LIMITED"
    assert limited.json()["error"]["retry_after"] == 1


@pytest.mark.req("gateway.limits.redis-shared")
def test_with_redis_the_gateways_budgets_are_kept_in_that_redis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    url = _redis_url()
    reader = redis.Redis.from_url(url)
    with budgeted(tmp_path, monkeypatch, redis_url=url) as gw:
        token = gw.access_token()
        assert gw.quote(token).status_code == 200
        assert gw.server.auth is not None
        grant = gw.server.auth.verifier.verify(token)
        assert grant is not None
        key = "ordergate:budget:oauth:" + identity_of(grant.connection_id)
        try:
            assert reader.exists(key) == 1
        finally:
            reader.delete(key)
            reader.close()


@pytest.mark.req("gateway.limits.jsonrpc-error")
def test_each_request_of_a_2025_03_26_batch_spends_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with budgeted(tmp_path, monkeypatch, limits=RateLimits(mcp=1, burst=2)) as gw:
        token = gw.access_token()
        headers = {"authorization": f"Bearer {token}", "accept": ACCEPT}
        opened = gw.http.post(
            gw.url + "/mcp",
            json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {}},
            },
            headers=headers,
        )  # fmt: skip
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        quote = {"name": "get_equity_quotes", "arguments": {"symbols": ["SPY"]}}
        batch = [
            {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": quote} for n in (2, 3, 4)
        ]
        answered = gw.http.post(gw.url + "/mcp", json=batch, headers=headers)
    first, admitted, limited = answered.json()
    assert answered.status_code == 200
    assert first["id"] == 2 and admitted["id"] == 3 and "result" in admitted
    assert limited["id"] == 4 and limited["error"]["code"] == RATE_LIMITED
    assert limited["error"]["data"] == {"code": "RATE_LIMITED", "retry_after": 1}


@pytest.mark.anyio
async def test_memory_is_bounded_by_forgetting_budgets_that_are_full_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ordergate.gateway._budget as budgets

    monkeypatch.setattr(budgets, "_MAX_KEYS", 2)
    budget = MemoryBudget(rate=1, burst=1)
    assert await budget.take("a", _at(0)) is None
    assert await budget.take("b", _at(0.5)) is None
    # "a" is full again at 1 s and forgotten; "b" (until 1.5 s) is kept and still spent.
    assert await budget.take("c", _at(1.2)) is None
    assert await budget.take("b", _at(1.2)) == pytest.approx(0.3)
    assert await budget.take("a", _at(1.2)) is None


@pytest.mark.req("gateway.limits.per-connection")
def test_a_local_client_looping_on_a_bad_token_never_cuts_off_the_other_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with budgeted(tmp_path, monkeypatch, limits=RateLimits(unauthenticated=2)) as gw:
        token = gw.access_token()
        looping = [gw.ping("expired-or-wrong").status_code for _ in range(4)]
        served = gw.ping(token)
    assert looping == [401, 401, 429, 429]
    assert served.status_code == 200


@pytest.mark.req("gateway.limits.local-budget")
def test_what_the_gateway_answers_itself_spends_its_own_budget_not_the_upstreams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = RateLimits(mcp=1, burst=2, local=1, local_burst=3)
    with budgeted(tmp_path, monkeypatch, limits=limits) as gw:
        token = gw.access_token()
        local = [gw.ping(token).status_code for _ in range(4)]
        upstream = [gw.quote(token).status_code for _ in range(3)]
        gw.clock.advance(timedelta(seconds=1))
        after = (gw.ping(token).status_code, gw.quote(token).status_code)
    # Pings spent the local budget (3, then refused); the upstream's 2 were all still there.
    assert local == [200, 200, 200, 429]
    assert upstream == [200, 200, 429]
    assert after == (200, 200)


@pytest.mark.req("owner.record.readable")
def test_a_connections_last_used_moves_when_it_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with budgeted(tmp_path, monkeypatch) as gw:
        token = gw.access_token()
        assert gw.server.auth is not None
        grant = gw.server.auth.verifier.verify(token)
        assert grant is not None
        before = gw.server.auth.store.connection(grant.connection_id)
        gw.clock.advance(timedelta(minutes=5))
        assert gw.ping(token).status_code == 200
        after = gw.server.auth.store.connection(grant.connection_id)
    assert before is not None and after is not None
    assert after.last_used_at - before.last_used_at == timedelta(minutes=5)
