"""``ordergate bench client``: what the typed client adds to a raw JSON-RPC POST.

The venue runs as its own process (``ordergate sandbox serve``). In this process, in the same
run and in alternating rounds, the same ``get_equity_quotes`` request for AAPL goes out three
ways, each over a pooled ``httpx2.AsyncClient`` with its own MCP session:

- ``raw_jsonrpc_post`` (the baseline): the request body prebuilt, POSTed, the body read;
- ``typed_market_quotes``: ``rh.market.quotes(["AAPL"])`` through ``connect`` (bearer auth
  with expiry check, JSON-RPC, envelope, Decimal parsing, the typed model);
- ``sdk_call_tool``: the MCP SDK's ``ClientSession.call_tool``, for the record of why the
  typed client does not use it per call.

Beside them, the crypto REST rail against the same venue process (its REST venue):

- ``rest_signing``: ``ApiKey.sign`` of one order body (Ed25519 over the request text), no I/O;
- ``rest_best_bid_ask``: ``CryptoRest.best_bid_ask("BTC-USD")``, a signed GET answered by
  the venue after it checked the signature, read into the typed model. The client's token
  bucket is opened wide here: held to 100 a minute, the run would measure the limit.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx2

from ordergate.bench._process import free_port, venue_process
from ordergate.bench._stats import Summary, summarise

if TYPE_CHECKING:
    from mcp.client import ClientSession

__all__ = ["run_client_bench"]

_ACCEPT = "application/json, text/event-stream"
_ARGUMENTS = {"symbols": ["AAPL"]}
_PROTOCOL = "2025-11-25"
_REST_ORDERS = "/api/v1/crypto/trading/orders/"
_REST_BODY = json.dumps(
    {
        "client_order_id": "131de903-5a9c-4260-abc1-28d562a5dcf0",
        "side": "buy",
        "type": "market",
        "symbol": "BTC-USD",
        "market_order_config": {"asset_quantity": "0.1"},
    },
    separators=(",", ":"),
)

Call = Callable[[], Awaitable[None]]


# (rounds, calls per case per round, warm-up calls per case)
SIZES = {"quick": (3, 300, 100), "full": (6, 1500, 300)}


def run_client_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    rounds, per_round, warmup = SIZES["quick" if quick else "full"]
    port = free_port()
    with (
        venue_process(port),
        tempfile.TemporaryDirectory() as home,
    ):
        # Everything, reporting included, inside the run: on CPython 3.11 the frame calling
        # anyio.run can lose coverage tracing after a cancelled task group (cpython#106749).
        anyio.run(_run, f"http://127.0.0.1:{port}", Path(home), (rounds, per_round, warmup), emit)


async def _run(
    base: str, home: Path, sizes: tuple[int, int, int], emit: Callable[[Summary], None]
) -> None:
    samples = await _measure(base, home, *sizes)
    baseline = summarise("client", "raw_jsonrpc_post", samples["raw_jsonrpc_post"])
    emit(baseline)
    for case in ("typed_market_quotes", "sdk_call_tool", "rest_signing", "rest_best_bid_ask"):
        emit(summarise("client", case, samples[case]).compared_with(baseline))


async def _measure(
    base: str, home: Path, rounds: int, per_round: int, warmup: int
) -> dict[str, list[int]]:
    from mcp.client import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from ordergate.client import Config, TokenSet, connect, write_token_file
    from ordergate.client.crypto_rest import ApiKey, CryptoRest, TokenBucket
    from ordergate.core import RealtimeClock, Secret

    url = f"{base}/mcp/trading"
    async with httpx2.AsyncClient(timeout=10.0) as admin:
        minted = (await admin.post(f"{base}/_sandbox/tokens", json={})).json()
        issued = (await admin.post(f"{base}/_sandbox/crypto_api_keys", json={})).json()
    key = ApiKey(Secret(issued["api_key"]), Secret(issued["private_key"]))
    unlimited = TokenBucket(time.monotonic, per_minute=10**12, burst=10**12)
    token = minted["access_token"]
    config = Config(url=url, token_file=home / "tokens.json", name="ordergate-bench")
    write_token_file(
        config.token_file,
        TokenSet(
            access_token=Secret(token),
            refresh_token=Secret(minted["refresh_token"]),
            expires_at=RealtimeClock().now() + timedelta(seconds=minted["expires_in"]),
            server=url,
        ),
    )
    bearer = {"authorization": f"Bearer {token}"}
    async with (
        connect(config) as rh,
        httpx2.AsyncClient(timeout=10.0) as raw_http,
        httpx2.AsyncClient(timeout=10.0, headers=bearer) as sdk_http,
        streamable_http_client(url, http_client=sdk_http) as (read, write),
        ClientSession(read, write) as sdk,
        CryptoRest(key=key, base_url=base, bucket=unlimited) as rest,
    ):
        await sdk.initialize()
        await _list_every_tool(sdk)
        raw_post = await _raw_post(raw_http, url, token)

        async def typed() -> None:
            await rh.market.quotes(["AAPL"])

        async def sdk_call() -> None:
            result = await sdk.call_tool("get_equity_quotes", _ARGUMENTS)
            if result.is_error:
                raise RuntimeError("sdk_call_tool: the measured call failed")

        async def rest_sign() -> None:
            key.sign(1_800_000_000, _REST_ORDERS, "POST", _REST_BODY)

        async def rest_quote() -> None:
            await rest.best_bid_ask("BTC-USD")

        cases: dict[str, Call] = {
            "raw_jsonrpc_post": raw_post,
            "typed_market_quotes": typed,
            "sdk_call_tool": sdk_call,
            "rest_signing": rest_sign,
            "rest_best_bid_ask": rest_quote,
        }
        samples: dict[str, list[int]] = {case: [] for case in cases}
        for call in cases.values():
            await _timed(call, warmup)
        for _ in range(rounds):
            for case, call in cases.items():
                samples[case] += await _timed(call, per_round)
    return samples


async def _list_every_tool(session: ClientSession) -> None:
    """Page through ``tools/list`` once, as an SDK user would: ``call_tool`` validates
    results against the output schemas the session has seen."""
    from mcp_types import PaginatedRequestParams

    page = await session.list_tools()
    while page.next_cursor is not None:
        page = await session.list_tools(params=PaginatedRequestParams(cursor=page.next_cursor))


async def _raw_post(http: httpx2.AsyncClient, url: str, token: str) -> Call:
    headers = {
        "accept": _ACCEPT,
        "content-type": "application/json",
        "authorization": f"Bearer {token}",
    }
    init: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": _PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "ordergate-bench-raw", "version": "0"},
        },
    }
    response = await http.post(url, json=init, headers=headers)
    response.raise_for_status()
    headers["mcp-session-id"] = response.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = _PROTOCOL
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_equity_quotes", "arguments": _ARGUMENTS},
    }
    body = json.dumps(message).encode()

    async def post() -> None:
        answer = await http.post(url, content=body, headers=headers)
        if answer.status_code != 200:
            raise RuntimeError(f"raw_jsonrpc_post: the venue answered {answer.status_code}")

    return post


async def _timed(call: Call, n: int) -> list[int]:
    samples: list[int] = []
    for _ in range(n):
        started = time.perf_counter_ns()
        await call()
        samples.append(time.perf_counter_ns() - started)
    return samples
