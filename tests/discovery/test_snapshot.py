"""Snapshots: digests, order, deterministic JSON, the sanity checks, and reading one back."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from ordergate.discovery import Classifier, Snapshot, SnapshotError, ToolEntry
from ordergate.inventory import ToolClass

CAPTURED = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)

QUOTES: dict[str, Any] = {
    "name": "get_equity_quotes",
    "description": "Quotes for up to 20 symbols.",
    "inputSchema": {
        "type": "object",
        "properties": {"symbols": {"type": ["null", "array"], "items": {"type": "string"}}},
        "required": ["symbols"],
        "additionalProperties": False,
    },
    "outputSchema": {"type": "object", "properties": {"data": {"type": "object"}}},
    "annotations": {"readOnlyHint": True},
}
PLACE = {
    "name": "place_crypto_order",
    "description": "Place a crypto order.",
    "inputSchema": {
        "type": "object",
        "properties": {"rhs_account_number": {"type": "string"}, "symbol": {"type": "string"}},
        "additionalProperties": False,
    },
}


def listing(*descriptors: dict[str, Any]) -> Snapshot:
    return Snapshot.from_listing(
        descriptors,
        captured_at=CAPTURED,
        server_name="robinhood-trading",
        server_version="1.7.0",
        protocol_version="2025-11-25",
        source="http://127.0.0.1:1/mcp/trading",
    )


def refusal(*descriptors: dict[str, Any]) -> str:
    with pytest.raises(SnapshotError) as raised:
        listing(*descriptors)
    return raised.value.code


def test_the_schema_digest_is_sha256_of_the_canonical_json_of_both_schemas() -> None:
    entry = listing(QUOTES).tools[0]
    canonical = json.dumps(
        {"inputSchema": QUOTES["inputSchema"], "outputSchema": QUOTES["outputSchema"]},
        sort_keys=True,
        separators=(",", ":"),
    )
    assert entry.schema_sha256 == hashlib.sha256(canonical.encode()).hexdigest()
    assert entry.description_sha256 == hashlib.sha256(QUOTES["description"].encode()).hexdigest()


def test_the_schema_digest_ignores_key_order_but_not_content() -> None:
    reordered = {**QUOTES, "inputSchema": dict(reversed(list(QUOTES["inputSchema"].items())))}
    changed = {**QUOTES, "inputSchema": {**QUOTES["inputSchema"], "required": []}}
    digest = listing(QUOTES).tools[0].schema_sha256
    assert listing(reordered).tools[0].schema_sha256 == digest
    assert listing(changed).tools[0].schema_sha256 != digest


def test_a_listed_tool_without_a_description_has_an_empty_one_and_a_capture_none() -> None:
    bare = {"name": "get_x", "inputSchema": {"type": "object"}}
    live = listing(bare).tools[0]
    assert live.description == ""
    assert live.description_sha256 == hashlib.sha256(b"").hexdigest()
    captured = Snapshot.from_listing([bare], captured_at=None, missing_description=None)
    assert captured.tools[0].description is None
    assert captured.tools[0].description_sha256 is None


def test_tools_are_sorted_by_name_whatever_the_listing_order() -> None:
    snapshot = listing(PLACE, QUOTES)
    assert [entry.name for entry in snapshot.tools] == ["get_equity_quotes", "place_crypto_order"]
    assert snapshot.to_json() == listing(QUOTES, PLACE).to_json()


def test_each_tool_is_classed_by_its_name_with_overrides_pinned() -> None:
    snapshot = listing(QUOTES, PLACE)
    assert [entry.tool_class for entry in snapshot.tools] == [ToolClass.READ, ToolClass.MONEY]
    pinned = Snapshot.from_listing(
        [QUOTES], captured_at=None, classifier=Classifier({"get_equity_quotes": ToolClass.MONEY})
    )
    assert pinned.tools[0].tool_class is ToolClass.MONEY


def test_to_json_is_sorted_indented_and_ends_with_one_newline() -> None:
    text = listing(PLACE, QUOTES).to_json()
    document = json.loads(text)
    assert text == json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert document["format"] == "ordergate-tools-snapshot/1"
    assert document["server"] == {"name": "robinhood-trading", "version": "1.7.0"}
    assert document["protocol_version"] == "2025-11-25"
    assert document["captured_at"] == "2026-12-01T15:00:00Z"
    assert document["tool_count"] == 2
    assert set(document["tools"][0]) == {
        "name", "description", "class", "input_schema", "output_schema", "annotations",
        "schema_sha256", "description_sha256",
    }  # fmt: skip
    assert document["tools"][0]["class"] == "read"


def test_a_snapshot_read_back_equals_the_one_written() -> None:
    snapshot = listing(QUOTES, PLACE)
    again = Snapshot.from_json(snapshot.to_json())
    assert again == snapshot
    assert again.to_json() == snapshot.to_json()


def test_account_parameter_and_read_only_hint_come_from_schema_and_annotations() -> None:
    quotes, place = listing(QUOTES, PLACE).tools
    assert quotes.account_parameters == ()
    assert quotes.read_only_hint is True
    assert place.account_parameters == ("rhs_account_number",)
    assert place.read_only_hint is None
    odd = ToolEntry.create(
        name="get_y",
        description=None,
        tool_class=ToolClass.READ,
        input_schema={"type": "object", "properties": []},
        annotations={"readOnlyHint": "yes"},
    )
    assert odd.account_parameters == ()
    assert odd.read_only_hint is None


def test_get_finds_a_tool_by_name() -> None:
    snapshot = listing(QUOTES)
    assert snapshot.get("get_equity_quotes") is snapshot.tools[0]
    assert snapshot.get("nope") is None
    assert snapshot.names == frozenset({"get_equity_quotes"})


# -- sanity checks ---------------------------------------------------------------------------


@pytest.mark.req("discovery.snapshot.sanity")
def test_an_empty_listing_is_refused() -> None:
    assert refusal() == "no_tools"


@pytest.mark.req("discovery.snapshot.sanity")
def test_a_tool_with_an_empty_or_missing_name_is_refused() -> None:
    assert refusal({**QUOTES, "name": ""}) == "empty_name"
    assert refusal({**QUOTES, "name": "   "}) == "empty_name"
    assert refusal({k: v for k, v in QUOTES.items() if k != "name"}) == "empty_name"


@pytest.mark.req("discovery.snapshot.sanity")
def test_an_input_schema_that_is_not_an_object_schema_is_refused_naming_the_tool() -> None:
    with pytest.raises(SnapshotError) as raised:
        listing(QUOTES, {**PLACE, "inputSchema": {"type": "string"}})
    assert raised.value.code == "input_not_object"
    assert raised.value.tool == "place_crypto_order"
    assert refusal({**PLACE, "inputSchema": {"properties": {}}}) == "input_not_object"
    assert refusal({k: v for k, v in PLACE.items() if k != "inputSchema"}) == "input_not_object"
    assert refusal({**PLACE, "inputSchema": ["object"]}) == "input_not_object"


@pytest.mark.req("discovery.snapshot.sanity")
def test_a_tool_listed_twice_is_refused() -> None:
    assert refusal(QUOTES, PLACE, QUOTES) == "duplicate_name"


@pytest.mark.req("discovery.snapshot.sanity")
def test_descriptor_fields_of_the_wrong_type_are_refused() -> None:
    assert refusal({**QUOTES, "name": 7}) == "malformed"
    assert refusal({**QUOTES, "description": ["x"]}) == "malformed"
    assert refusal({**QUOTES, "outputSchema": "object"}) == "malformed"
    assert refusal({**QUOTES, "annotations": []}) == "malformed"


# -- reading a file back ---------------------------------------------------------------------


def edited(change: Any) -> str:
    document = json.loads(listing(QUOTES, PLACE).to_json())
    change(document)
    return json.dumps(document)


def read_refusal(text: str) -> str:
    with pytest.raises(SnapshotError) as raised:
        Snapshot.from_json(text)
    return raised.value.code


def test_text_that_is_not_a_snapshot_is_refused() -> None:
    assert read_refusal("not json") == "not_a_snapshot"
    assert read_refusal("[]") == "not_a_snapshot"
    assert read_refusal('{"tools": []}') == "not_a_snapshot"


def test_a_schema_edited_without_its_digest_is_caught() -> None:
    def edit(document: dict[str, Any]) -> None:
        document["tools"][0]["input_schema"]["required"] = []

    assert read_refusal(edited(edit)) == "digest_mismatch"


def test_a_description_edited_without_its_digest_is_caught() -> None:
    def edit(document: dict[str, Any]) -> None:
        document["tools"][1]["description"] = "Place any order at all."

    assert read_refusal(edited(edit)) == "digest_mismatch"


def test_a_tool_count_that_does_not_match_the_tools_is_caught() -> None:
    assert read_refusal(edited(lambda d: d.update(tool_count=3))) == "count_mismatch"


@pytest.mark.req("discovery.snapshot.sanity")
def test_a_snapshot_file_is_sanity_checked_again() -> None:
    def empty(document: dict[str, Any]) -> None:
        document.update(tools=[], tool_count=0)

    assert read_refusal(edited(empty)) == "no_tools"

    def not_object(document: dict[str, Any]) -> None:
        document["tools"][0]["input_schema"] = "object"

    assert read_refusal(edited(not_object)) == "input_not_object"


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.pop("server"),
        lambda d: d.update(tools={}),
        lambda d: d.update(source=None),
        lambda d: d.update(captured_at="yesterday"),
        lambda d: d["tools"].append("get_z"),
        lambda d: d["tools"][0].update(name=None),
        lambda d: d["tools"][0].update({"class": "teleport"}),
        lambda d: d["tools"][0].update(annotations="read-only"),
        lambda d: d["server"].update(version=170),
    ],
)
def test_fields_of_the_wrong_type_in_a_file_are_malformed(edit: Any) -> None:
    assert read_refusal(edited(edit)) == "malformed"


def test_a_file_without_a_capture_time_or_with_a_date_reads() -> None:
    def no_time(document: dict[str, Any]) -> None:
        document["captured_at"] = None

    assert Snapshot.from_json(edited(no_time)).captured_at is None

    def date_only(document: dict[str, Any]) -> None:
        document["captured_at"] = "2026-09-21"

    assert Snapshot.from_json(edited(date_only)).captured_at == datetime(2026, 9, 21, tzinfo=UTC)
