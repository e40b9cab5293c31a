"""The served tool surface: captured schemas, the venue's handlers, and the result envelope.

Contract tools are served with exactly the captured ``inputSchema``, ``outputSchema`` and
``annotations``; inventory-only tools with their captured input schema. Descriptions are the
sandbox's own.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ordergate.inventory import ToolSpec, load_inventory
from ordergate.sandbox.tools._families import load_families
from ordergate.sandbox.tools._registry import ToolHandler, VenueError, handlers
from ordergate.sandbox.tools._validation import ArgumentValidator

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["ToolTable", "UnknownTool"]

logger = logging.getLogger(__name__)


class UnknownTool(LookupError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Unknown tool: {name}")


class _Served:
    __slots__ = ("descriptor", "handler", "spec", "validator")

    def __init__(self, spec: ToolSpec, handler: ToolHandler) -> None:
        self.spec = spec
        self.handler = handler
        self.validator = ArgumentValidator(spec.input_schema)
        descriptor: dict[str, Any] = {
            "name": spec.name,
            "description": handler.description,
            "inputSchema": spec.input_schema,
        }
        if spec.output_schema is not None:
            descriptor["outputSchema"] = spec.output_schema
        if spec.annotations is not None:
            descriptor["annotations"] = spec.annotations
        self.descriptor = descriptor


def _result(payload: dict[str, Any], *, is_error: bool, text: bool = True) -> dict[str, Any]:
    content = [{"type": "text", "text": json.dumps(payload, separators=(",", ":"))}] if text else []
    return {"content": content, "structuredContent": payload, "isError": is_error}


def error_result(error: VenueError, *, text: bool = True) -> dict[str, Any]:
    return _result(error.payload(), is_error=True, text=text)


class ToolTable:
    def __init__(
        self,
        *,
        specs: Mapping[str, ToolSpec] | None = None,
        table: Mapping[str, ToolHandler] | None = None,
    ) -> None:
        specs = load_inventory() if specs is None else specs
        if table is None:
            load_families()
            table = handlers()
        missing = sorted(set(specs) - set(table))
        if missing:
            raise RuntimeError(f"no sandbox handler for: {', '.join(missing)}")
        self._served = {name: _Served(spec, table[name]) for name, spec in specs.items()}
        self._descriptors = [s.descriptor for s in self._served.values()]

    def __len__(self) -> int:
        return len(self._served)

    def page(
        self, offset: int, size: int, *, unlisted: frozenset[str] = frozenset()
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Tool descriptors ``[offset, offset+size)`` and the next offset, if any, leaving
        out the ``unlisted`` tools."""
        listed = self._descriptors
        if unlisted:
            listed = [d for d in listed if d["name"] not in unlisted]
        chunk = listed[offset : offset + size]
        following = offset + size
        return chunk, following if following < len(listed) else None

    def call(
        self,
        venue: Venue,
        name: str,
        arguments: object,
        *,
        unlisted: frozenset[str] = frozenset(),
        text: bool = True,
    ) -> dict[str, Any]:
        """A ``CallToolResult``; raises ``UnknownTool`` (a protocol error) for unknown names
        and ``unlisted`` ones. ``text=False``: its ``content`` is empty, for a caller in
        process that reads ``structuredContent`` alone (the JSON text copy is not made)."""
        served = None if name in unlisted else self._served.get(name)
        if served is None:
            raise UnknownTool(name)
        try:
            args = served.validator.validate({} if arguments is None else arguments)
            data = served.handler.fn(venue, args)
        except VenueError as error:
            return error_result(error, text=text)
        return _result({"data": data, "guide": served.handler.guide}, is_error=False, text=text)
