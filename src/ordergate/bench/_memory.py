"""``ordergate bench memory``: what one gateway process holds as an account's orders pile up.

The servers are ``bench gateway``'s: the sandbox venue in its own process (stepped clock at
Tuesday 2026-12-01 10:00 New York, seed 7) and the gateway in another, in owner mode, paper,
approval ``never``, limits out of the way (``_gateway.serve_gateway``). Through one MCP
session the load places SPY orders (``bench gateway``'s: a limit buy that rests on the paper
venue's engine, cancelled right after, so one is open at a time), each followed by one quote
read (issue 31's workload), every answer checked (the order placed on paper, its cancel
accepted). The
gateway's resident set (``VmRSS`` of ``/proc/PID/status``) is read after the first
checkpoint's orders and after the last's: 1,000 and 10,000 (``--quick``: 200 and 1,000).

One JSON line, ``gateway_rss``: the orders' p50/p99 over the whole run, ``rss_kb_first`` and
``rss_kb_last`` (at the two checkpoints, named by ``orders_first`` and ``orders_last``) and
``rss_mb_per_1000`` (the growth between them per 1,000 orders). Goal (issue 31): at most 0.2
MB per 1,000 orders between the 1,000th and the 10,000th.

The gateway's clock stands at the venue's instant (as in ``bench gateway``), so every order
stays inside the record's windows (the minute's and the day's counts): the orders' times grow
with them, and measure that, not the history behind the windows (``bench history`` does).
Linux only (``/proc``). Progress goes to stderr.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from ordergate.bench._gateway import (
    _READY,
    _TOKEN_FILE,
    GatewaySummary,
    Session,
    Target,
    _sent,
    _venue_tokens,
    _write_gateway_home,
    checked,
    open_session,
    placed_and_cancelled,
    resting_order,
    tool_call,
)
from ordergate.bench._process import free_port, server_process, venue_process
from ordergate.bench._stats import Summary, summarise

__all__ = ["SIZES", "Sizes", "resident_kib", "run_memory_bench"]

BENCH = "memory"
_START_S = 120.0


@dataclass(frozen=True, slots=True)
class Sizes:
    first: int  # orders before the first reading
    last: int  # orders before the last reading (in all)


SIZES = {"quick": Sizes(first=200, last=1_000), "full": Sizes(first=1_000, last=10_000)}


def resident_kib(pid: int) -> int:
    """``pid``'s resident set in KiB (``VmRSS``); ``RuntimeError`` where ``/proc`` has none."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError as error:
        raise RuntimeError(f"bench memory: no /proc/{pid}/status ({error.strerror})") from None
    raise RuntimeError(f"bench memory: /proc/{pid}/status names no VmRSS")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_memory_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    sizes = SIZES["quick" if quick else "full"]
    venue_port, gateway_port = free_port(), free_port()
    with (
        tempfile.TemporaryDirectory(prefix="ordergate-bench-") as scratch,
        venue_process(venue_port),
    ):
        venue = f"http://127.0.0.1:{venue_port}"
        home = Path(scratch)
        _write_gateway_home(home, venue, _venue_tokens(venue).upstream)
        command = [
            sys.executable, "-c",
            "import sys; from ordergate.bench._gateway import serve_gateway; "
            "serve_gateway(*sys.argv[1:])",
            str(home), f"{venue}/mcp/trading", str(gateway_port),
        ]  # fmt: skip
        with server_process(command, ready_marker=_READY, timeout_s=_START_S) as gateway:
            token = (home / _TOKEN_FILE).read_text(encoding="utf-8")
            target = Target("gateway_order", gateway_port, "/mcp", token)
            emit(asyncio.run(_measure(target, gateway.pid, sizes)))


async def _measure(target: Target, pid: int, sizes: Sizes) -> Summary:
    session = await open_session(target)
    try:
        accounts = (await session.call(tool_call("get_accounts", {})))["structuredContent"]
        account = next(a for a in accounts["data"]["accounts"] if a["agentic_allowed"])
        number = account["account_number"]
        order = await resting_order(session, number)
        quote = session.request(tool_call("get_equity_quotes", {"symbols": ["SPY"]}))
        samples: list[int] = []
        await _orders(session, order, number, quote, sizes.first, samples)
        first = resident_kib(pid)
        _say(f"bench memory: {sizes.first} orders, gateway RSS {first} KiB")
        await _orders(session, order, number, quote, sizes.last - sizes.first, samples)
        last = resident_kib(pid)
        _say(f"bench memory: {sizes.last} orders, gateway RSS {last} KiB")
    finally:
        await session.connection.close()
    summary = summarise(BENCH, "gateway_rss", samples)
    per_1000 = Decimal(last - first) * 1000 / 1024 / (sizes.last - sizes.first)
    return GatewaySummary(
        summary.bench, summary.case, summary.n, summary.p50_us, summary.p99_us,
        summary.ops_per_s, None, None,
        (
            ("orders_first", sizes.first), ("rss_kb_first", first),
            ("orders_last", sizes.last), ("rss_kb_last", last),
            ("rss_mb_per_1000", per_1000.quantize(Decimal("0.01"), ROUND_HALF_EVEN)),
        ),
    )  # fmt: skip


async def _orders(
    session: Session,
    order: bytes,
    account: str,
    quote: bytes,
    count: int,
    samples: list[int],
) -> None:
    """``count`` orders, each placed and cancelled (``placed_and_cancelled``) and followed by
    a quote read; each order's time is added to ``samples``. Raises on an order not placed
    on paper or a cancel not accepted."""
    await session.connection.reopen()
    for _ in range(count):
        placed, _cancelled = await placed_and_cancelled(session, order, account, 1)
        samples += placed
        checked("quote", await _sent(session, quote))
        if len(samples) % 1000 == 0:
            _say(f"bench memory: {len(samples)} orders")
