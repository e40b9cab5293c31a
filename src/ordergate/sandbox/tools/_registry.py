"""The sandbox's tool table: one handler per Robinhood tool, registered by the family modules.

A handler takes the venue and the validated arguments and returns the ``data`` half of
Robinhood's ``{data, guide}`` envelope; a business failure is raised as ``VenueError`` and
becomes an ``isError`` result. The guide sentence is fixed per tool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["Handler", "ToolHandler", "VenueError", "handlers", "tool"]

Handler = Callable[["Venue", dict[str, Any]], dict[str, Any]]


class VenueError(Exception):
    """A business failure the venue reports as a tool result with ``isError: true``.

    ``code`` is Robinhood-style upper snake case (``INVALID_ARGUMENT``, ``NOT_FOUND``,
    ``INSUFFICIENT_BUYING_POWER``, ``RATE_LIMITED`` …); ``field`` names the argument at fault.
    """

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        self.code = code
        self.message = message
        self.field = field
        super().__init__(f"{code}: {message}")

    def payload(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return {"error": error}


@dataclass(frozen=True, slots=True)
class ToolHandler:
    name: str
    fn: Handler
    guide: str
    description: str


_HANDLERS: dict[str, ToolHandler] = {}


def tool(name: str, *, description: str, guide: str) -> Callable[[Handler], Handler]:
    """Register ``fn`` as the sandbox's implementation of the Robinhood tool ``name``."""

    def register(fn: Handler) -> Handler:
        if name in _HANDLERS:
            raise RuntimeError(f"tool {name} registered twice")
        _HANDLERS[name] = ToolHandler(name=name, fn=fn, guide=guide, description=description)
        return fn

    return register


def handlers() -> dict[str, ToolHandler]:
    """Every registered handler by tool name (importing the family modules registers them)."""
    return dict(_HANDLERS)
