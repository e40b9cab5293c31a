"""Drift between two snapshots: each compatibility rule pinned by a hand-built schema pair."""

from __future__ import annotations

from typing import Any

import pytest
from reference import CONTRACT, INVENTORY

from ordergate.discovery import (
    Change,
    ChangeKind,
    Classifier,
    Compat,
    Snapshot,
    ToolEntry,
    diff,
    load_file,
)
from ordergate.discovery._drift import MAX_DEPTH
from ordergate.inventory import ToolClass

pytestmark = pytest.mark.req("discovery.drift.classes")

OBJECT = {"type": "object", "properties": {}, "additionalProperties": False}


def entry(
    name: str = "get_thing",
    *,
    inputs: dict[str, Any] | None = None,
    required: list[str] | None = None,
    output: dict[str, Any] | None = None,
    description: str | None = "Reads a thing.",
    annotations: dict[str, Any] | None = None,
    tool_class: ToolClass | None = None,
    input_schema: dict[str, Any] | None = None,
) -> ToolEntry:
    schema = input_schema or {
        "type": "object",
        "properties": inputs or {},
        "required": required or [],
        "additionalProperties": False,
    }
    return ToolEntry.create(
        name=name,
        description=description,
        tool_class=tool_class or Classifier()(name),
        input_schema=schema,
        output_schema=output,
        annotations=annotations,
    )


def snapshot(*entries: ToolEntry) -> Snapshot:
    return Snapshot(tools=entries, captured_at=None)


def changes(old: ToolEntry, new: ToolEntry) -> list[tuple[Compat, str, str]]:
    found = diff(snapshot(old), snapshot(new))
    assert all(change.kind is ChangeKind.CHANGED for change in found)
    return [(change.compat, change.path, change.detail) for change in found]


def only(old: ToolEntry, new: ToolEntry) -> tuple[Compat, str, str]:
    found = changes(old, new)
    assert len(found) == 1, found
    return found[0]


def out(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or []}


STRING = {"type": "string"}


# -- tools -----------------------------------------------------------------------------------


def test_a_removed_tool_is_breaking_and_keeps_its_old_class() -> None:
    found = diff(snapshot(entry("place_thing"), entry()), snapshot(entry()))
    assert found == [
        Change(
            "place_thing", ChangeKind.REMOVED, Compat.BREAKING, "tool removed", "", ToolClass.MONEY
        )
    ]


def test_an_added_tool_is_additive_with_its_class() -> None:
    found = diff(snapshot(entry()), snapshot(entry(), entry("cancel_thing")))
    assert found == [
        Change(
            "cancel_thing", ChangeKind.ADDED, Compat.ADDITIVE, "tool added", "", ToolClass.CANCEL
        )
    ]


def test_identical_snapshots_have_no_drift() -> None:
    tools = [entry(), entry("place_thing", inputs={"symbol": STRING}, output=out({"id": STRING}))]
    assert diff(snapshot(*tools), snapshot(*tools)) == []


def test_a_class_change_is_breaking_even_with_identical_schemas() -> None:
    old = entry("frob_thing", tool_class=ToolClass.READ)
    new = entry("frob_thing", tool_class=ToolClass.MONEY)
    assert only(old, new) == (Compat.BREAKING, "class", "class changed: read → money")


def test_changes_come_sorted_by_tool_name() -> None:
    old = snapshot(entry("get_b"), entry("get_a"), entry("get_c"))
    new = snapshot(entry("get_d"), entry("get_a", description="New words."))
    assert [change.tool for change in diff(old, new)] == ["get_a", "get_b", "get_c", "get_d"]


# -- descriptions ----------------------------------------------------------------------------


def test_a_description_change_alone_is_cosmetic() -> None:
    assert only(entry(), entry(description="Reads a thing, now in more words.")) == (
        Compat.COSMETIC,
        "description",
        "description changed",
    )


def test_a_description_the_source_did_not_record_is_not_a_change() -> None:
    assert changes(entry(description=None), entry(description="Reads a thing.")) == []
    assert changes(entry(), entry(description=None)) == []


def test_a_property_description_change_is_cosmetic() -> None:
    old = entry(inputs={"symbol": {"type": "string", "description": "A ticker."}})
    new = entry(inputs={"symbol": {"type": "string", "description": "A stock ticker."}})
    assert only(old, new) == (Compat.COSMETIC, "input.symbol", "description changed")


# -- inputs ----------------------------------------------------------------------------------


def test_a_required_input_added_is_breaking() -> None:
    old = entry(inputs={"symbol": STRING}, required=["symbol"])
    new = entry(inputs={"symbol": STRING, "venue": STRING}, required=["symbol", "venue"])
    assert only(old, new) == (Compat.BREAKING, "input.venue", "required input added")


def test_an_optional_input_added_is_additive() -> None:
    old = entry(inputs={"symbol": STRING})
    new = entry(inputs={"symbol": STRING, "venue": STRING})
    assert only(old, new) == (Compat.ADDITIVE, "input.venue", "optional input added")


def test_an_input_property_removed_is_breaking() -> None:
    old = entry(inputs={"symbol": STRING, "venue": STRING})
    new = entry(inputs={"symbol": STRING})
    assert only(old, new) == (Compat.BREAKING, "input.venue", "input property removed")


def test_an_optional_input_made_required_is_breaking_and_the_reverse_additive() -> None:
    optional = entry(inputs={"symbol": STRING})
    required = entry(inputs={"symbol": STRING}, required=["symbol"])
    assert only(optional, required) == (Compat.BREAKING, "input.symbol", "input became required")
    assert only(required, optional) == (Compat.ADDITIVE, "input.symbol", "input no longer required")


def test_a_nullable_array_input_narrowed_to_array_is_breaking() -> None:
    old = entry(inputs={"symbols": {"type": ["null", "array"], "items": STRING}})
    new = entry(inputs={"symbols": {"type": "array", "items": STRING}})
    assert only(old, new) == (
        Compat.BREAKING,
        "input.symbols",
        'type narrowed: ["null","array"] → "array"',
    )


def test_a_string_or_number_input_narrowed_to_string_is_breaking() -> None:
    old = entry(inputs={"quantity": {"type": ["string", "number"]}})
    new = entry(inputs={"quantity": {"type": "string"}})
    compat, path, detail = only(old, new)
    assert (compat, path) == (Compat.BREAKING, "input.quantity")
    assert detail.startswith("type narrowed")


def test_an_input_type_widened_is_additive() -> None:
    old = entry(inputs={"quantity": {"type": "integer"}, "note": STRING})
    new = entry(inputs={"quantity": {"type": "number"}, "note": {"type": ["null", "string"]}})
    found = changes(old, new)
    assert [(c, p) for c, p, _ in found] == [
        (Compat.ADDITIVE, "input.note"),
        (Compat.ADDITIVE, "input.quantity"),
    ]
    assert all(detail.startswith("type widened") for _, _, detail in found)


def test_an_input_type_changed_to_an_unrelated_type_is_breaking() -> None:
    old = entry(inputs={"quantity": {"type": "string"}})
    new = entry(inputs={"quantity": {"type": "number"}})
    assert only(old, new) == (
        Compat.BREAKING,
        "input.quantity",
        'type changed: "string" → "number"',
    )


def test_an_input_that_named_no_type_and_now_names_one_is_narrowed() -> None:
    old = entry(inputs={"value": {}})
    new = entry(inputs={"value": STRING})
    assert only(old, new)[0] is Compat.BREAKING
    assert only(new, old)[0] is Compat.ADDITIVE


def test_a_type_spelled_as_a_list_of_one_is_the_same_type() -> None:
    assert changes(entry(inputs={"s": STRING}), entry(inputs={"s": {"type": ["string"]}})) == []


def test_enum_values_removed_from_an_input_are_breaking_and_added_ones_additive() -> None:
    wide = entry(inputs={"side": {"type": "string", "enum": ["buy", "sell", "short"]}})
    narrow = entry(inputs={"side": {"type": "string", "enum": ["buy", "sell"]}})
    assert only(wide, narrow) == (
        Compat.BREAKING,
        "input.side",
        'enum values narrowed: removed "short"',
    )
    assert only(narrow, wide) == (
        Compat.ADDITIVE,
        "input.side",
        'enum values widened: added "short"',
    )


def test_an_enum_introduced_on_an_input_is_breaking_and_dropped_additive() -> None:
    free = entry(inputs={"side": STRING})
    fixed = entry(inputs={"side": {"type": "string", "enum": ["buy", "sell"]}})
    assert only(free, fixed) == (Compat.BREAKING, "input.side", "enum introduced")
    assert only(fixed, free) == (Compat.ADDITIVE, "input.side", "enum dropped")


def test_enum_values_swapped_are_breaking_and_const_counts_as_an_enum_of_one() -> None:
    old = entry(inputs={"side": {"enum": ["buy", "sell"]}})
    new = entry(inputs={"side": {"enum": ["buy", "hold"]}})
    assert only(old, new) == (
        Compat.BREAKING,
        "input.side",
        'enum values changed: removed "sell"; added "hold"',
    )
    const = entry(inputs={"side": {"const": "buy"}})
    assert only(old, const) == (
        Compat.BREAKING,
        "input.side",
        'enum values narrowed: removed "sell"',
    )


def test_input_bounds_tightened_are_breaking_and_loosened_additive() -> None:
    old = entry(inputs={"symbols": {"type": "array", "maxItems": 20, "minItems": 1}})
    tighter = entry(inputs={"symbols": {"type": "array", "maxItems": 10, "minItems": 2}})
    assert [c for c, _, _ in changes(old, tighter)] == [Compat.BREAKING, Compat.BREAKING]
    assert [c for c, _, _ in changes(tighter, old)] == [Compat.ADDITIVE, Compat.ADDITIVE]
    unbounded = entry(inputs={"symbols": {"type": "array"}})
    assert [d for _, _, d in changes(unbounded, old)] == [
        "maxItems narrowed: null → 20",
        "minItems narrowed: null → 1",
    ]
    assert [c for c, _, _ in changes(old, unbounded)] == [Compat.ADDITIVE, Compat.ADDITIVE]


def test_a_bound_that_is_not_a_number_is_breaking_when_it_changes() -> None:
    old = entry(inputs={"s": {"type": "string", "maxLength": 5}})
    new = entry(inputs={"s": {"type": "string", "maxLength": "5"}})
    assert only(old, new) == (Compat.BREAKING, "input.s", 'maxLength changed: 5 → "5"')


def test_additional_inputs_refused_is_breaking_and_accepted_additive() -> None:
    strict = entry(input_schema={"type": "object", "additionalProperties": False})
    loose = entry(input_schema={"type": "object"})
    assert only(loose, strict) == (
        Compat.BREAKING,
        "input",
        "additional input properties narrowed",
    )
    assert only(strict, loose) == (Compat.ADDITIVE, "input", "additional input properties widened")
    explicit = entry(input_schema={"type": "object", "additionalProperties": True})
    assert changes(loose, explicit) == []


def test_additional_properties_given_as_schemas_are_walked() -> None:
    old = entry(input_schema={"type": "object", "additionalProperties": {"type": "string"}})
    new = entry(input_schema={"type": "object", "additionalProperties": {"type": "integer"}})
    assert only(old, new)[:2] == (Compat.BREAKING, "input.*")
    loose = entry(input_schema={"type": "object"})
    assert only(loose, old)[0] is Compat.BREAKING


def test_nested_array_items_are_walked_to_the_changed_field() -> None:
    lot = {
        "type": "object",
        "properties": {"open_lot_id": STRING, "quantity": STRING},
        "required": ["open_lot_id", "quantity"],
    }
    smaller = {**lot, "properties": {"open_lot_id": STRING}, "required": ["open_lot_id"]}
    old = entry(inputs={"tax_lots": {"type": ["null", "array"], "items": lot}})
    new = entry(inputs={"tax_lots": {"type": ["null", "array"], "items": smaller}})
    assert only(old, new) == (
        Compat.BREAKING,
        "input.tax_lots[].quantity",
        "input property removed",
    )


def test_array_items_constrained_are_narrowed_and_freed_widened() -> None:
    free = entry(inputs={"ids": {"type": "array"}})
    typed = entry(inputs={"ids": {"type": "array", "items": STRING}})
    assert only(free, typed) == (Compat.BREAKING, "input.ids[]", "array items narrowed")
    assert only(typed, free) == (Compat.ADDITIVE, "input.ids[]", "array items widened")


def test_an_unknown_keyword_changed_is_breaking() -> None:
    old = entry(inputs={"ref_id": {"type": "string", "format": "uuid"}})
    new = entry(inputs={"ref_id": {"type": "string", "pattern": "^[0-9a-f-]{36}$"}})
    assert [d for _, _, d in changes(old, new)] == [
        "keyword format changed (not compared)",
        "keyword pattern changed (not compared)",
    ]
    assert {c for c, _, _ in changes(old, new)} == {Compat.BREAKING}


def test_a_boolean_schema_replacing_an_object_schema_is_breaking() -> None:
    old = entry(inputs={"extra": STRING})
    new = entry(inputs={"extra": True})
    assert only(old, new) == (Compat.BREAKING, "input.extra", "schema changed: true")


def test_malformed_properties_that_change_are_breaking() -> None:
    old = entry(input_schema={"type": "object", "properties": {"a": STRING}})
    new = entry(input_schema={"type": "object", "properties": ["a"]})
    assert only(old, new) == (Compat.BREAKING, "input", "properties malformed (not compared)")
    described = entry(input_schema={**new.input_schema, "description": "Takes a."})
    assert only(new, described) == (Compat.COSMETIC, "input", "description changed")


def test_an_unknown_keyword_left_as_it_was_is_not_a_change() -> None:
    old = entry(inputs={"ref_id": {"type": "string", "format": "uuid"}})
    new = entry(inputs={"ref_id": {"type": "string", "format": "uuid", "title": "Ref"}})
    assert only(old, new) == (Compat.COSMETIC, "input.ref_id", "title changed")


def test_a_difference_deeper_than_the_bound_is_reported_once_as_breaking() -> None:
    def nested(depth: int, leaf: dict[str, Any]) -> dict[str, Any]:
        schema = leaf
        for _ in range(depth):
            schema = {"type": "object", "properties": {"n": schema}}
        return schema

    old = entry(inputs={"n": nested(MAX_DEPTH + 5, {"type": "string"})})
    new = entry(inputs={"n": nested(MAX_DEPTH + 5, {"type": "integer"})})
    compat, path, detail = only(old, new)
    assert compat is Compat.BREAKING
    assert detail == f"differs below depth {MAX_DEPTH} (not compared)"
    assert path.count(".n") == MAX_DEPTH


# -- outputs ---------------------------------------------------------------------------------


def test_an_output_property_removed_is_breaking() -> None:
    old = entry(output=out({"data": out({"id": STRING, "state": STRING})}))
    new = entry(output=out({"data": out({"id": STRING})}))
    assert only(old, new) == (Compat.BREAKING, "output.data.state", "output property removed")


def test_an_output_property_added_is_additive() -> None:
    old = entry(output=out({"data": out({"id": STRING})}))
    new = entry(output=out({"data": out({"id": STRING, "fees": STRING})}))
    assert only(old, new) == (Compat.ADDITIVE, "output.data.fees", "output property added")


def test_an_output_property_newly_nullable_is_breaking() -> None:
    old = entry(output=out({"quote_data": {"type": "object"}}))
    new = entry(output=out({"quote_data": {"type": ["null", "object"]}}))
    assert only(old, new) == (
        Compat.BREAKING,
        "output.quote_data",
        'newly nullable: "object" → ["null","object"]',
    )


def test_an_output_type_narrowed_is_additive() -> None:
    old = entry(output=out({"price": {"type": ["null", "string"]}}))
    new = entry(output=out({"price": STRING}))
    assert only(old, new)[0] is Compat.ADDITIVE


def test_an_output_enum_gaining_a_value_is_breaking() -> None:
    old = entry(output=out({"state": {"type": "string", "enum": ["filled"]}}))
    new = entry(output=out({"state": {"type": "string", "enum": ["filled", "voided"]}}))
    assert only(old, new)[0] is Compat.BREAKING


def test_an_output_property_no_longer_required_is_breaking_and_the_reverse_additive() -> None:
    always = entry(output=out({"id": STRING}, required=["id"]))
    maybe = entry(output=out({"id": STRING}))
    assert only(always, maybe) == (
        Compat.BREAKING,
        "output.id",
        "output property may now be absent",
    )
    assert only(maybe, always) == (
        Compat.ADDITIVE,
        "output.id",
        "output property now always present",
    )


def test_additional_output_properties_either_way_are_additive() -> None:
    strict = entry(output={"type": "object", "additionalProperties": False})
    loose = entry(output={"type": "object"})
    assert only(strict, loose)[0] is Compat.ADDITIVE
    assert only(loose, strict)[0] is Compat.ADDITIVE


def test_an_output_schema_declared_is_additive_and_withdrawn_breaking() -> None:
    declared = entry(output=out({"id": STRING}))
    assert only(entry(), declared) == (Compat.ADDITIVE, "output", "output schema declared")
    assert only(declared, entry()) == (Compat.BREAKING, "output", "output schema withdrawn")


# -- annotations -----------------------------------------------------------------------------


def test_read_only_hint_lost_is_breaking_and_gained_additive() -> None:
    read_only = entry(annotations={"readOnlyHint": True})
    assert only(read_only, entry()) == (
        Compat.BREAKING,
        "annotations.readOnlyHint",
        "readOnlyHint lost",
    )
    assert only(read_only, entry(annotations={"readOnlyHint": False}))[0] is Compat.BREAKING
    assert only(entry(), read_only) == (
        Compat.ADDITIVE,
        "annotations.readOnlyHint",
        "readOnlyHint gained",
    )


def test_a_hint_restated_as_its_default_is_not_a_change() -> None:
    assert changes(entry(), entry(annotations={"readOnlyHint": False})) == []


def test_only_the_annotations_that_changed_are_reported() -> None:
    old = entry(annotations={"readOnlyHint": True, "title": "Thing"})
    new = entry(annotations={"readOnlyHint": True, "title": "The thing"})
    assert only(old, new) == (Compat.COSMETIC, "annotations.title", "title changed")


def test_a_tool_turning_destructive_is_breaking() -> None:
    safe = entry(annotations={"destructiveHint": False})
    assert only(safe, entry(annotations={"destructiveHint": True}))[0] is Compat.BREAKING


def test_other_annotations_are_cosmetic_titles_or_additive_hints() -> None:
    assert only(entry(), entry(annotations={"title": "Thing"})) == (
        Compat.COSMETIC,
        "annotations.title",
        "title changed",
    )
    assert only(entry(), entry(annotations={"openWorldHint": False})) == (
        Compat.ADDITIVE,
        "annotations.openWorldHint",
        "annotation openWorldHint changed",
    )


def test_a_change_serialises_with_its_class() -> None:
    change = diff(snapshot(entry("place_thing")), snapshot())[0]
    assert change.as_json() == {
        "tool": "place_thing",
        "kind": "removed",
        "compat": "breaking",
        "detail": "tool removed",
        "path": "",
        "class": "money",
    }


def test_drift_between_shipped_captures_names_the_option_and_crypto_tools_added() -> None:
    """The drift tools compare capture versions, not only live listings: the 2026-09-21
    listing adds the option exercise and the crypto order tools to the 1.7.0 contract; the one
    tool it lacks is ``get_trade_approval_setting``, which only the contract carries."""
    changes = diff(load_file(CONTRACT), load_file(INVENTORY))
    added = {change.tool for change in changes if change.kind is ChangeKind.ADDED}
    assert {
        "exercise_option",
        "cancel_option_exercise",
        "preview_crypto_order",
        "place_crypto_order",
        "cancel_crypto_order",
    } <= added
    removed = {change.tool for change in changes if change.kind is ChangeKind.REMOVED}
    assert removed == {"get_trade_approval_setting"}
    assert all(change.compat is Compat.ADDITIVE for change in changes if change.tool in added)
