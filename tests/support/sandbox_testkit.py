"""An in-process sandbox venue on a stepped clock and a tool table, called as the MCP layer does.

Every call syncs the venue first (the MCP layer does so before each tool call). A successful
result of a contract tool is validated against its captured output schema before the test
sees it, so each test that calls a contract tool also checks the contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any, ClassVar

from jsonschema import Draft202012Validator

from ordergate.core import SteppedClock
from ordergate.inventory import load_inventory
from ordergate.sandbox.tools import ToolHandler, ToolTable
from ordergate.sandbox.venue import Account, Venue

__all__ = ["ToolFailed", "ToolHarness", "tool_table"]


class ToolFailed(AssertionError):
    pass


def tool_table(
    names: Iterable[str], *, table: Mapping[str, ToolHandler] | None = None
) -> ToolTable:
    """A table serving the tools ``names`` with their captured specs."""
    inventory = load_inventory()
    return ToolTable(specs={name: inventory[name] for name in names}, table=table)


@cache
def _validator(name: str) -> Draft202012Validator | None:
    spec = load_inventory().get(name)
    if spec is None or spec.output_schema is None:
        return None
    return Draft202012Validator(spec.output_schema)


@dataclass
class ToolHarness:
    clock: SteppedClock
    venue: Venue
    table: ToolTable
    check_outputs: ClassVar[bool] = True

    # -- accounts and time -----------------------------------------------------------------

    @property
    def agentic(self) -> Account:
        return self.venue.accounts.agentic

    @property
    def ira(self) -> Account:
        return next(a for a in self.venue.accounts.all() if not a.agentic_allowed)

    def advance(self, seconds: int = 0, **delta: int) -> None:
        self.clock.advance(timedelta(seconds=seconds, **delta))
        self.venue.sync()

    def set_time(self, instant: datetime) -> None:
        self.clock.set(instant)
        self.venue.sync()

    # -- tools -------------------------------------------------------------------------------

    def raw(self, name: str, **args: Any) -> dict[str, Any]:
        self.venue.sync()
        result: dict[str, Any] = self.table.call(self.venue, name, args)
        if self.check_outputs and not result["isError"]:
            validator = _validator(name)
            if validator is not None:
                validator.validate(result["structuredContent"])
        return result

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.raw(name, **args)
        if result["isError"]:
            raise ToolFailed(result["structuredContent"])
        data: dict[str, Any] = result["structuredContent"]["data"]
        return data

    def error(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.raw(name, **args)
        assert result["isError"], result["structuredContent"]
        error: dict[str, Any] = result["structuredContent"]["error"]
        return error
