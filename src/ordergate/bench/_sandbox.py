"""``ordergate bench sandbox``: a sequential ``get_equity_quotes`` over loopback HTTP.

Both servers run as separate processes on loopback: the venue (``ordergate sandbox serve``)
and, as the baseline measured in the same run, a bare Starlette JSON endpoint. Rounds of the
two alternate so machine noise falls on both; the ratio of medians is the figure that counts.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx2

from ordergate.bench._process import free_port, server_process, venue_process
from ordergate.bench._stats import Summary, summarise

__all__ = ["run_sandbox_bench"]

_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _timed(
    client: httpx2.Client, url: str, body: bytes, headers: dict[str, str], n: int
) -> list[int]:
    samples: list[int] = []
    for _ in range(n):
        started = time.perf_counter_ns()
        response = client.post(url, content=body, headers=headers)
        elapsed = time.perf_counter_ns() - started
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        samples.append(elapsed)
    return samples


def _session(client: httpx2.Client, base: str) -> dict[str, str]:
    token = client.post(f"{base}/_sandbox/tokens", json={}).json()["access_token"]
    headers = {**_HEADERS, "authorization": f"Bearer {token}"}
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "ordergate-bench", "version": "0"},
        },
    }
    response = client.post(f"{base}/mcp/trading", json=init, headers=headers)
    response.raise_for_status()
    headers["mcp-session-id"] = response.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-11-25"
    return headers


def _call(tool: str, arguments: dict[str, Any]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return json.dumps(message).encode()


def run_sandbox_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    rounds, per_round, warmup = (3, 300, 100) if quick else (6, 1500, 300)
    bare_port, venue_port = free_port(), free_port()
    python = sys.executable
    bare_cmd = [python, "-m", "ordergate.bench._bare", str(bare_port)]
    with (
        server_process(bare_cmd, ready_marker="Uvicorn running"),
        venue_process(venue_port),
        httpx2.Client(timeout=10.0) as client,
    ):
        venue = f"http://127.0.0.1:{venue_port}"
        headers = _session(client, venue)
        cases: dict[str, tuple[str, bytes, dict[str, str]]] = {
            "bare_starlette_json": (
                f"http://127.0.0.1:{bare_port}/bare", _call("get_equity_quotes", {}), _HEADERS
            ),
            "get_equity_quotes": (
                f"{venue}/mcp/trading", _call("get_equity_quotes", {"symbols": ["AAPL"]}), headers
            ),
            "get_equity_quotes_20": (
                f"{venue}/mcp/trading",
                _call("get_equity_quotes", {"symbols": _twenty_symbols()}),
                headers,
            ),
        }  # fmt: skip
        samples: dict[str, list[int]] = {case: [] for case in cases}
        for case, (url, body, case_headers) in cases.items():
            _check(client.post(url, content=body, headers=case_headers), case)
            _timed(client, url, body, case_headers, warmup)
        for _ in range(rounds):
            for case, (url, body, case_headers) in cases.items():
                samples[case] += _timed(client, url, body, case_headers, per_round)
    baseline = summarise("sandbox", "bare_starlette_json", samples["bare_starlette_json"])
    emit(baseline)
    for case in ("get_equity_quotes", "get_equity_quotes_20"):
        emit(summarise("sandbox", case, samples[case]).compared_with(baseline))


def _check(response: httpx2.Response, case: str) -> None:
    body = response.json()
    result = body.get("result", {})
    if response.status_code != 200 or result.get("isError"):
        raise RuntimeError(f"{case}: the measured call failed: {str(body)[:300]}")


_TWENTY = (
    "AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "JPM", "V", "MA",
    "UNH", "HD", "PG", "KO", "PEP", "COST", "WMT", "DIS", "NFLX", "AMD",
)  # fmt: skip


def _twenty_symbols() -> list[str]:
    return list(_TWENTY)
