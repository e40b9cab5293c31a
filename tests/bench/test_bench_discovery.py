"""``ordergate bench discovery``: the measured pieces, and a tiny run checked for shape."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal

import anyio
import httpx2
import pytest
from client_testkit import venue
from typer.testing import CliRunner
from venue_testkit import VenueClient

from ordergate.bench import BENCHES, _discovery
from ordergate.cli import app
from ordergate.discovery import ChangeKind, Compat, diff
from ordergate.inventory import load_inventory


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[VenueClient]:
    with venue() as client:
        yield client


def test_discovery_is_a_registered_bench() -> None:
    assert BENCHES["discovery"] is _discovery.run_discovery_bench


def test_the_drift_pair_is_two_100_tool_snapshots_where_every_shared_tool_changed() -> None:
    old, new = _discovery.synthetic_pair()
    assert old.tool_count == new.tool_count == 100
    assert frozenset(load_inventory()) <= old.names
    changes = diff(old, new)
    kinds = {kind: {c.tool for c in changes if c.kind is kind} for kind in ChangeKind}
    assert len(kinds[ChangeKind.REMOVED]) == 5
    assert len(kinds[ChangeKind.ADDED]) == 5
    assert kinds[ChangeKind.CHANGED] == old.names & new.names
    assert len(kinds[ChangeKind.CHANGED]) == 95
    assert {c.compat for c in changes} == set(Compat)


@pytest.mark.anyio
async def test_the_raw_drain_lists_what_the_venue_serves(sandbox: VenueClient) -> None:
    assert sandbox.token is not None
    with anyio.fail_after(30):
        tools = await _discovery.raw_drain(sandbox.mcp_url, sandbox.token)
    assert sorted(tool["name"] for tool in tools) == sorted(load_inventory())


def test_an_sse_answer_is_read_from_its_data_line_and_a_failure_raises() -> None:
    request = httpx2.Request("POST", "http://127.0.0.1/mcp")
    sse = httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        text='event: message\ndata: {"jsonrpc": "2.0", "id": 1, "result": {}}\n\n',
        request=request,
    )
    assert _discovery._message(sse) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    with pytest.raises(RuntimeError, match="401"):
        _discovery._message(httpx2.Response(401, request=request))


def test_bench_discovery_prints_each_case_beside_its_baseline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_discovery.SIZES, "quick", (2, 2, 5))
    result = CliRunner().invoke(app, ["bench", "discovery", "--quick"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line, parse_float=Decimal) for line in result.output.splitlines()]
    assert [line["case"] for line in lines] == [
        "tools_list_raw_drain",
        "snapshot_sandbox",
        "json_dumps_both",
        "drift_100",
    ]
    drain, snapshot, dumps, drift = lines
    assert {line["bench"] for line in lines} == {"discovery"}
    assert (drain["n"], snapshot["n"], dumps["n"], drift["n"]) == (4, 4, 10, 10)
    assert "ratio" not in drain and "ratio" not in dumps
    assert snapshot["baseline"] == "tools_list_raw_drain"
    assert drift["baseline"] == "json_dumps_both"
    assert snapshot["ratio"] > 0 and drift["ratio"] > 0
