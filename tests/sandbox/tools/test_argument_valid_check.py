"""The plain check of valid arguments agrees with jsonschema on every captured input schema,
and a refusal is still jsonschema's own (its field and message)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ordergate.inventory import load_inventory
from ordergate.sandbox.tools import ArgumentValidator, VenueError
from ordergate.sandbox.tools._validation import valid_check

_SPECS = load_inventory()
_NAMES = sorted(_SPECS)

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([0.0, 1.0, -1.0, 2.5, 100.0]),
    st.text(max_size=6),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


def _instance(schema: Any, draw: st.DrawFn, depth: int = 0) -> Any:
    """Mostly what ``schema`` asks for, now and then anything at all: arguments near the
    edge of valid (a bool for an integer, an integral float, a key too many or missing)."""
    if not isinstance(schema, dict) or depth > 4 or draw(st.integers(0, 9)) == 0:
        return draw(_JSON)
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else list(kind or ["object"])
    chosen = draw(st.sampled_from(kinds))
    if chosen == "object":
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        value: dict[str, Any] = {}
        for name, subschema in properties.items():
            if name in required or draw(st.booleans()):
                value[name] = _instance(subschema, draw, depth + 1)
        if value and draw(st.integers(0, 7)) == 0:
            del value[draw(st.sampled_from(sorted(value)))]
        if draw(st.integers(0, 7)) == 0:
            value[draw(st.sampled_from(["extra", "symbol", "account_number"]))] = draw(_JSON)
        return value
    if chosen == "array":
        return [
            _instance(schema.get("items", {}), draw, depth + 1)
            for _ in range(draw(st.integers(0, 3)))
        ]
    if chosen in ("integer", "number"):
        low = schema.get("minimum", -1000)
        high = schema.get("maximum", 1000)
        return draw(
            st.one_of(
                st.integers(min_value=int(low) - 2, max_value=int(high) + 2),
                st.sampled_from([float(low), float(high), True, False, 0.5]),
            )
        )
    if chosen == "boolean":
        return draw(st.one_of(st.booleans(), st.sampled_from([0, 1, None])))
    if chosen == "null":
        return None
    return draw(st.one_of(st.text(max_size=8), st.sampled_from(["SPY", "", 7])))


@st.composite
def _schema_and_instance(draw: st.DrawFn) -> tuple[str, Any]:
    name = draw(st.sampled_from(_NAMES))
    return name, _instance(_SPECS[name].input_schema, draw)


def test_every_captured_input_schema_has_a_plain_check() -> None:
    missing = [name for name in _NAMES if valid_check(_SPECS[name].input_schema) is None]
    assert missing == []


@settings(max_examples=3000)
@given(_schema_and_instance())
def test_the_plain_check_agrees_with_jsonschema_on_every_captured_schema(
    case: tuple[str, Any],
) -> None:
    name, instance = case
    schema = _SPECS[name].input_schema
    check = valid_check(schema)
    assert check is not None
    assert check(instance) is Draft202012Validator(schema).is_valid(instance), (name, instance)


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"type": "integer"}, True, False),
        ({"type": "integer"}, 3.0, True),
        ({"type": "integer"}, 3.5, False),
        ({"type": "number"}, False, False),
        ({"type": ["null", "array"], "items": {"type": "string"}}, None, True),
        ({"type": ["null", "array"], "items": {"type": "string"}}, ["a", 1], False),
        ({"type": "integer", "minimum": 1, "maximum": 10}, 0, False),
        ({"type": "integer", "minimum": 1, "maximum": 10}, 11, False),
        ({"type": "integer", "minimum": 1, "maximum": 10}, 10, True),
        ({"minimum": 1}, "not a number", True),
        ({"type": "object", "additionalProperties": False, "properties": {}}, {"a": 1}, False),
        ({"type": "object", "required": ["a"]}, {}, False),
        ({"type": "object", "required": ["a"]}, [], False),
        ({"required": ["a"]}, [], True),
        ({"properties": {"a": {"type": "string"}}}, {"a": None}, False),
        (True, {"anything": 1}, True),
        (False, None, False),
    ],
)
def test_the_plain_check_decides_each_keyword_as_json_schema_does(
    schema: Any, instance: Any, valid: bool
) -> None:
    check = valid_check(schema)
    assert check is not None
    assert Draft202012Validator(schema).is_valid(instance) is valid
    assert check(instance) is valid


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^[A-Z]+$"},
        {"enum": ["buy", "sell"]},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"type": "string", "format": "uuid"},
        {"type": "integer", "minimum": "1"},
    ],
)
def test_a_schema_with_a_keyword_the_check_does_not_know_is_left_to_jsonschema(
    schema: Any,
) -> None:
    assert valid_check(schema) is None


def test_a_refusal_is_still_jsonschema_s_naming_the_field() -> None:
    validator = ArgumentValidator(_SPECS["place_equity_order"].input_schema)
    with pytest.raises(VenueError) as refused:
        validator.validate({"account_number": "1", "symbol": "SPY", "side": "buy", "x": 1})
    assert refused.value.field == "x"
    assert "unexpected argument: x" in str(refused.value)
