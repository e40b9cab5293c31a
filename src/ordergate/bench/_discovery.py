"""``ordergate bench discovery``: a snapshot of the whole venue surface, and drift of 100 tools.

The venue runs as its own process (``ordergate sandbox serve``). Cases, each beside a baseline
measured in the same run, in alternating rounds:

- ``tools_list_raw_drain`` (baseline): on a fresh ``httpx2.AsyncClient``, ``initialize``,
  every ``tools/list`` page by raw JSON-RPC POST, and the session's DELETE. The wire's floor.
- ``snapshot_sandbox``: what ``ordergate tools snapshot`` does, file write aside:
  ``load_live`` (``connect`` with the token file and the SDK handshake, the drain, classes,
  digests, sanity checks, the token check) and ``to_json``. Acceptance: under 1 s.
- ``json_dumps_both`` (baseline): ``json.dumps`` of both 100-tool snapshot documents (built
  beforehand): one pass over every node of both, the least any comparison must read.
- ``drift_100``: ``diff`` of the two snapshots. They are built so the digest shortcut never
  helps: every shared tool changed (a description, an optional input, a narrowed type or an
  output property), five tools removed and five added. Acceptance: under 100 ms.
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
    from ordergate.discovery import Snapshot

__all__ = ["SIZES", "raw_drain", "run_discovery_bench", "synthetic_pair"]

_ACCEPT = "application/json, text/event-stream"
_PROTOCOL = "2025-11-25"

# (rounds, snapshots per case per round, drifts per case per round)
SIZES = {"quick": (3, 10, 100), "full": (5, 40, 500)}


def run_discovery_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    sizes = SIZES["quick" if quick else "full"]
    port = free_port()
    with (
        venue_process(port),
        tempfile.TemporaryDirectory() as home,
    ):
        # Everything, reporting included, inside the run: on CPython 3.11 the frame calling
        # anyio.run can lose coverage tracing after a cancelled task group (cpython#106749).
        anyio.run(_run, f"http://127.0.0.1:{port}", Path(home), sizes, emit)


async def _run(
    base: str, home: Path, sizes: tuple[int, int, int], emit: Callable[[Summary], None]
) -> None:
    from ordergate.discovery import diff, load_live

    rounds, snapshots, drifts = sizes
    url = f"{base}/mcp/trading"
    token_file = home / "tokens.json"
    token = await _sign_in(base, url, token_file)

    async def drain() -> None:
        await raw_drain(url, token)

    async def snapshot() -> None:
        (await load_live(url, token_file=token_file)).to_json()

    old, new = synthetic_pair()
    documents = (old.as_json(), new.as_json())

    def dumps() -> None:
        for document in documents:
            json.dumps(document)

    def drift() -> None:
        diff(old, new)

    samples: dict[str, list[int]] = {
        "tools_list_raw_drain": [],
        "snapshot_sandbox": [],
        "json_dumps_both": [],
        "drift_100": [],
    }
    # Warm-up: imports, the venue's first listing, the allocator.
    await _timed_async(drain, 2)
    await _timed_async(snapshot, 2)
    _timed(dumps, 10)
    _timed(drift, 10)
    for _ in range(rounds):
        samples["tools_list_raw_drain"] += await _timed_async(drain, snapshots)
        samples["snapshot_sandbox"] += await _timed_async(snapshot, snapshots)
        samples["json_dumps_both"] += _timed(dumps, drifts)
        samples["drift_100"] += _timed(drift, drifts)
    for baseline_case, case in (
        ("tools_list_raw_drain", "snapshot_sandbox"),
        ("json_dumps_both", "drift_100"),
    ):
        baseline = summarise("discovery", baseline_case, samples[baseline_case])
        emit(baseline)
        emit(summarise("discovery", case, samples[case]).compared_with(baseline))


async def _sign_in(base: str, url: str, token_file: Path) -> str:
    from ordergate.client import TokenSet, write_token_file
    from ordergate.core import RealtimeClock, Secret

    async with httpx2.AsyncClient(timeout=10.0) as admin:
        minted = (await admin.post(f"{base}/_sandbox/tokens", json={})).json()
    token: str = minted["access_token"]
    write_token_file(
        token_file,
        TokenSet(
            access_token=Secret(token),
            refresh_token=Secret(minted["refresh_token"]),
            expires_at=RealtimeClock().now() + timedelta(seconds=minted["expires_in"]),
            resource=url,
            server=url,
        ),
    )
    return token


def _message(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC message of a plain JSON or one-shot SSE answer."""
    if response.status_code != 200:
        raise RuntimeError(f"the venue answered {response.status_code}")
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    message: dict[str, Any] = json.loads(text)
    return message


async def raw_drain(url: str, token: str) -> list[dict[str, Any]]:
    """Every tool ``url`` lists, by bare JSON-RPC POSTs on a fresh client (the baseline)."""
    headers = {
        "accept": _ACCEPT,
        "content-type": "application/json",
        "authorization": f"Bearer {token}",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": _PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "ordergate-bench-raw", "version": "0"},
        },
    }
    tools: list[dict[str, Any]] = []
    async with httpx2.AsyncClient(timeout=10.0) as http:
        answer = await http.post(url, json=init, headers=headers)
        _message(answer)
        headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = _PROTOCOL
        params: dict[str, Any] = {}
        while True:
            request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
            result = _message(await http.post(url, json=request, headers=headers))["result"]
            tools += result["tools"]
            cursor = result.get("nextCursor")
            if not cursor:
                break
            params = {"cursor": cursor}
        await http.delete(url, headers=headers)
    return tools


def synthetic_pair() -> tuple[Snapshot, Snapshot]:
    """Two 100-tool snapshots: the captured inventory plus synthetic tools, and a later
    surface where every shared tool changed, five tools went and five came."""
    from ordergate.discovery import Snapshot
    from ordergate.inventory import load_inventory

    captured = [
        {
            "name": spec.name,
            "description": f"The captured tool {spec.name}.",
            "inputSchema": spec.input_schema,
            "outputSchema": spec.output_schema,
            "annotations": spec.annotations,
        }
        for spec in load_inventory().values()
    ]
    old_tools = captured + [_synthetic(i) for i in range(100 - len(captured))]
    kept = old_tools[:95]
    new_tools = [_later(tool, i) for i, tool in enumerate(kept)]
    new_tools += [_synthetic(i) for i in range(100, 105)]
    old = Snapshot.from_listing(old_tools, captured_at=None, source="bench old")
    new = Snapshot.from_listing(new_tools, captured_at=None, source="bench new")
    return old, new


def _synthetic(index: int) -> dict[str, Any]:
    leg = {
        "type": "object",
        "properties": {
            "instrument_id": {"type": "string"},
            "side": {"type": "string", "enum": ["buy", "sell"]},
            "ratio": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        "required": ["instrument_id", "side"],
        "additionalProperties": False,
    }
    return {
        "name": f"get_synthetic_{index:03d}",
        "description": f"Synthetic tool {index}.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "account_number": {"type": "string"},
                "symbols": {"type": ["null", "array"], "items": {"type": "string"}},
                "legs": {"type": ["null", "array"], "items": leg},
            },
            "required": ["account_number"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "data": {
                    "type": "object",
                    "properties": {"results": {"type": "array", "items": leg}},
                },
                "guide": {"type": "string"},
            },
        },
        "annotations": {"readOnlyHint": True},
    }


def _later(tool: dict[str, Any], index: int) -> dict[str, Any]:
    later: dict[str, Any] = json.loads(json.dumps(tool))
    later["description"] = f"{tool['description']} Revised."
    properties = later["inputSchema"].setdefault("properties", {})
    properties["client_tag"] = {"type": ["null", "string"]}
    if index % 3 == 0 and properties:
        # Narrow the first array-typed input, when there is one (breaking).
        for schema in properties.values():
            if schema.get("type") == ["null", "array"]:
                schema["type"] = "array"
                break
    if later.get("outputSchema") is not None:
        later["outputSchema"].setdefault("properties", {})["served_at"] = {"type": "string"}
    return later


async def _timed_async(call: Callable[[], Awaitable[None]], n: int) -> list[int]:
    samples: list[int] = []
    for _ in range(n):
        started = time.perf_counter_ns()
        await call()
        samples.append(time.perf_counter_ns() - started)
    return samples


def _timed(call: Callable[[], None], n: int) -> list[int]:
    samples: list[int] = []
    for _ in range(n):
        started = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - started)
    return samples
