"""Strict argument validation against a tool's captured input schema (JSON Schema 2020-12).

Robinhood's schemas say ``additionalProperties: false`` everywhere and type arrays as
``["null", "array"]``; the venue enforces them exactly and names the offending field.

The captured schemas use seven keywords (``type``, ``properties``, ``additionalProperties:
false``, ``required``, ``items``, ``minimum``, ``maximum``). A schema made only of those is
also compiled into a plain check of whether arguments are valid (``valid_check``), which
answers the common case, valid arguments, in a few microseconds where ``jsonschema`` took
tens on every call the venue (and the paper book) answers. ``jsonschema`` still judges
whatever the check does not pass, so every refusal, and its message, is ``jsonschema``'s;
a schema with any other keyword is judged by ``jsonschema`` alone. The check is exact for
the keywords it knows (a property test holds it to ``jsonschema`` on every captured schema).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Final

from ordergate.sandbox.tools._registry import VenueError

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = ["ArgumentValidator", "field_path", "valid_check"]

Check = Callable[[Any], bool]

_TYPES: Final[Mapping[str, Check]] = {
    # As JSON Schema 2020-12 (``jsonschema``'s draft 6+ type checker): a bool is no number,
    # an integral float is an integer.
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, numbers.Number) and not isinstance(v, bool),
}
_KNOWN: Final = frozenset(
    {"type", "properties", "additionalProperties", "required", "items", "minimum", "maximum"}
)


def valid_check(schema: object) -> Check | None:
    """Whether an instance is valid for ``schema``, as a plain function, when ``schema`` uses
    only the keywords the captured schemas use (see the module's notes); ``None`` for any
    other schema (and for anything that is not a valid one: ``jsonschema`` says why)."""
    if isinstance(schema, bool):
        return (lambda _: True) if schema else (lambda _: False)
    if not isinstance(schema, dict) or not set(schema) <= _KNOWN:
        return None
    checks: list[Check] = []
    kind = schema.get("type")
    if kind is not None:
        names = [kind] if isinstance(kind, str) else kind
        if not isinstance(names, list) or not all(
            isinstance(n, str) and n in _TYPES for n in names
        ):
            return None
        of = tuple(_TYPES[n] for n in names)
        checks.append(lambda v: any(is_type(v) for is_type in of))
    for bound, beyond in (("minimum", _below), ("maximum", _above)):
        if bound in schema:
            limit = schema[bound]
            if not _TYPES["number"](limit):
                return None
            checks.append(partial(_within, limit=limit, beyond=beyond))
    if "items" in schema:
        item = valid_check(schema["items"])
        if item is None:
            return None
        checks.append(lambda v: not isinstance(v, list) or all(item(i) for i in v))
    object_check = _object_check(schema)
    if object_check is None:
        return None
    checks.append(object_check)
    return lambda v: all(check(v) for check in checks)


def _within(value: Any, *, limit: Any, beyond: Callable[[Any, Any], bool]) -> bool:
    return not beyond(value, limit)


def _below(value: Any, limit: Any) -> bool:
    return _TYPES["number"](value) and bool(value < limit)


def _above(value: Any, limit: Any) -> bool:
    return _TYPES["number"](value) and bool(value > limit)


def _object_check(schema: dict[str, Any]) -> Check | None:
    """The check of ``properties``, ``additionalProperties`` and ``required`` (each applies
    to objects only); ``None`` when one of them is not of the form the check knows."""
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    closed = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(closed, bool):
        return None
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        return None
    subchecks: dict[str, Check] = {}
    for name, subschema in properties.items():
        sub = valid_check(subschema)
        if sub is None:
            return None
        subchecks[name] = sub
    allowed = frozenset(properties)
    needed = tuple(required)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        if not closed and not allowed.issuperset(value):
            return False
        if not all(name in value for name in needed):
            return False
        return all(sub(value[name]) for name, sub in subchecks.items() if name in value)

    return check


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

    __slots__ = ("_schema", "_valid", "_validator")

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self._validator: Draft202012Validator | None = None
        self._valid: Check | None = None

    def compiled(self) -> Draft202012Validator:
        if self._validator is None:
            # Imported here too: a venue whose tools are never called never needs jsonschema.
            from jsonschema import Draft202012Validator

            Draft202012Validator.check_schema(self._schema)
            self._validator = Draft202012Validator(self._schema)
            self._valid = valid_check(self._schema)
        return self._validator

    def validate(self, arguments: object) -> dict[str, Any]:
        """The arguments when valid; otherwise ``VenueError`` naming the first bad field."""
        if not isinstance(arguments, dict):
            raise VenueError("INVALID_ARGUMENT", "arguments must be an object", field="arguments")
        validator = self.compiled()
        if self._valid is not None and self._valid(arguments):
            return arguments
        error = next(iter(sorted(validator.iter_errors(arguments), key=_order)), None)
        if error is not None:
            raise _describe(error)
        return arguments


def _order(error: ValidationError) -> tuple[int, str]:
    # Unexpected and missing fields first, then by path, so the message is stable.
    rank = {"additionalProperties": 0, "required": 1}.get(str(error.validator), 2)
    return rank, field_path(error.absolute_path)
