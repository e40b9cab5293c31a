"""A dated, diffable record of a venue's tool surface: what ``tools/list`` offered, when.

One ``ToolEntry`` per tool (name, description, class by the words of its name, schemas,
annotations, and SHA-256 digests of the canonical schemas and of the description), sorted by
name. ``Snapshot.to_json`` is deterministic (sorted keys, two-space indent, trailing newline)
so two snapshots diff line by line in a review; ``Snapshot.from_json`` reads one back and
re-checks everything, digests included, so an edited file is caught.

A snapshot holds names, descriptions and schemas only: nothing of the connection that took it.

Errors::

    OrdergateError
    └── SnapshotError        a listing or file fails a sanity check (``code`` says which)
        └── SourceError      a side cannot be loaded (see ``_sources``)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ordergate.core import OrdergateError, utc
from ordergate.discovery._classify import classify
from ordergate.inventory import ToolClass

__all__ = [
    "ACCOUNT_PARAMETERS",
    "SNAPSHOT_FORMAT",
    "Snapshot",
    "SnapshotError",
    "ToolEntry",
    "canonical_json",
]

SNAPSHOT_FORMAT = "ordergate-tools-snapshot/1"
"""The ``format`` key of every snapshot file: how a file says it is a snapshot."""

ACCOUNT_PARAMETERS = ("account_number", "rhs_account_number")
"""Input properties naming the account a tool acts on (equity/options, crypto)."""


class SnapshotError(OrdergateError):
    """A listing or a snapshot file fails a sanity check.

    ``code`` names the check (``no_tools``, ``empty_name``, ``duplicate_name``,
    ``input_not_object``, ``malformed``, ``not_a_snapshot``, ``count_mismatch``,
    ``digest_mismatch``, ``token_in_listing``); ``tool`` names the tool when one is at fault.
    """

    code = "snapshot_invalid"

    def __init__(self, code: str, reason: str, *, tool: str | None = None) -> None:
        self.code = code
        self.reason = reason
        self.tool = tool
        super().__init__(reason)


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8: the bytes the digests are taken over."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _schema_digest(input_schema: Any, output_schema: Any) -> str:
    """SHA-256 of the canonical JSON of ``{"inputSchema": …, "outputSchema": … or null}``."""
    return _sha256(canonical_json({"inputSchema": input_schema, "outputSchema": output_schema}))


def _description_digest(description: str | None) -> str | None:
    """SHA-256 of the UTF-8 description; ``None`` when the source did not record one."""
    return None if description is None else _sha256(description.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One tool as listed. ``description`` is ``None`` when the source removed descriptions
    (the reference capture files), which drift treats as unknown rather than changed."""

    name: str
    description: str | None
    tool_class: ToolClass
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any] | None
    schema_sha256: str
    description_sha256: str | None

    @classmethod
    def create(
        cls,
        *,
        name: str,
        description: str | None,
        tool_class: ToolClass,
        input_schema: dict[str, Any],
        output_schema: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
    ) -> ToolEntry:
        """An entry with its digests computed."""
        return cls(
            name=name,
            description=description,
            tool_class=tool_class,
            input_schema=input_schema,
            output_schema=output_schema,
            annotations=annotations,
            schema_sha256=_schema_digest(input_schema, output_schema),
            description_sha256=_description_digest(description),
        )

    @classmethod
    def from_descriptor(
        cls,
        descriptor: Mapping[str, Any],
        *,
        classifier: Callable[[str], ToolClass] = classify,
        missing_description: str | None = "",
    ) -> ToolEntry:
        """An entry from an MCP tool descriptor (``name``, ``description``, ``inputSchema``,
        ``outputSchema``, ``annotations``). A missing description becomes
        ``missing_description``: ``""`` for a live listing (the server said nothing),
        ``None`` for a capture whose descriptions were removed.

        Raises ``SnapshotError`` (``malformed``) for a field of the wrong JSON type.
        """
        name = descriptor.get("name", "")
        if not isinstance(name, str):
            raise SnapshotError("malformed", "a tool's name is not a string")
        label = name or "(unnamed)"
        input_schema = descriptor.get("inputSchema")
        if not isinstance(input_schema, dict):
            raise SnapshotError(
                "input_not_object", f"{label}: inputSchema is not an object schema", tool=label
            )
        description = descriptor.get("description", missing_description)
        output_schema = descriptor.get("outputSchema")
        annotations = descriptor.get("annotations")
        for key, value, types in (
            ("description", description, str),
            ("outputSchema", output_schema, dict),
            ("annotations", annotations, dict),
        ):
            if value is not None and not isinstance(value, types):
                raise SnapshotError("malformed", f"{label}: {key} is of the wrong type", tool=label)
        return cls.create(
            name=name,
            description=description,
            tool_class=classifier(name),
            input_schema=input_schema,
            output_schema=output_schema,
            annotations=annotations,
        )

    def descriptor(self) -> dict[str, Any]:
        """The entry as an MCP tool descriptor (``name``, ``inputSchema``, …)."""
        descriptor: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema}
        if self.description is not None:
            descriptor["description"] = self.description
        if self.output_schema is not None:
            descriptor["outputSchema"] = self.output_schema
        if self.annotations is not None:
            descriptor["annotations"] = self.annotations
        return descriptor

    @property
    def account_parameters(self) -> tuple[str, ...]:
        """Which of ``account_number`` / ``rhs_account_number`` the input schema has."""
        properties = self.input_schema.get("properties")
        if not isinstance(properties, dict):
            return ()
        return tuple(name for name in ACCOUNT_PARAMETERS if name in properties)

    @property
    def read_only_hint(self) -> bool | None:
        """The ``readOnlyHint`` annotation; ``None`` when the tool does not state one."""
        hint = (self.annotations or {}).get("readOnlyHint")
        return hint if isinstance(hint, bool) else None

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "class": self.tool_class.value,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "annotations": self.annotations,
            "schema_sha256": self.schema_sha256,
            "description_sha256": self.description_sha256,
        }


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A tool surface at one moment, tools sorted by name. ``source`` says where it was read
    (a URL without credentials or query, or a file name)."""

    tools: tuple[ToolEntry, ...]
    captured_at: datetime | None
    server_name: str | None = None
    server_version: str | None = None
    protocol_version: str | None = None
    source: str = ""
    _by_name: dict[str, ToolEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.tools, key=lambda entry: entry.name))
        object.__setattr__(self, "tools", ordered)
        object.__setattr__(self, "_by_name", {entry.name: entry for entry in ordered})
        if self.captured_at is not None:
            object.__setattr__(self, "captured_at", utc(self.captured_at))

    @classmethod
    def from_listing(
        cls,
        descriptors: Iterable[Mapping[str, Any]],
        *,
        captured_at: datetime | None,
        classifier: Callable[[str], ToolClass] = classify,
        missing_description: str | None = "",
        server_name: str | None = None,
        server_version: str | None = None,
        protocol_version: str | None = None,
        source: str = "",
    ) -> Snapshot:
        """A checked snapshot of MCP tool descriptors. Raises ``SnapshotError``."""
        entries = tuple(
            ToolEntry.from_descriptor(
                descriptor, classifier=classifier, missing_description=missing_description
            )
            for descriptor in descriptors
        )
        snapshot = cls(
            tools=entries,
            captured_at=captured_at,
            server_name=server_name,
            server_version=server_version,
            protocol_version=protocol_version,
            source=source,
        )
        snapshot.check()
        return snapshot

    @property
    def tool_count(self) -> int:
        return len(self.tools)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._by_name)

    def get(self, name: str) -> ToolEntry | None:
        return self._by_name.get(name)

    def check(self) -> None:
        """The sanity checks every snapshot must pass: at least one tool, every name
        non-empty and unique, every input schema an object schema (``type: object``).

        Raises ``SnapshotError`` naming the first failure.
        """
        if not self.tools:
            raise SnapshotError("no_tools", "the listing has no tools (tool_count is 0)")
        if len(self._by_name) != len(self.tools):
            # Sorted by name, so a name listed twice sits next to itself.
            pairs = zip(self.tools, self.tools[1:], strict=False)
            duplicate = next(a.name for a, b in pairs if a.name == b.name)
            raise SnapshotError(
                "duplicate_name", f"tool {duplicate} is listed twice", tool=duplicate
            )
        for entry in self.tools:
            if not entry.name.strip():
                raise SnapshotError("empty_name", "a tool has an empty name")
            if entry.input_schema.get("type") != "object":
                raise SnapshotError(
                    "input_not_object",
                    f"{entry.name}: inputSchema is not an object schema (type: object)",
                    tool=entry.name,
                )

    def as_json(self) -> dict[str, Any]:
        return {
            "format": SNAPSHOT_FORMAT,
            "server": {"name": self.server_name, "version": self.server_version},
            "protocol_version": self.protocol_version,
            "captured_at": _instant(self.captured_at),
            "source": self.source,
            "tool_count": self.tool_count,
            "tools": [entry.as_json() for entry in self.tools],
        }

    def to_json(self) -> str:
        """Deterministic text: sorted keys, two-space indent, one trailing newline."""
        return json.dumps(self.as_json(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Snapshot:
        """A snapshot written by ``to_json``, checked again (digests, count, sanity).

        Raises ``SnapshotError``: ``not_a_snapshot`` for other JSON, ``malformed`` for a
        field of the wrong type, ``count_mismatch``, ``digest_mismatch``, or a sanity code.
        """
        try:
            document = json.loads(text)
        except ValueError:
            raise SnapshotError("not_a_snapshot", "not JSON") from None
        return cls.from_document(document)

    @classmethod
    def from_document(cls, document: Any) -> Snapshot:
        """``from_json`` for JSON already parsed."""
        if not isinstance(document, dict) or document.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotError("not_a_snapshot", f'no "format": "{SNAPSHOT_FORMAT}" key')
        server = _typed(document, "server", dict, "snapshot")
        tools = _typed(document, "tools", list, "snapshot")
        entries = tuple(_entry(index, item) for index, item in enumerate(tools))
        snapshot = cls(
            tools=entries,
            captured_at=_parse_instant(
                _typed(document, "captured_at", (str, type(None)), "snapshot")
            ),
            server_name=_typed(server, "name", (str, type(None)), "server"),
            server_version=_typed(server, "version", (str, type(None)), "server"),
            protocol_version=_typed(document, "protocol_version", (str, type(None)), "snapshot"),
            source=_typed(document, "source", str, "snapshot"),
        )
        if document.get("tool_count") != snapshot.tool_count:
            raise SnapshotError(
                "count_mismatch",
                f"tool_count says {document.get('tool_count')!r}, the file lists "
                f"{snapshot.tool_count} tools",
            )
        snapshot.check()
        return snapshot


def _typed(document: Mapping[str, Any], key: str, types: Any, where: str) -> Any:
    value = document.get(key)
    if not isinstance(value, types):
        raise SnapshotError("malformed", f"{where}.{key}: missing or of the wrong type")
    return value


def _entry(index: int, item: Any) -> ToolEntry:
    if not isinstance(item, dict):
        raise SnapshotError("malformed", f"tools[{index}] is not an object")
    where = f"tools[{index}]"
    name = _typed(item, "name", str, where)
    try:
        tool_class = ToolClass(str(item.get("class")))
    except ValueError:
        raise SnapshotError("malformed", f"{name}: unknown class", tool=name) from None
    input_schema = item.get("input_schema")
    if not isinstance(input_schema, dict):
        raise SnapshotError(
            "input_not_object", f"{name}: input_schema is not an object schema", tool=name
        )
    entry = ToolEntry.create(
        name=name,
        description=_typed(item, "description", (str, type(None)), where),
        tool_class=tool_class,
        input_schema=input_schema,
        output_schema=_typed(item, "output_schema", (dict, type(None)), where),
        annotations=_typed(item, "annotations", (dict, type(None)), where),
    )
    for key in ("schema_sha256", "description_sha256"):
        if item.get(key) != getattr(entry, key):
            # A hand-edited schema or description without a fresh digest: the file no
            # longer records what was listed.
            raise SnapshotError(
                "digest_mismatch", f"{name}: {key} does not match the recorded content", tool=name
            )
    return entry


def _instant(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.isoformat().replace("+00:00", "Z")


def _parse_instant(text: str | None) -> datetime | None:
    """ISO 8601 instant or date (a date is taken as midnight UTC)."""
    if text is None:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SnapshotError("malformed", f"captured_at: {text!r} is not ISO 8601") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed
