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

And one crypto order through the guard on each lane, live against the same venue
(``Guard.submit_crypto`` of a 0.00001 BTC market buy: the lane chosen, the account and pairs
read, stage A, filed and reserved on a SQLite ledger, reviewed, stage B, placed):
``guard_crypto_mcp`` (``crypto.route = "mcp"``: ``preview_crypto_order``,
``place_crypto_order``) and ``guard_crypto_rest`` (``"rest"``: ``estimated_price``, a
signed POST). A tenth as many of these per round (``GUARD_SHARE``): each places an order.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx2

from ordergate.bench._process import VENUE_START, free_port, venue_process
from ordergate.bench._stats import Summary, summarise

if TYPE_CHECKING:
    from mcp.client import ClientSession

    from ordergate.client import Robinhood
    from ordergate.client.crypto_rest import CryptoRest

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
GUARD_SHARE = 10
"""The guard's crypto cases take one call in this many of the others' (each places an order)."""
GUARD_CASES = ("guard_crypto_mcp", "guard_crypto_rest")
_GUARD_POLICY = """
mode = "live"
real_money = true
approval = "never"
[limits]
max_order_usd = "1000"
max_daily_usd = "10000000"
max_orders_per_day = 1000000
max_open_orders = 1000000
max_orders_per_minute = 1000000
max_account_orders_per_minute = 1000000
duplicate_window_s = 0
max_position_pct = "100"
[symbols]
allow = ["*"]
[crypto]
pairs = ["BTC-USD"]
max_order_usd = "1000"
max_position_pct = "100"
price_collar_bps = 1000
route = "{route}"
"""


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
    cases = ("typed_market_quotes", "sdk_call_tool", "rest_signing", "rest_best_bid_ask")
    for case in (*cases, *GUARD_CASES):
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
        _crypto_guards(rh, rest, home) as guarded,
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
        samples: dict[str, list[int]] = {case: [] for case in (*cases, *guarded)}
        share = max(1, per_round // GUARD_SHARE), max(1, warmup // GUARD_SHARE)
        for call in cases.values():
            await _timed(call, warmup)
        for call in guarded.values():
            await _timed(call, share[1])
        for _ in range(rounds):
            for case, call in cases.items():
                samples[case] += await _timed(call, per_round)
            for case, call in guarded.items():
                samples[case] += await _timed(call, share[0])
    return samples


@asynccontextmanager
async def _crypto_guards(
    rh: Robinhood, rest: CryptoRest, home: Path
) -> AsyncIterator[dict[str, Call]]:
    """One live guard per lane (one SQLite ledger) on the venue with both lanes, and a call
    that files and places one crypto order through each."""
    from ordergate.core import Side, SteppedClock
    from ordergate.execution import Guard
    from ordergate.ledger import FilingStatus, open_ledger
    from ordergate.policy import CryptoProposal, parse_policy
    from ordergate.venues.robinhood import RobinhoodVenue

    # The venue's clock stands at its start: the guard reads the market (and records) there.
    clock = SteppedClock(start=datetime.fromisoformat(VENUE_START))
    agentic = await rh.accounts.agentic()
    venue = RobinhoodVenue.through(rh, clock=clock, crypto_rest=rest)
    proposal = CryptoProposal(
        pair="BTC-USD",
        side=Side.BUY,
        asset_quantity=Decimal("0.00001"),
        account=agentic.rhs_account_number,
    )

    def through(guard: Guard, case: str) -> Call:
        async def submit() -> None:
            outcome = await guard.submit_crypto(proposal, identity="bench")
            if outcome.status is not FilingStatus.SUBMITTED:
                raise RuntimeError(f"{case}: the order was not placed ({outcome.reasons})")

        return submit

    async with AsyncExitStack() as stack:
        # One ledger: each guard knows the other's orders (the venue's one crypto account).
        ledger = stack.enter_context(open_ledger(f"sqlite:///{home / 'crypto.db'}", clock=clock))
        calls: dict[str, Call] = {}
        for case in GUARD_CASES:
            route = case.rsplit("_", 1)[1]
            guard = await stack.enter_async_context(
                Guard.open(
                    policy=parse_policy(_GUARD_POLICY.format(route=route)),
                    ledger=ledger,
                    venue=venue,
                    account=agentic.account_number,
                    clock=clock,
                )
            )
            calls[case] = through(guard, case)
        yield calls


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
