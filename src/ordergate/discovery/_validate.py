"""Arguments checked against a tool's advertised input schema (JSON Schema 2020-12) before any
call, so a bad argument fails here naming the exact field (``tax_lots[0].quantity``, missing
``side``, unexpected ``foo``) instead of as a generic upstream error.

::

    ToolError (ordergate.core)
    ├── InvalidArguments   the arguments break the schema; ``field`` and ``kind`` say where, how
    └── InvalidSchema      the advertised schema is not a valid JSON Schema (fail closed)

Client-local flags are keys starting with ``__`` (``__simulated``): they steer ordergate and
never go on the wire, where ``additionalProperties: false`` would refuse the whole call.
``strip_local`` takes them off before validation and sending.

Validators are compiled once per schema and kept by the SHA-256 of the schema's canonical
JSON, so a schema that comes back from every ``tools/list`` is not recompiled per call.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ordergate.core import ToolError

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

# jsonschema is imported when the first schema is compiled (its import, with referencing and
# attrs, costs a tenth of a second or more that ``ordergate status`` never needs).

__all__ = [
    "LOCAL_PREFIX",
    "ArgumentProblem",
    "InvalidArguments",
    "InvalidSchema",
    "check_arguments",
    "prepare_arguments",
    "schema_digest",
    "strip_local",
]

LOCAL_PREFIX = "__"
ROOT = "<arguments>"
_CACHE_SIZE = 512
_compiled: OrderedDict[str, Draft202012Validator] = OrderedDict()


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One way the arguments break the schema.

    ``kind`` is ``missing`` (a required property absent), ``unexpected`` (a property the
    schema does not allow), or the JSON Schema keyword that failed (``type``, ``enum``,
    ``pattern``, ``minItems``, …).
    """

    field: str
    kind: str
    message: str


class InvalidArguments(ToolError):
    """The arguments break the tool's input schema; ``field`` and ``kind`` name the first
    problem (in field order), ``problems`` all of them."""

    code = "invalid_arguments"

    def __init__(self, problems: tuple[ArgumentProblem, ...], *, tool: str | None = None) -> None:
        self.problems = problems
        first = problems[0]
        self.field = first.field
        self.kind = first.kind
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        prefix = f"{tool}: " if tool else ""
        super().__init__(f"{prefix}{first.field}: {first.message}{more}", tool=tool)


class InvalidSchema(ToolError):
    """The tool's advertised input schema is not valid JSON Schema 2020-12."""

    code = "invalid_schema"


def strip_local(arguments: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(wire_arguments, local_flags)``: the keys starting with ``__`` are local flags."""
    wire: dict[str, Any] = {}
    local: dict[str, Any] = {}
    for key, value in arguments.items():
        (local if key.startswith(LOCAL_PREFIX) else wire)[key] = value
    return wire, local


def schema_digest(schema: Mapping[str, Any]) -> str:
    """SHA-256 of the schema's canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _validator(schema: Mapping[str, Any], tool: str | None) -> Draft202012Validator:
    digest = schema_digest(schema)
    validator = _compiled.get(digest)
    if validator is not None:
        _compiled.move_to_end(digest)
        return validator
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        path = _path(error.absolute_path) or "the schema root"
        raise InvalidSchema(
            f"the input schema is not valid JSON Schema ({error.validator} at {path})", tool=tool
        ) from None
    validator = Draft202012Validator(schema)
    _compiled[digest] = validator
    if len(_compiled) > _CACHE_SIZE:
        _compiled.popitem(last=False)
    return validator


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _child(parent: str, name: str) -> str:
    return f"{parent}.{name}" if parent else name


def _problems(error: ValidationError) -> list[ArgumentProblem]:
    where = _path(error.absolute_path)
    instance = error.instance
    required = error.validator_value
    if error.validator == "required" and isinstance(instance, Mapping):
        # check_schema has made sure ``required`` is a list of names.
        names = cast("list[str]", required)
        return [
            ArgumentProblem(_child(where, name), "missing", "required property is missing")
            for name in names
            if name not in instance
        ]
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator == "additionalProperties" and isinstance(instance, Mapping):
        allowed = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        return [
            ArgumentProblem(_child(where, name), "unexpected", "property is not in the schema")
            for name in sorted(instance)
            if name not in allowed and not any(re.search(p, name) for p in patterns)
        ]
    if error.validator == "type":
        expected = error.validator_value
        named = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return [ArgumentProblem(where or ROOT, "type", f"expected {named}")]
    return [ArgumentProblem(where or ROOT, str(error.validator), error.message)]


def check_arguments(
    arguments: Mapping[str, Any], schema: Mapping[str, Any], *, tool: str | None = None
) -> None:
    """Validate wire ``arguments`` against ``schema``.

    Raises ``InvalidArguments`` naming every offending field (sorted; the first is
    ``field``), ``InvalidSchema`` when the schema itself is not valid.
    """
    validator = _validator(schema, tool)
    problems = [
        problem for error in validator.iter_errors(arguments) for problem in _problems(error)
    ]
    if problems:
        unique = sorted(set(problems), key=lambda p: (p.field, p.kind, p.message))
        raise InvalidArguments(tuple(unique), tool=tool)


def prepare_arguments(
    arguments: Mapping[str, Any], schema: Mapping[str, Any], *, tool: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``strip_local`` then ``check_arguments``: ``(wire_arguments, local_flags)``, the wire
    arguments valid for ``schema``. Raises as ``check_arguments`` does."""
    wire, local = strip_local(arguments)
    check_arguments(wire, schema, tool=tool)
    return wire, local
