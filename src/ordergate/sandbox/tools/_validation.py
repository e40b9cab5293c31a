"""Strict argument validation against a tool's captured input schema (JSON Schema 2020-12).

Robinhood's schemas say ``additionalProperties: false`` everywhere and type arrays as
``["null", "array"]``; the venue enforces them exactly and names the offending field.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ordergate.sandbox.tools._registry import VenueError

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = ["ArgumentValidator", "field_path"]


def field_path(path: Iterable[str | int]) -> str:
    """``("tax_lots", 0, "quantity")`` → ``"tax_lots[0].quantity"``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


def _describe(error: ValidationError) -> VenueError:
    base = field_path(error.absolute_path)
    schema: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    instance: Any = error.instance
    value: Any = error.validator_value
    if error.validator == "additionalProperties":
        extras = sorted(set(instance) - set(schema.get("properties", {})))
        name = field_path([*error.absolute_path, extras[0]]) if extras else base
        return VenueError("INVALID_ARGUMENT", f"unexpected argument: {name}", field=name)
    if error.validator == "required":
        missing = sorted(set(value) - set(instance))
        name = field_path([*error.absolute_path, missing[0]]) if missing else base
        return VenueError("INVALID_ARGUMENT", f"missing required argument: {name}", field=name)
    if error.validator == "type":
        expected = value
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        label = base or "arguments"
        return VenueError("INVALID_ARGUMENT", f"{label} must be of type {wanted}", field=label)
    label = base or "arguments"
    return VenueError("INVALID_ARGUMENT", f"{label} is invalid ({error.validator})", field=label)


class ArgumentValidator:
    """A validator for one tool's input schema, checked and compiled on the tool's first call.

    Checking all ~80 captured schemas up front took most of the venue's start-up (about half
    a second here, paid by every ``--sandbox`` command); a tool never called never needs it.
    ``SchemaError`` still comes before any argument is judged against a broken schema.
    """

    __slots__ = ("_schema", "_validator")

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self._validator: Draft202012Validator | None = None

    def compiled(self) -> Draft202012Validator:
        if self._validator is None:
            # Imported here too: a venue whose tools are never called never needs jsonschema.
            from jsonschema import Draft202012Validator

            Draft202012Validator.check_schema(self._schema)
            self._validator = Draft202012Validator(self._schema)
        return self._validator

    def validate(self, arguments: object) -> dict[str, Any]:
        """The arguments when valid; otherwise ``VenueError`` naming the first bad field."""
        if not isinstance(arguments, dict):
            raise VenueError("INVALID_ARGUMENT", "arguments must be an object", field="arguments")
        validator = self.compiled()
        error = next(iter(sorted(validator.iter_errors(arguments), key=_order)), None)
        if error is not None:
            raise _describe(error)
        return arguments


def _order(error: ValidationError) -> tuple[int, str]:
    # Unexpected and missing fields first, then by path, so the message is stable.
    rank = {"additionalProperties": 0, "required": 1}.get(str(error.validator), 2)
    return rank, field_path(error.absolute_path)
