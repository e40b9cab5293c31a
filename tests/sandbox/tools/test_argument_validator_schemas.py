"""Tool schemas are checked when a tool is first called, and every captured one is valid."""

from __future__ import annotations

import pytest
from jsonschema.exceptions import SchemaError

from ordergate.inventory import load_inventory
from ordergate.sandbox.tools import ArgumentValidator


def test_every_captured_input_schema_is_a_valid_2020_12_schema() -> None:
    specs = load_inventory()
    assert specs
    for spec in specs.values():
        ArgumentValidator(spec.input_schema).compiled()


def test_a_broken_schema_fails_at_the_first_call_before_any_argument_is_judged() -> None:
    validator = ArgumentValidator({"type": "object", "properties": {"n": {"type": 7}}})
    with pytest.raises(SchemaError):
        validator.validate({"n": 1})
