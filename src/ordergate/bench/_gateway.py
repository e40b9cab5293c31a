"""``ordergate bench gateway``: what the gateway adds to a read and costs for an order, beside
the straight path and the peer (the PyPI ``mcp-proxy``), all measured in one run on loopback.

Every server runs in its own process: the sandbox venue (``ordergate sandbox serve``, stepped
clock at Tuesday 2026-12-01 10:00 New York, seed 7); the gateway, in owner mode, as
``ordergate serve --upstream URL`` runs it (``run_gateway``) with a token file written for that
same venue; and ``mcp-proxy`` in an environment of its own (``uv tool run``), in front of the
same venue with the bearer header. The load comes from this process over raw sockets: prebuilt
HTTP/1.1 JSON-RPC POSTs on keep-alive connections, each response read to its end and checked
(200, a JSON-RPC result, ``isError`` false) outside the timed span. No MCP SDK client: its own
cost per call would hide what the servers cost.

Cases (one JSON line each; ``baseline`` and ``ratio`` = p50 / the baseline's p50):

- ``direct_read`` (baseline): ``get_equity_quotes`` for AAPL straight at the venue, with a
  venue token minted through its admin route;
- ``gateway_read``: the same call through the gateway, with a gateway access token; also
  ``added_p50_us`` (its p50 minus the baseline's), ``bare_hop_ratio`` (its p50 /
  ``bare_hop_read``'s p50) and, when the peer ran, ``mcp_proxy_ratio`` (its p50 /
  ``mcp_proxy_read``'s p50);
- ``bare_hop_read``: the same call through a minimal forwarding proxy (``_hop``: Starlette
  on uvicorn configured as the gateway's server is, one pooled ``httpx2`` client as the
  gateway's upstream client, no checks at all), in its own process with a venue token: the
  floor any Python gateway can reach on this machine;
- ``gateway_read_2026``: the same call through the gateway in MCP's stateless 2026-07-28
  era (no session: each request carries its ``_meta`` and its ``Mcp-Method`` and
  ``Mcp-Name`` headers), in the same rounds; also ``era_ratio`` (its p50 /
  ``gateway_read``'s p50);
- ``gateway_order``: ``place_equity_order`` (one SPY share, a day limit buy 5 % under the bid,
  which rests) through the gateway: the guard's whole order path, paper, with approval
  ``never``, big caps and ``symbols = ["*"]``; each is cancelled right after
  (``cancel_equity_order``, its own case, ``gateway_cancel``: through the guard to the paper
  venue), so one is open at a time and the gateway's open cap per identity never counts
  them. (A market order cannot be the case once paper runs the venue's own engine: on the
  standing clock it stays pending, and the open cap refuses the sixth.);
- ``gateway_option_order`` (baseline ``gateway_order``): ``place_option_order`` through the
  same guard path on paper, the venue's options desk answering: buy to open one SPY call
  (the strike nearest the money, the chain's first expiry) at a limit 5 % under its bid,
  which rests; cancelled right after with ``cancel_option_order``
  (``gateway_option_cancel``, baseline ``gateway_cancel``). The contract is picked from the
  venue's chain through the gateway's own read tools before the case
  (``ordergate.bench._option_orders``); the bench policy's ``[options]`` allows it and the
  bench profile (``bench``: the trader's permissions and the three option ones) lets the
  connection place and cancel it;
- ``gateway_condor_order`` (baseline ``gateway_order``) and ``gateway_condor_cancel``
  (baseline ``gateway_cancel``): the same with four legs, an iron condor on the strikes one
  and two either side of the money, for its legs' net mid credit (which rests); the paper
  book is a margin account at option level 3, as a multi-leg order needs;
- ``mcp_proxy_read``: the read through ``mcp-proxy`` (HTTP in, ``mcp-proxy``'s stdio bridge
  to a second ``mcp-proxy`` as the venue's streamable-HTTP client: the way the package puts
  one HTTP server in front of another). When it cannot run here (no ``uv``, the package not
  installable, the proxy not answering), a line on stderr says why and the figures go
  without it;
- ``direct_read_32c`` (baseline) and ``gateway_read_32c``: 32 clients at once, each its own
  keep-alive connection and MCP session; ``ops_per_s`` is completed calls per second of wall
  time, and both lines carry ``errors`` (calls that failed); ``gateway_read_32c`` also carries
  ``throughput_ratio`` (its ``ops_per_s`` / the baseline's).

Read cases alternate in rounds so machine noise falls on each alike; the concurrent pair too.

Goals (issue 14 §4, side by side in one run): the stateless era's read within 1.1× the
handshake era's (``era_ratio`` ≤ 1.1, issue 26 §1); the gateway's read is at most 1.2× the bare
hop's (``bare_hop_ratio`` ≤ 1.2) and adds at most 800 µs to direct (``added_p50_us`` ≤ 800);
at 32 concurrent clients its throughput is at least half of direct (``throughput_ratio`` ≥
0.5) with zero errors; a paper order's p50 is at most 15 ms (``gateway_order`` ``p50_us`` ≤
15000), and a paper option order's at most 20 ms (``gateway_option_order`` ``p50_us`` ≤
20000, issue 28; its ``ratio`` is what the option path costs over the equity one; the
condor has no goal of its own). Issue 6's stays: the read p50 at most half the
``mcp-proxy`` path's (``mcp_proxy_ratio`` ≤ 0.5).

The clocks: the venue's is stepped at the session instant, so quotes and sessions are
reproducible. ``ORDERGATE_SANDBOX_START`` cannot put the gateway there: it is for the embedded
sandbox only (a real broker's clock is real), and an embedded sandbox would run the venue in
the gateway's own process, not one started like the direct one. So the gateway process gets
a ``SteppedClock`` at the venue's instant injected, exactly as ``ordergate serve`` passes its
clock to ``run_gateway``: both sides agree on the instant for the whole run (quote age zero,
the regular session open). A clock that stands still also stands the rate limiter's minute
window and each connection's call budget still, so the limits (per IP, and per connection
with its burst) are raised out of the way for this run; the limiters still run on every
request. The gateway's token is minted in its own process through its store
(``ordergate.gateway.server.mint_owner_tokens``, as the token endpoint would) and handed over
in a private file; the ``mcp-proxy`` command line carries a venue token, which is that
throwaway venue's.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import httpx2

from ordergate.bench._hop import READY as HOP_READY
from ordergate.bench._option_orders import option_orders
from ordergate.bench._process import VENUE_START, free_port, server_process, venue_process
from ordergate.bench._stats import Summary, summarise

__all__ = ["SIZES", "GatewaySummary", "Sizes", "run_gateway_bench", "serve_gateway"]

BENCH = "gateway"
PROTOCOL = "2025-11-25"
STATELESS = "2026-07-28"
MCP_PROXY = "mcp-proxy==0.13.0"
CONCURRENCY = 32
_READY = "bench gateway: ready"
_TOKEN_FILE = "gateway-token"
_CALL_TIMEOUT_S = 30.0
_UNDER = Decimal("0.95")  # the bench's limit buy: this far under the bid, it rests
_CENT = Decimal("0.01")
_PROXY_START_S = 120.0
_POLICY = """\
mode = "paper"
approval = "never"

[limits]
max_order_usd = "100000"
max_daily_usd = "100000000"
max_orders_per_day = 1000000
max_open_orders = 1000
max_position_pct = "100"
max_positions = 1000
daily_loss_halt_usd = "100000000"
max_spread_bps = 1000
price_collar_bps = 1000
# The clock stands still and the bench sends one order many times: it measures the path,
# not an agent's pace (the recent orders are still counted on every order).
duplicate_window_s = 0
max_orders_per_minute = 1000000
max_account_orders_per_minute = 1000000

[symbols]
allow = ["*"]

[options]
underlyings = ["SPY"]
strategies = ["long_call", "iron_condor"]
max_premium_usd = "100000"
max_daily_premium_usd = "100000000"
max_loss_usd = "100000"

[paper]
starting_cash_usd = "1000000"
# A multi-leg order needs margin at option level 3 (the venue's agentic account is a cash
# account at level 2).
account_type = "margin"
option_level = 3
"""
_PROFILE = "bench"
_PROFILE_YAML = """\
name: bench
description: The bench's connection, the trader's permissions and the three option ones.
permissions: [account.read, market.read, research.read, orders.read, orders.review,
  orders.place, orders.cancel, options.review, options.place, options.cancel]
"""


@dataclass(frozen=True, slots=True)
class Sizes:
    rounds: int  # alternating rounds of the read cases, and of the concurrent pair
    per_round: int  # sequential calls per read case per round
    warmup: int  # unmeasured calls per case first
    orders: int  # measured gateway orders
    per_client: int  # calls per concurrent client per round


SIZES = {
    "quick": Sizes(rounds=3, per_round=200, warmup=50, orders=60, per_client=20),
    "full": Sizes(rounds=6, per_round=1000, warmup=200, orders=400, per_client=60),
}


@dataclass(frozen=True, slots=True)
class GatewaySummary(Summary):
    """A ``Summary`` with the figures the goals need beside the standard fields."""

    extra: tuple[tuple[str, int | Decimal], ...] = ()

    def as_json(self) -> dict[str, Any]:
        line = Summary.as_json(self)
        line.update(self.extra)
        return line


def _with(
    summary: Summary, *extra: tuple[str, int | Decimal], ops: Decimal | None = None
) -> Summary:
    return GatewaySummary(
        summary.bench, summary.case, summary.n, summary.p50_us, summary.p99_us,
        summary.ops_per_s if ops is None else ops, summary.baseline, summary.ratio, extra,
    )  # fmt: skip


def _ratio(numerator: Decimal, denominator: Decimal) -> Decimal:
    return (numerator / denominator).quantize(Decimal("0.01"), ROUND_HALF_EVEN)


# -- the load generator: raw HTTP/1.1 over keep-alive sockets ------------------------------


class HttpError(Exception):
    """A response that is not a complete HTTP/1.1 answer."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def message(self) -> dict[str, Any]:
        """The JSON-RPC message: the body, or the last ``data:`` line of an SSE body."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            lines = [line for line in self.body.splitlines() if line.startswith(b"data:")]
            if not lines:
                raise HttpError("an event stream without data")
            message: dict[str, Any] = json.loads(lines[-1][5:])
            return message
        message = json.loads(self.body)
        return message


class Connection:
    """One keep-alive connection to ``127.0.0.1:port`` that sends prebuilt requests.

    Servers close a connection left idle for a few seconds (uvicorn: 5 s), as one is while
    the other cases take their turn; ``reopen`` before each round starts a fresh one, outside
    the timed span. The MCP session does not depend on the connection.
    """

    def __init__(
        self, port: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self._port = port
        self._reader = reader
        self._writer = writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(port, reader, writer)

    async def reopen(self) -> None:
        await self.close()
        self._reader, self._writer = await asyncio.open_connection("127.0.0.1", self._port)

    async def close(self) -> None:
        self._writer.close()
        with suppress(OSError):  # already reset by the peer: closed either way
            await self._writer.wait_closed()

    async def send(self, request: bytes) -> Answer:
        self._writer.write(request)
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise HttpError(f"not an HTTP/1.1 status line: {status_line[:80]!r}")
        headers: dict[str, str] = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self._reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._chunked()
        else:
            raise HttpError("a response without a length")
        return Answer(int(parts[1]), headers, body)

    async def _chunked(self) -> bytes:
        chunks: list[bytes] = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")  # the empty trailer
                return b"".join(chunks)
            chunks.append(await self._reader.readexactly(size))
            await self._reader.readexactly(2)


def http_post(port: int, path: str, body: bytes, headers: dict[str, str]) -> bytes:
    """The bytes of one HTTP/1.1 POST, ready to send as often as wanted."""
    lines = [f"POST {path} HTTP/1.1", f"host: 127.0.0.1:{port}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines += [f"content-length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


def rpc(method: str, params: dict[str, Any], request_id: int | None = 1) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if request_id is not None:
        message["id"] = request_id
    return json.dumps(message).encode()


def tool_call(tool: str, arguments: dict[str, Any]) -> bytes:
    return rpc("tools/call", {"name": tool, "arguments": arguments})


@dataclass(frozen=True, slots=True)
class Target:
    """An MCP endpoint on loopback and the bearer to show it (``None``: none needed)."""

    name: str
    port: int
    path: str
    token: str | None
    stateless: bool = False
    """Spoken in MCP's stateless era (2026-07-28): no session, the envelope on each request."""

    def headers(self, session: str | None = None) -> dict[str, str]:
        headers = {"accept": "application/json, text/event-stream"}
        headers["content-type"] = "application/json"
        if self.token is not None:
            headers["authorization"] = f"Bearer {self.token}"
        if session is not None:
            headers["mcp-session-id"] = session
            headers["mcp-protocol-version"] = PROTOCOL
        return headers

    def stateless_request(self, body: bytes) -> bytes:
        """``body`` (a JSON-RPC request) as the stateless era sends it: its ``params`` with
        the ``_meta`` envelope, its method and tool name repeated in headers."""
        message = json.loads(body)
        params = message.setdefault("params", {})
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        headers = {**self.headers(), "mcp-protocol-version": STATELESS}
        headers["mcp-method"] = message["method"]
        if isinstance(params.get("name"), str):
            headers["mcp-name"] = params["name"]
        return http_post(self.port, self.path, json.dumps(message).encode(), headers)


@dataclass(frozen=True, slots=True)
class Session:
    """A connection with an initialized MCP session, and requests built for it."""

    target: Target
    connection: Connection
    session_id: str | None
    """``None`` in the stateless era."""

    def request(self, body: bytes) -> bytes:
        target = self.target
        if self.session_id is None:
            return target.stateless_request(body)
        return http_post(target.port, target.path, body, target.headers(self.session_id))

    async def call(self, body: bytes) -> dict[str, Any]:
        """One call on a fresh connection, checked: its JSON-RPC result."""
        await self.connection.reopen()
        return checked(self.target.name, await _sent(self, self.request(body)))


async def open_session(target: Target) -> Session:
    connection = await Connection.open(target.port)
    if target.stateless:  # nothing to open: server/discover once, as a client would
        session = Session(target, connection, None)
        answer = await connection.send(session.request(rpc("server/discover", {})))
        if answer.status != 200 or STATELESS not in answer.body.decode():
            raise RuntimeError(f"{target.name}: server/discover answered {answer.status}")
        return session
    init = rpc(
        "initialize",
        {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "ordergate-bench", "version": "0"},
        },
        request_id=0,
    )
    answer = await connection.send(http_post(target.port, target.path, init, target.headers()))
    checked(target.name, answer)
    session_id = answer.headers.get("mcp-session-id")
    if session_id is None:
        raise RuntimeError(f"{target.name}: initialize gave no session id")
    session = Session(target, connection, session_id)
    notice = rpc("notifications/initialized", {}, request_id=None)
    done = await connection.send(session.request(notice))
    if done.status not in (200, 202):
        raise RuntimeError(f"{target.name}: notifications/initialized answered {done.status}")
    return session


def problem(answer: Answer) -> str | None:
    """Why ``answer`` is not a successful JSON-RPC result, or ``None`` when it is one."""
    if answer.status != 200:
        return f"HTTP {answer.status}: {answer.body[:200]!r}"
    try:
        message = answer.message()
    except (ValueError, HttpError) as error:
        return f"an unreadable answer ({error})"
    result = message.get("result")
    if not isinstance(result, dict):
        return f"no result: {str(message)[:200]}"
    if result.get("isError"):
        return f"the call failed: {str(result)[:300]}"
    return None


def checked(case: str, answer: Answer) -> dict[str, Any]:
    reason = problem(answer)
    if reason is not None:
        raise RuntimeError(f"{case}: {reason}")
    result: dict[str, Any] = answer.message()["result"]
    return result


async def timed(
    session: Session,
    body: bytes,
    n: int,
    accept: Callable[[dict[str, Any]], bool] = lambda result: True,
) -> list[int]:
    """``n`` sequential calls; their durations in nanoseconds. Raises on the first failure,
    or the first result ``accept`` does not take."""
    await session.connection.reopen()
    request = session.request(body)
    samples: list[int] = []
    for _ in range(n):
        started = time.perf_counter_ns()
        answer = await _sent(session, request)
        samples.append(time.perf_counter_ns() - started)
        result = checked(session.target.name, answer)
        if not accept(result):
            raise RuntimeError(f"{session.target.name}: not the expected result: {result}")
    return samples


async def _sent(session: Session, request: bytes) -> Answer:
    """``request``'s answer; a connection that fails or times out is the case's error."""
    try:
        return await asyncio.wait_for(session.connection.send(request), _CALL_TIMEOUT_S)
    except (OSError, TimeoutError, HttpError, asyncio.IncompleteReadError) as error:
        reason = type(error).__name__
        raise RuntimeError(
            f"{session.target.name}: no answer on the connection ({reason})"
        ) from None


@dataclass
class Load:
    """What a concurrent round measured: durations of the calls that succeeded, failures,
    and wall time."""

    samples: list[int]
    errors: int = 0
    wall_ns: int = 0


async def concurrent(sessions: list[Session], body: bytes, per_client: int, load: Load) -> None:
    """Every session calls ``per_client`` times at once; adds to ``load``. A failed call is
    counted; a connection that broke or timed out stops its client (its remaining calls are
    not made, and so not counted as done)."""

    async def client(session: Session) -> None:
        request = session.request(body)
        for _ in range(per_client):
            started = time.perf_counter_ns()
            try:
                answer = await asyncio.wait_for(session.connection.send(request), _CALL_TIMEOUT_S)
            except (OSError, TimeoutError, HttpError, asyncio.IncompleteReadError, ValueError):
                load.errors += 1
                return
            elapsed = time.perf_counter_ns() - started
            if problem(answer) is None:
                load.samples.append(elapsed)
            else:
                load.errors += 1

    for session in sessions:
        await session.connection.reopen()
    started = time.perf_counter_ns()
    await asyncio.gather(*(client(session) for session in sessions))
    load.wall_ns += time.perf_counter_ns() - started


# -- the run -------------------------------------------------------------------------------


def run_gateway_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    sizes = SIZES["quick" if quick else "full"]
    venue_port, gateway_port, hop_port = free_port(), free_port(), free_port()
    with (
        tempfile.TemporaryDirectory(prefix="ordergate-bench-") as scratch,
        venue_process(venue_port),
    ):
        venue = f"http://127.0.0.1:{venue_port}"
        tokens = _venue_tokens(venue)
        home = Path(scratch)
        _write_gateway_home(home, venue, tokens.upstream)
        gateway_cmd = [
            sys.executable, "-c",
            "import sys; from ordergate.bench._gateway import serve_gateway; "
            "serve_gateway(*sys.argv[1:])",
            str(home), f"{venue}/mcp/trading", str(gateway_port),
        ]  # fmt: skip
        hop_cmd = [sys.executable, "-m", "ordergate.bench._hop", f"{venue}/mcp/trading"]
        with (
            server_process(gateway_cmd, ready_marker=_READY),
            server_process([*hop_cmd, str(hop_port)], ready_marker=HOP_READY),
            _mcp_proxy(f"{venue}/mcp/trading", tokens.proxy, home) as proxy,
        ):
            gateway_token = (home / _TOKEN_FILE).read_text(encoding="utf-8")
            targets = {
                "direct_read": Target("direct_read", venue_port, "/mcp/trading", tokens.direct),
                "gateway_read": Target("gateway_read", gateway_port, "/mcp", gateway_token),
                "gateway_read_2026": Target(
                    "gateway_read_2026", gateway_port, "/mcp", gateway_token, stateless=True
                ),
                "bare_hop_read": Target("bare_hop_read", hop_port, "/mcp", tokens.hop),
            }
            if isinstance(proxy, int):
                targets["mcp_proxy_read"] = Target("mcp_proxy_read", proxy, "/mcp", None)
            else:
                print(f"bench gateway: mcp_proxy_read skipped: {proxy}", file=sys.stderr)
            summaries = asyncio.run(_measure(targets, sizes))
    for summary in summaries:
        emit(summary)


async def _measure(targets: dict[str, Target], sizes: Sizes) -> list[Summary]:
    read = tool_call("get_equity_quotes", {"symbols": ["AAPL"]})
    sessions = {case: await open_session(target) for case, target in targets.items()}
    try:
        for session in sessions.values():
            await timed(session, read, sizes.warmup)
        samples: dict[str, list[int]] = {case: [] for case in sessions}
        for _ in range(sizes.rounds):
            for case, session in sessions.items():
                samples[case] += await timed(session, read, sizes.per_round)
        orders = await _orders(sessions["gateway_read"], sizes)
        loads = await _concurrency(targets, read, sizes)
    finally:
        for session in sessions.values():
            await session.connection.close()
    return _summaries(samples, orders, loads)


ORDER_CASES = (
    # (the order's case, its cancel's case, the cancel tool)
    ("gateway_order", "gateway_cancel", "cancel_equity_order"),
    ("gateway_option_order", "gateway_option_cancel", "cancel_option_order"),
    ("gateway_condor_order", "gateway_condor_cancel", "cancel_option_order"),
)
"""The order cases, in the order they run: each order placed and then cancelled."""


async def _orders(gateway: Session, sizes: Sizes) -> dict[str, list[int]]:
    """Each order case's and its cancel's durations (nanoseconds), each case after an
    unmeasured warm-up of its own."""
    accounts = (await gateway.call(tool_call("get_accounts", {})))["structuredContent"]
    number = next(a for a in accounts["data"]["accounts"] if a["agentic_allowed"])
    account = number["account_number"]

    async def read(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        data: dict[str, Any] = (await gateway.call(tool_call(tool, arguments)))[
            "structuredContent"
        ]["data"]
        return data

    options = await option_orders(read, account, _UNDER)
    bodies = {
        "gateway_order": await resting_order(gateway, account),
        "gateway_option_order": tool_call("place_option_order", options.single),
        "gateway_condor_order": tool_call("place_option_order", options.condor),
    }
    samples: dict[str, list[int]] = {}
    for case, cancel_case, cancel_tool in ORDER_CASES:
        await gateway.connection.reopen()
        order = bodies[case]
        warmup = max(1, sizes.warmup // 10)
        await placed_and_cancelled(gateway, order, account, warmup, cancel_tool)
        places, cancels = await placed_and_cancelled(
            gateway, order, account, sizes.orders, cancel_tool
        )
        samples[case], samples[cancel_case] = places, cancels
    return samples


async def resting_order(session: Session, account: str) -> bytes:
    """A ``place_equity_order`` call that rests on the standing clock: one SPY share, a day
    limit buy ``_UNDER`` the bid (inside the bench policy's collar)."""
    quotes = await session.call(tool_call("get_equity_quotes", {"symbols": ["SPY"]}))
    bid = Decimal(quotes["structuredContent"]["data"]["results"][0]["quote"]["bid_price"])
    return tool_call(
        "place_equity_order",
        {
            "account_number": account,
            "symbol": "SPY",
            "side": "buy",
            "type": "limit",
            "quantity": "1",
            "limit_price": str((bid * _UNDER).quantize(_CENT)),
            "time_in_force": "gfd",
        },
    )


async def placed_and_cancelled(
    session: Session,
    order: bytes,
    account: str,
    n: int,
    cancel_tool: str = "cancel_equity_order",
) -> tuple[list[int], list[int]]:
    """``n`` orders, each placed and then cancelled (with ``cancel_tool``); the durations of
    each (nanoseconds). Raises on the first failure, or an order not placed on paper, or a
    cancel not accepted."""
    placing = session.request(order)
    places: list[int] = []
    cancels: list[int] = []
    for _ in range(n):
        started = time.perf_counter_ns()
        answer = await _sent(session, placing)
        places.append(time.perf_counter_ns() - started)
        placed = checked(session.target.name, answer)
        data = placed.get("structuredContent", {}).get("data", {})
        if not _placed(data):
            raise RuntimeError(f"{session.target.name}: not placed on paper: {placed}")
        arguments = {"account_number": account, "order_id": data["order_id"]}
        cancelling = session.request(tool_call(cancel_tool, arguments))
        started = time.perf_counter_ns()
        answer = await _sent(session, cancelling)
        cancels.append(time.perf_counter_ns() - started)
        cancelled = checked(session.target.name, answer)
        if cancelled.get("structuredContent", {}).get("data", {}).get("accepted") is not True:
            raise RuntimeError(f"{session.target.name}: cancel not accepted: {cancelled}")
    return places, cancels


def _placed(data: dict[str, Any]) -> bool:
    """A paper order the guard filed, checked and placed (accepted by the venue, resting:
    not refused, not held)."""
    return data.get("status") == "submitted" and data.get("paper") is True and "order_id" in data


async def _concurrency(targets: dict[str, Target], read: bytes, sizes: Sizes) -> dict[str, Load]:
    cases = {"direct_read_32c": targets["direct_read"], "gateway_read_32c": targets["gateway_read"]}
    pools = {
        case: [await open_session(target) for _ in range(CONCURRENCY)]
        for case, target in cases.items()
    }
    loads = {case: Load([]) for case in cases}
    try:
        for pool in pools.values():  # warm every connection and session
            await concurrent(pool, read, max(1, sizes.warmup // 10), Load([]))
        for _ in range(sizes.rounds):
            for case, pool in pools.items():
                await concurrent(pool, read, sizes.per_client, loads[case])
    finally:
        for pool in pools.values():
            for session in pool:
                await session.connection.close()
    return loads


def _summaries(
    samples: dict[str, list[int]],
    orders: dict[str, list[int]],
    loads: dict[str, Load],
) -> list[Summary]:
    direct = summarise(BENCH, "direct_read", samples["direct_read"])
    gateway = summarise(BENCH, "gateway_read", samples["gateway_read"]).compared_with(direct)
    hop = summarise(BENCH, "bare_hop_read", samples["bare_hop_read"]).compared_with(direct)
    extra: list[tuple[str, int | Decimal]] = [
        ("added_p50_us", gateway.p50_us - direct.p50_us),
        ("bare_hop_ratio", _ratio(gateway.p50_us, hop.p50_us)),
    ]
    proxy = None
    if "mcp_proxy_read" in samples:
        proxy = summarise(BENCH, "mcp_proxy_read", samples["mcp_proxy_read"])
        proxy = proxy.compared_with(direct)
        extra.append(("mcp_proxy_ratio", _ratio(gateway.p50_us, proxy.p50_us)))
    stateless = summarise(BENCH, "gateway_read_2026", samples["gateway_read_2026"])
    stateless = _with(
        stateless.compared_with(direct), ("era_ratio", _ratio(stateless.p50_us, gateway.p50_us))
    )
    out = [direct, _with(gateway, *extra), stateless, hop]
    out += _order_summaries(orders, direct)
    if proxy is not None:
        out.append(proxy)
    base_load, gate_load = loads["direct_read_32c"], loads["gateway_read_32c"]
    base_ops, gate_ops = _throughput(base_load), _throughput(gate_load)
    base = summarise(BENCH, "direct_read_32c", base_load.samples)
    out.append(_with(base, ("errors", base_load.errors), ops=base_ops))
    gate = summarise(BENCH, "gateway_read_32c", gate_load.samples).compared_with(base)
    ratio = ("throughput_ratio", _ratio(gate_ops, base_ops))
    out.append(_with(gate, ratio, ("errors", gate_load.errors), ops=gate_ops))
    return out


def _order_summaries(orders: dict[str, list[int]], direct: Summary) -> list[Summary]:
    """The equity order and its cancel against ``direct_read``; each option order and cancel
    against the equity order's and cancel's (``ratio``: what an option order costs over an
    equity one on the same path)."""
    order_case, cancel_case, _ = ORDER_CASES[0]
    order = summarise(BENCH, order_case, orders[order_case])
    cancel = summarise(BENCH, cancel_case, orders[cancel_case])
    out = [order.compared_with(direct), cancel.compared_with(direct)]
    for option_case, option_cancel, _ in ORDER_CASES[1:]:
        out.append(summarise(BENCH, option_case, orders[option_case]).compared_with(order))
        out.append(summarise(BENCH, option_cancel, orders[option_cancel]).compared_with(cancel))
    return out


def _throughput(load: Load) -> Decimal:
    seconds = Decimal(load.wall_ns) / Decimal(1_000_000_000)
    return (Decimal(len(load.samples)) / seconds).quantize(Decimal("0.1"))


# -- the servers ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VenueTokens:
    """Venue tokens from its admin route, one per client of the venue."""

    direct: str  # the direct client's
    upstream: dict[str, Any]  # the gateway's: the whole minted answer, for its token file
    proxy: str  # ``mcp-proxy``'s
    hop: str  # the bare hop's client's, which the hop passes on as it came


def _venue_tokens(venue: str) -> VenueTokens:
    with httpx2.Client(timeout=10.0) as admin:
        minted = [admin.post(f"{venue}/_sandbox/tokens", json={}) for _ in range(4)]
    for answer in minted:
        answer.raise_for_status()
    direct, upstream, proxy, hop = (answer.json() for answer in minted)
    return VenueTokens(direct["access_token"], upstream, proxy["access_token"], hop["access_token"])


def _write_gateway_home(home: Path, venue: str, minted: dict[str, Any]) -> None:
    """``ORDERGATE_HOME`` for the gateway: the bench policy, the bench profile (its
    connection's) and a token file for the venue, as ``ordergate login`` would leave one."""
    from ordergate.client import TokenSet, write_token_file
    from ordergate.core import RealtimeClock, Secret
    from ordergate.ledger import open_ledger
    from ordergate.sandbox.oauth import SHARED_CLIENT_ID

    (home / "policy.toml").write_text(_POLICY, encoding="utf-8")
    (home / "profiles").mkdir()
    (home / "profiles" / f"{_PROFILE}.yaml").write_text(_PROFILE_YAML, encoding="utf-8")
    # The bench owns this scratch home: it applies its own policy, as its owner would.
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        ledger.controls.apply_policy(_POLICY, credential="bench", loosened=(), changed=())
    write_token_file(
        home / "robinhood-tokens.json",
        TokenSet(
            access_token=Secret(minted["access_token"]),
            refresh_token=Secret(minted["refresh_token"]),
            expires_at=None,
            token_endpoint=venue + "/oauth2/token/",
            client_id=SHARED_CLIENT_ID,
            resource=venue + "/mcp/trading",
            scope="internal",
            server=venue + "/mcp/trading",
        ),
    )


def serve_gateway(home: str, upstream: str, port: str) -> None:
    """The gateway process: ``run_gateway`` in owner mode in front of ``upstream``, with the
    token file and policy in ``home``, a stepped clock at the venue's instant, and the rate
    limits out of the way. Once serving, it mints an access token for a fresh connection
    into ``home``'s private token file and prints the ready line on stderr."""
    from datetime import datetime

    from ordergate._serving import bind_socket, run_fast
    from ordergate.core import SecurityClock, SteppedClock, create_private
    from ordergate.gateway.oauth import GatewayAuth
    from ordergate.gateway.server import (
        GatewayConfig,
        RateLimits,
        Serving,
        mint_owner_tokens,
        run_gateway,
    )
    from ordergate.runtime import Settings

    os.environ["ORDERGATE_HOME"] = home
    for key in (
        "ORDERGATE_DB_URL",
        "ORDERGATE_UPSTREAM_URL",
        "ORDERGATE_SANDBOX_START",
        "ORDERGATE_APPROVAL_WEBHOOK",
    ):
        os.environ.pop(key, None)
    settings = Settings.resolve(policy=Path(home) / "policy.toml", upstream=upstream)
    clock = SteppedClock(start=datetime.fromisoformat(VENUE_START))
    unlimited = 1_000_000_000
    config = GatewayConfig(
        port=int(port),
        limits=RateLimits(
            register=unlimited, authorize=unlimited, token=unlimited, mcp=unlimited, burst=unlimited
        ),
    )
    sock = bind_socket(config.host, config.port)
    auths: list[GatewayAuth] = []

    def ready(url: str, serving: Serving) -> None:
        pair = mint_owner_tokens(
            auths[0].store, client_name="ordergate-bench", resource=url + "/mcp", profile=_PROFILE
        )
        create_private(Path(home) / _TOKEN_FILE, pair.access_token.encode())
        print(_READY, file=sys.stderr, flush=True)

    try:
        run_fast(
            run_gateway(
                settings,
                config,
                sock,
                clock=clock,
                # One stepped timeline for both, so every run measures the same work.
                security_clock=SecurityClock(clock),
                on_ready=ready,
                auth_box=auths,
            )
        )
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


def _uv() -> str | None:
    """The ``uv`` to run ``mcp-proxy`` with: the one running us (``UV``), else on ``PATH``."""
    configured = os.environ.get("UV")
    if configured and Path(configured).is_file():
        return configured
    return shutil.which("uv")


@contextmanager
def _mcp_proxy(upstream: str, token: str, scratch: Path) -> Iterator[int | str]:
    """``mcp-proxy`` serving streamable HTTP on loopback in front of ``upstream``: its port,
    or why it cannot run here. Its output goes to a file (never a pipe nobody drains)."""
    uv = _uv()
    if uv is None:
        yield "uv is not installed (it runs mcp-proxy in an environment of its own)"
        return
    port = free_port()
    command = [
        uv, "tool", "run", MCP_PROXY, "--host", "127.0.0.1", "--port", str(port),
        "--log-level", "WARNING", "--",
        # The inner mcp-proxy is the same package, found on the PATH uv gives the outer one.
        "mcp-proxy", "--transport", "streamablehttp", "--log-level", "WARNING",
        "-H", "Authorization", f"Bearer {token}", upstream,
    ]  # fmt: skip
    log = scratch / "mcp-proxy.log"
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=output)
    try:
        reason = asyncio.run(_await_proxy(port, process))
        yield port if reason is None else f"{reason}: {_tail(log)}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


async def _await_proxy(port: int, process: subprocess.Popen[bytes]) -> str | None:
    """``None`` once ``mcp-proxy`` opens an MCP session, else why it did not in time."""
    target = Target("mcp_proxy_read", port, "/mcp", None)
    deadline = time.monotonic() + _PROXY_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return f"mcp-proxy exited with {process.returncode}"
        try:
            session = await asyncio.wait_for(open_session(target), _CALL_TIMEOUT_S)
        except (OSError, TimeoutError, HttpError, asyncio.IncompleteReadError, RuntimeError):
            await asyncio.sleep(0.2)
            continue
        await session.connection.close()
        return None
    return f"mcp-proxy did not answer within {_PROXY_START_S:.0f} s"


def _tail(log: Path) -> str:
    text = log.read_text(encoding="utf-8", errors="replace").strip()
    return " | ".join(text.splitlines()[-3:])[-400:] or "(no output)"
