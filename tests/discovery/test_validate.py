"""Arguments validated locally against the advertised input schema, naming the exact field."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ordergate.core import ToolError
from ordergate.discovery import _validate
from ordergate.discovery._validate import (
    ROOT,
    InvalidArguments,
    InvalidSchema,
    check_arguments,
    prepare_arguments,
    schema_digest,
    strip_local,
)
from ordergate.inventory import load_inventory

ORDER = {"account_number": "A1", "symbol": "AAPL", "side": "buy", "type": "market"}


def place_schema() -> dict[str, Any]:
    return load_inventory()["place_equity_order"].input_schema


def refusal(arguments: Any, schema: dict[str, Any] | None = None) -> InvalidArguments:
    with pytest.raises(InvalidArguments) as raised:
        check_arguments(arguments, schema or place_schema(), tool="place_equity_order")
    return raised.value


def test_valid_arguments_pass() -> None:
    check_arguments({**ORDER, "quantity": "1", "tax_lots": None}, place_schema())


@pytest.mark.req("discovery.validate.names-field")
@pytest.mark.parametrize(
    ("arguments", "field", "kind"),
    [
        ({k: v for k, v in ORDER.items() if k != "side"}, "side", "missing"),
        ({**ORDER, "foo": 1}, "foo", "unexpected"),
        ({**ORDER, "quantity": 5}, "quantity", "type"),
        (
            {**ORDER, "tax_lots": [{"open_lot_id": "L1", "quantity": "1"}, {"open_lot_id": "L2"}]},
            "tax_lots[1].quantity",
            "missing",
        ),
        (
            {**ORDER, "tax_lots": [{"open_lot_id": "L1", "quantity": 1}]},
            "tax_lots[0].quantity",
            "type",
        ),
        (
            {**ORDER, "tax_lots": [{"open_lot_id": "L1", "quantity": "1", "lot": "x"}]},
            "tax_lots[0].lot",
            "unexpected",
        ),
        ({**ORDER, "tax_lots": "all"}, "tax_lots", "type"),
        (["AAPL"], ROOT, "type"),
    ],
)  # fmt: skip
def test_each_kind_of_error_names_the_exact_offending_field(
    arguments: Any, field: str, kind: str
) -> None:
    error = refusal(arguments)
    assert isinstance(error, ToolError)
    assert (error.code, error.field, error.kind, error.tool) == (
        "invalid_arguments",
        field,
        kind,
        "place_equity_order",
    )
    assert field in str(error)


@pytest.mark.req("discovery.validate.names-field")
def test_every_problem_is_listed_in_field_order_and_the_first_is_raised() -> None:
    error = refusal({"symbol": 3, "zz": 1, "aa": 2, "type": "market"})
    assert [(p.field, p.kind) for p in error.problems] == [
        ("aa", "unexpected"),
        ("account_number", "missing"),
        ("side", "missing"),
        ("symbol", "type"),
        ("zz", "unexpected"),
    ]
    assert (error.field, error.kind) == ("aa", "unexpected")
    assert "and 4 more" in str(error)


def test_other_keywords_are_reported_by_their_name() -> None:
    schema = {
        "type": "object",
        "properties": {"side": {"enum": ["buy", "sell"]}, "symbol": {"minLength": 1}},
    }
    error = refusal({"side": "hold", "symbol": ""}, schema)
    assert [(p.field, p.kind) for p in error.problems] == [
        ("side", "enum"),
        ("symbol", "minLength"),
    ]


def test_properties_allowed_by_a_pattern_are_not_unexpected() -> None:
    schema = {
        "type": "object",
        "properties": {"symbol": {"type": "string"}},
        "patternProperties": {"^x_": {"type": "string"}},
        "additionalProperties": False,
    }
    check_arguments({"symbol": "AAPL", "x_note": "hi"}, schema)
    assert refusal({"symbol": "AAPL", "x_note": "hi", "y": "no"}, schema).field == "y"


def test_a_schema_that_is_not_json_schema_is_refused_before_any_call() -> None:
    with pytest.raises(InvalidSchema) as raised:
        check_arguments({}, {"type": "objekt"}, tool="get_x")
    assert (raised.value.code, raised.value.tool) == ("invalid_schema", "get_x")
    with pytest.raises(InvalidSchema):
        check_arguments({}, {"type": "object", "required": "symbol"})


def test_a_schema_is_compiled_once_and_found_again_by_its_digest() -> None:
    schema = place_schema()
    same = copy.deepcopy(schema)
    assert schema_digest(schema) == schema_digest(same)
    assert _validate._validator(schema, None) is _validate._validator(same, None)
    assert schema_digest(schema) != schema_digest({**schema, "required": []})


def test_the_compiled_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_validate, "_CACHE_SIZE", 1)
    monkeypatch.setattr(_validate, "_compiled", type(_validate._compiled)())
    first = {"type": "object", "title": "first"}
    _validate._validator(first, None)
    _validate._validator({"type": "object", "title": "second"}, None)
    assert list(_validate._compiled) == [schema_digest({"type": "object", "title": "second"})]


def test_local_flags_are_split_from_the_wire_arguments() -> None:
    wire, local = strip_local({**ORDER, "__simulated": True, "__note": "x"})
    assert wire == ORDER
    assert local == {"__simulated": True, "__note": "x"}


@pytest.mark.req("discovery.validate.names-field")
def test_local_flags_are_stripped_before_validation_against_a_strict_schema() -> None:
    wire, local = prepare_arguments({**ORDER, "__simulated": True}, place_schema())
    assert wire == ORDER
    assert local == {"__simulated": True}
    with pytest.raises(InvalidArguments) as raised:
        prepare_arguments({**ORDER, "_simulated": True}, place_schema())
    assert raised.value.field == "_simulated"
