"""What changed between two snapshots, and whether it can break a caller.

Every change gets a compatibility class, judged from the caller's side:

- **breaking**: a tool removed; a required input added or an optional one made required; an
  input property removed or its accepted values narrowed (type, enum, bounds, additional
  properties); an output property removed, newly nullable, possibly absent, or its values
  widened; ``readOnlyHint`` lost (or another safety hint weakened); the tool's class changed;
  any schema keyword this module does not understand (fail closed).
- **additive**: a tool added; an optional input added; an input widened; an output property
  added or narrowed; a safety hint gained.
- **cosmetic**: descriptions (and titles) only.

Inputs are what we send, outputs what we read, so the same edit classes opposite ways: a type
gaining ``"null"`` widens an input (additive) but makes an output newly nullable (breaking).

Schemas are walked through nested object properties and array items down to ``MAX_DEPTH``
levels; a difference below that is reported once as breaking, not compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

from ordergate.discovery._snapshot import Snapshot, ToolEntry
from ordergate.inventory import ToolClass

__all__ = ["MAX_DEPTH", "Change", "ChangeKind", "Compat", "diff"]

MAX_DEPTH = 32


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


class Compat(StrEnum):
    BREAKING = "breaking"
    ADDITIVE = "additive"
    COSMETIC = "cosmetic"


@dataclass(frozen=True, slots=True)
class Change:
    """One classified difference. ``path`` locates it: ``""`` for the whole tool, ``class``,
    ``description``, ``annotations.readOnlyHint``, ``input.tax_lots[].quantity``,
    ``output.data.quote_data``. ``tool_class`` is the tool's class in the newer snapshot
    (the older one for a removed tool)."""

    tool: str
    kind: ChangeKind
    compat: Compat
    detail: str
    path: str
    tool_class: ToolClass

    def as_json(self) -> dict[str, str]:
        return {
            "tool": self.tool,
            "kind": self.kind.value,
            "compat": self.compat.value,
            "detail": self.detail,
            "path": self.path,
            "class": self.tool_class.value,
        }


def diff(old: Snapshot, new: Snapshot) -> list[Change]:
    """Every change from ``old`` to ``new``, by tool name, then in walk order."""
    changes: list[Change] = []
    for name in sorted(old.names | new.names):
        before, after = old.get(name), new.get(name)
        if after is None:
            assert before is not None
            changes.append(
                Change(
                    name, ChangeKind.REMOVED, Compat.BREAKING, "tool removed", "", before.tool_class
                )
            )
        elif before is None:
            changes.append(
                Change(name, ChangeKind.ADDED, Compat.ADDITIVE, "tool added", "", after.tool_class)
            )
        else:
            changes += _Walk(before, after).changes
    return changes


class _Side(Enum):
    INPUT = "input"
    OUTPUT = "output"


class _Way(Enum):
    """How the set of values a schema accepts moved."""

    NARROWER = "narrowed"
    WIDER = "widened"
    OTHER = "changed"


def _compat(side: _Side, way: _Way) -> Compat:
    # Inputs: narrowing rejects what we send. Outputs: widening brings what we cannot read.
    if way is _Way.OTHER:
        return Compat.BREAKING
    if side is _Side.INPUT:
        return Compat.BREAKING if way is _Way.NARROWER else Compat.ADDITIVE
    return Compat.BREAKING if way is _Way.WIDER else Compat.ADDITIVE


# Safety hints (MCP tool annotations) with their value when absent and the value that is safe.
_HINTS = {
    "readOnlyHint": (False, True),
    "destructiveHint": (True, False),
    "idempotentHint": (False, True),
}
_PROSE = ("description", "title", "examples", "$comment")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_HANDLED = frozenset(
    {"type", "enum", "const", "properties", "required", "additionalProperties", "items"}
    | set(_PROSE)
    | set(_UPPER)
    | set(_LOWER)
)


def _render(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Walk:
    """The changes of one tool present on both sides."""

    def __init__(self, old: ToolEntry, new: ToolEntry) -> None:
        self.tool = new.name
        self.tool_class = new.tool_class
        self.changes: list[Change] = []
        if old.tool_class != new.tool_class:
            # The gate routes by class: reads pass through, money tools are wrapped or
            # refused, cancels are forwarded and recorded. The same name in another class
            # takes another path through the gate (and an agent's existing calls now do
            # something else to the account), so a person must look before it is trusted.
            self.add(
                Compat.BREAKING,
                "class",
                f"class changed: {old.tool_class.value} → {new.tool_class.value}",
            )
        if (
            old.description_sha256 is not None
            and new.description_sha256 is not None
            and old.description_sha256 != new.description_sha256
        ):
            self.add(Compat.COSMETIC, "description", "description changed")
        if old.annotations != new.annotations:
            self.annotations(old.annotations or {}, new.annotations or {})
        if old.schema_sha256 != new.schema_sha256:
            self.schema(old.input_schema, new.input_schema, _Side.INPUT, "input", 0)
            self.output(old.output_schema, new.output_schema)

    def add(self, compat: Compat, path: str, detail: str) -> None:
        self.changes.append(
            Change(self.tool, ChangeKind.CHANGED, compat, detail, path, self.tool_class)
        )

    # -- annotations ----------------------------------------------------------------------

    def annotations(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        for key in sorted(old.keys() | new.keys()):
            if old.get(key) == new.get(key):
                continue
            path = f"annotations.{key}"
            if key in _HINTS:
                default, safe = _HINTS[key]
                was_safe = old.get(key, default) == safe
                is_safe = new.get(key, default) == safe
                if was_safe and not is_safe:
                    self.add(Compat.BREAKING, path, f"{key} lost")
                elif is_safe and not was_safe:
                    self.add(Compat.ADDITIVE, path, f"{key} gained")
                # Otherwise restated with the same meaning (absent ↔ its default).
            elif key == "title":
                self.add(Compat.COSMETIC, path, "title changed")
            else:
                # Hints the gate does not act on: new information, nothing relied on lost.
                self.add(Compat.ADDITIVE, path, f"annotation {key} changed")

    # -- schemas --------------------------------------------------------------------------

    def output(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if old is None and new is not None:
            self.add(Compat.ADDITIVE, "output", "output schema declared")
        elif old is not None and new is None:
            self.add(Compat.BREAKING, "output", "output schema withdrawn")
        elif old is not None and new is not None:
            self.schema(old, new, _Side.OUTPUT, "output", 0)

    def schema(self, old: Any, new: Any, side: _Side, path: str, depth: int) -> None:
        if old == new:
            return
        if depth >= MAX_DEPTH:
            self.add(Compat.BREAKING, path, f"differs below depth {MAX_DEPTH} (not compared)")
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.add(_compat(side, _Way.OTHER), path, f"schema changed: {_render(new)}")
            return
        self.types(old, new, side, path)
        self.enum(old, new, side, path)
        self.bounds(old, new, side, path)
        for key in _PROSE:
            if old.get(key) != new.get(key):
                self.add(Compat.COSMETIC, path, f"{key} changed")
        self.properties(old, new, side, path, depth)
        self.additional(old, new, side, path, depth)
        self.items(old, new, side, path, depth)
        for key in sorted((old.keys() | new.keys()) - _HANDLED):
            if old.get(key) != new.get(key):
                # A keyword whose effect this walk does not model: fail closed.
                self.add(Compat.BREAKING, path, f"keyword {key} changed (not compared)")

    def types(self, old: dict[str, Any], new: dict[str, Any], side: _Side, path: str) -> None:
        if old.get("type") == new.get("type"):
            return
        before, after = _accepted_types(old), _accepted_types(new)
        way = _way(before, after)
        if way is None:
            return  # spelled differently, same types (``"string"`` and ``["string"]``)
        shown = f"{_render(old.get('type'))} → {_render(new.get('type'))}"
        if side is _Side.OUTPUT and "null" in (after or {"null"}) - (before or {"null"}):
            detail = f"newly nullable: {shown}"
        else:
            detail = f"type {way.value}: {shown}"
        self.add(_compat(side, way), path, detail)

    def enum(self, old: dict[str, Any], new: dict[str, Any], side: _Side, path: str) -> None:
        before, after = _enum_values(old), _enum_values(new)
        way = _way(before, after)
        if way is None:
            return
        if before is not None and after is not None:
            removed, added = sorted(before - after), sorted(after - before)
            parts = [f"removed {', '.join(removed)}"] * bool(removed)
            parts += [f"added {', '.join(added)}"] * bool(added)
            detail = f"enum values {way.value}: {'; '.join(parts)}"
        else:
            detail = "enum " + ("introduced" if after is not None else "dropped")
        self.add(_compat(side, way), path, detail)

    def bounds(self, old: dict[str, Any], new: dict[str, Any], side: _Side, path: str) -> None:
        for key in (*_UPPER, *_LOWER):
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            upper = key in _UPPER
            if not (_is_number(before) or before is None) or not (
                _is_number(after) or after is None
            ):
                way = _Way.OTHER
            elif before is None:
                way = _Way.NARROWER
            elif after is None:
                way = _Way.WIDER
            else:
                way = _Way.NARROWER if (after < before) == upper else _Way.WIDER
            self.add(
                _compat(side, way), path, f"{key} {way.value}: {_render(before)} → {_render(after)}"
            )

    def properties(
        self, old: dict[str, Any], new: dict[str, Any], side: _Side, path: str, depth: int
    ) -> None:
        before, after = old.get("properties", {}), new.get("properties", {})
        required_before, required_after = _required(old), _required(new)
        if not isinstance(before, dict) or not isinstance(after, dict):
            if before != after:
                self.add(Compat.BREAKING, path, "properties malformed (not compared)")
            return
        for name in sorted(before.keys() | after.keys()):
            where = f"{path}.{name}"
            was_required, is_required = name in required_before, name in required_after
            if name not in after:
                self.add(Compat.BREAKING, where, f"{side.value} property removed")
            elif name not in before:
                if side is _Side.OUTPUT:
                    self.add(Compat.ADDITIVE, where, "output property added")
                elif is_required:
                    self.add(Compat.BREAKING, where, "required input added")
                else:
                    self.add(Compat.ADDITIVE, where, "optional input added")
            else:
                if was_required != is_required:
                    self.required(side, where, is_required)
                self.schema(before[name], after[name], side, where, depth + 1)

    def required(self, side: _Side, path: str, is_required: bool) -> None:
        if side is _Side.INPUT:
            if is_required:
                self.add(Compat.BREAKING, path, "input became required")
            else:
                self.add(Compat.ADDITIVE, path, "input no longer required")
        elif is_required:
            self.add(Compat.ADDITIVE, path, "output property now always present")
        else:
            self.add(Compat.BREAKING, path, "output property may now be absent")

    def additional(
        self, old: dict[str, Any], new: dict[str, Any], side: _Side, path: str, depth: int
    ) -> None:
        before, after = old.get("additionalProperties"), new.get("additionalProperties")
        if before == after:
            return
        if isinstance(before, dict) and isinstance(after, dict):
            self.schema(before, after, side, f"{path}.*", depth + 1)
            return
        rank_before, rank_after = _openness(before), _openness(after)
        if rank_before == rank_after:
            return  # absent and true both accept anything
        way = _Way.WIDER if rank_after > rank_before else _Way.NARROWER
        if side is _Side.OUTPUT:
            # Undeclared extra fields are ignored when read; which ones may come is news,
            # not a break (as an output property added is).
            self.add(Compat.ADDITIVE, path, f"additional output properties {way.value}")
        else:
            self.add(_compat(side, way), path, f"additional input properties {way.value}")

    def items(
        self, old: dict[str, Any], new: dict[str, Any], side: _Side, path: str, depth: int
    ) -> None:
        before, after = old.get("items"), new.get("items")
        if before == after:
            return
        if before is None or after is None:
            # No ``items`` accepts any item: adding one narrows, dropping one widens.
            way = _Way.NARROWER if before is None else _Way.WIDER
            self.add(_compat(side, way), f"{path}[]", f"array items {way.value}")
            return
        self.schema(before, after, side, f"{path}[]", depth + 1)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _required(schema: dict[str, Any]) -> frozenset[str]:
    required = schema.get("required")
    if not isinstance(required, list):
        return frozenset()
    return frozenset(name for name in required if isinstance(name, str))


def _accepted_types(schema: dict[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema accepts; ``None`` when it names none (any type)."""
    spelled = schema.get("type")
    if spelled is None:
        return None
    names = {str(name) for name in spelled} if isinstance(spelled, list) else {str(spelled)}
    if "number" in names:
        names.add("integer")  # every integer is a number
    return frozenset(names)


def _enum_values(schema: dict[str, Any]) -> frozenset[str] | None:
    """The allowed values (as canonical JSON); ``None`` when unconstrained."""
    if "const" in schema:
        return frozenset({_render(schema["const"])})
    values = schema.get("enum")
    if not isinstance(values, list):
        return None
    return frozenset(_render(value) for value in values)


def _way(before: frozenset[str] | None, after: frozenset[str] | None) -> _Way | None:
    """How an accepted set moved; ``None`` = any value. ``None`` back when unchanged."""
    if before == after:
        return None
    if after is None:
        return _Way.WIDER
    if before is None:
        return _Way.NARROWER
    if before < after:
        return _Way.WIDER
    if after < before:
        return _Way.NARROWER
    return _Way.OTHER


def _openness(value: Any) -> int:
    """``additionalProperties``: false (none) < a schema (some) < absent or true (any)."""
    if value is False:
        return 0
    return 1 if isinstance(value, dict) else 2
