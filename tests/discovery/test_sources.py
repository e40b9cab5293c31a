"""Loading one side of a drift: the kind of a file decided explicitly, and a live venue."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from client_testkit import venue, write_minted
from reference import CONTRACT, INVENTORY
from venue_testkit import START, VenueClient

from ordergate.client import LoginRequired, TokenSet, read_token_file, write_token_file
from ordergate.core import SteppedClock
from ordergate.discovery import (
    Classifier,
    Snapshot,
    SnapshotError,
    SourceError,
    SourceKind,
    load_file,
    load_surface,
)
from ordergate.discovery._sources import detect_kind, public_url, refuse_token_values
from ordergate.inventory import ToolClass, load_inventory

BOUND_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[VenueClient]:
    with venue() as client:
        yield client


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document))
    return path


def source_refusal(path: Path) -> str:
    with pytest.raises(SourceError) as raised:
        load_file(path)
    return raised.value.code


# -- kinds -----------------------------------------------------------------------------------


def test_each_reference_shape_is_recognised_by_its_structure() -> None:
    assert detect_kind(json.loads(CONTRACT.read_text())) is SourceKind.CONTRACT
    assert detect_kind(json.loads(INVENTORY.read_text())) is SourceKind.INVENTORY
    snapshot = Snapshot.from_json(load_file(CONTRACT).to_json())
    assert detect_kind(json.loads(snapshot.to_json())) is SourceKind.SNAPSHOT


@pytest.mark.parametrize(
    "document",
    [
        [],
        {"name": "get_x"},
        {"tools": "all of them"},
        {"tools": {"get_x": {"outputSchema": {}}}},
        {"tools": [{"name": "get_x"}]},
        {"tools": [{"inputSchema": {"type": "object"}}]},
        {"format": "ordergate-tools-snapshot/2", "tools": 3},
    ],
)
def test_json_of_no_known_shape_is_refused_as_unrecognised(tmp_path: Path, document: Any) -> None:
    assert source_refusal(write(tmp_path / "x.json", document)) == "unrecognised"


def test_a_missing_file_or_one_that_is_not_json_is_unreadable(tmp_path: Path) -> None:
    assert source_refusal(tmp_path / "absent.json") == "unreadable"
    (tmp_path / "notes.txt").write_text("tools: many")
    assert source_refusal(tmp_path / "notes.txt") == "unreadable"
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    assert source_refusal(tmp_path / "binary.json") == "unreadable"


# -- capture files ---------------------------------------------------------------------------


def test_a_contract_file_loads_with_outputs_annotations_and_unknown_descriptions() -> None:
    snapshot = load_file(CONTRACT)
    assert snapshot.tool_count == 19
    assert snapshot.server_version == "1.7.0"
    assert snapshot.server_name is None
    assert snapshot.captured_at == datetime(2026, 10, 8, tzinfo=UTC)
    assert snapshot.source == "contract contract-1.7.0.json"
    review = snapshot.get("review_equity_order")
    assert review is not None
    assert review.tool_class is ToolClass.SIMULATE
    assert review.output_schema is not None
    assert review.description is None and review.description_sha256 is None
    quotes = snapshot.get("get_equity_quotes")
    assert quotes is not None and quotes.read_only_hint is True


def test_an_inventory_file_loads_its_81_tools_with_input_schemas_only() -> None:
    snapshot = load_file(INVENTORY)
    assert snapshot.tool_count == 81
    assert snapshot.captured_at == datetime(2026, 9, 21, tzinfo=UTC)
    assert all(entry.output_schema is None for entry in snapshot.tools)
    captured = {t["name"]: t["class"] for t in json.loads(INVENTORY.read_text())["tools"]}
    assert {entry.name: entry.tool_class.value for entry in snapshot.tools} == captured


def test_a_capture_file_is_classed_with_the_given_classifier() -> None:
    pinned = Classifier({"search": ToolClass.WRITE_CONFIRM})
    entry = load_file(CONTRACT, classifier=pinned).get("search")
    assert entry is not None and entry.tool_class is ToolClass.WRITE_CONFIRM


@pytest.mark.req("discovery.snapshot.sanity")
def test_a_capture_file_failing_a_sanity_check_is_refused(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.json", {"tools": {}})
    with pytest.raises(SnapshotError) as raised:
        load_file(empty)
    assert raised.value.code == "no_tools"
    flat = write(tmp_path / "flat.json", {"tools": [{"name": "get_x", "inputSchema": {}}]})
    with pytest.raises(SnapshotError) as raised:
        load_file(flat)
    assert raised.value.code == "input_not_object"


def test_bad_metadata_in_a_capture_file_is_malformed(tmp_path: Path) -> None:
    tools = {"get_x": {"inputSchema": {"type": "object"}}}
    dated = write(tmp_path / "dated.json", {"reviewed_at": "autumn", "tools": tools})
    assert source_refusal(dated) == "malformed"
    versioned = write(tmp_path / "versioned.json", {"server_version": 1.7, "tools": tools})
    assert source_refusal(versioned) == "malformed"
    timed = write(tmp_path / "timed.json", {"captured_at": "2026-10-08T12:00:00Z", "tools": tools})
    assert load_file(timed).captured_at == datetime(2026, 10, 8, 12, tzinfo=UTC)


def test_a_snapshot_file_loads_as_written(tmp_path: Path) -> None:
    snapshot = load_file(CONTRACT)
    path = tmp_path / "snap.json"
    path.write_text(snapshot.to_json())
    assert load_file(path) == snapshot


@pytest.mark.anyio
async def test_load_surface_reads_a_path_given_as_text() -> None:
    assert (await load_surface(str(INVENTORY))).tool_count == 81


# -- a live venue ----------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.req("discovery.snapshot.no-token")
async def test_a_live_snapshot_lists_every_sandbox_tool_with_digests_and_no_token(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    token_file = tmp_path / "tokens.json"
    write_minted(sandbox, token_file, expires_at=None)
    clock = SteppedClock(start=START)
    with anyio.fail_after(BOUND_S):
        snapshot = await load_surface(sandbox.mcp_url, token_file=token_file, clock=clock)
    assert snapshot.tool_count == 82
    assert snapshot.names == frozenset(load_inventory())
    assert (snapshot.server_name, snapshot.server_version) == ("robinhood-trading", "1.7.0")
    assert snapshot.protocol_version == "2025-11-25"
    assert snapshot.captured_at == START
    assert snapshot.source == sandbox.mcp_url
    for entry in snapshot.tools:
        assert len(entry.schema_sha256) == 64
        assert entry.description and entry.description_sha256 is not None
    tokens = read_token_file(token_file)
    text = snapshot.to_json()
    assert tokens.access_token.reveal() not in text
    assert tokens.refresh_token is not None and tokens.refresh_token.reveal() not in text


@pytest.mark.anyio
@pytest.mark.req("discovery.snapshot.no-token")
async def test_a_live_snapshot_with_an_access_token_only_is_checked_for_that_token(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    minted = write_minted(sandbox, tmp_path / "minted.json", expires_at=None)
    token_file = tmp_path / "tokens.json"
    write_token_file(token_file, TokenSet(access_token=minted.access_token, server=sandbox.mcp_url))
    with anyio.fail_after(BOUND_S):
        snapshot = await load_surface(sandbox.mcp_url, token_file=token_file)
    assert minted.access_token.reveal() not in snapshot.to_json()
    assert snapshot.tool_count == 82


@pytest.mark.anyio
async def test_a_live_side_without_a_login_says_to_log_in(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    with pytest.raises(LoginRequired), anyio.fail_after(BOUND_S):
        await load_surface(sandbox.mcp_url, token_file=tmp_path / "absent.json")


@pytest.mark.req("discovery.snapshot.no-token")
def test_a_listing_that_carries_a_stored_token_is_refused_without_showing_it() -> None:
    secret = "tok_0123456789abcdef"
    echoed = Snapshot.from_listing(
        [{"name": "get_x", "description": f"Bearer {secret}", "inputSchema": {"type": "object"}}],
        captured_at=None,
    )
    with pytest.raises(SnapshotError) as raised:
        refuse_token_values(echoed, {secret})
    assert raised.value.code == "token_in_listing"
    assert secret not in str(raised.value)
    quoted = 'tok"quoted\\value'
    escaped = Snapshot.from_listing(
        [{"name": "get_x", "description": quoted, "inputSchema": {"type": "object"}}],
        captured_at=None,
    )
    with pytest.raises(SnapshotError):
        refuse_token_values(escaped, {quoted})
    refuse_token_values(escaped, {"tok_unrelated_value"})


def test_a_url_written_into_a_snapshot_loses_credentials_query_and_fragment() -> None:
    assert (
        public_url("https://user:pw@agent.example.com:8443/mcp/trading?token=abc#frag")
        == "https://agent.example.com:8443/mcp/trading"
    )
    assert public_url("https://agent.robinhood.com/mcp/trading") == (
        "https://agent.robinhood.com/mcp/trading"
    )
