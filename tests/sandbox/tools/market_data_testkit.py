"""A venue on a stepped clock serving the market-data and option research tools.

Every successful result of a contract tool is validated against its captured output schema
before the test sees it, so each test that calls a contract tool also checks the contract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from jsonschema import Draft202012Validator

from ordergate.core import SteppedClock
from ordergate.inventory import load_inventory
from ordergate.sandbox.tools import ToolTable, handlers, market_data, option_data
from ordergate.sandbox.venue import Venue

# Tuesday 2026-12-01, 10:00 in New York: a regular session.
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
ET = ZoneInfo("America/New_York")
TOOLS = tuple(
    name
    for module in (market_data, option_data)
    for name in module.__all__
    if name.startswith("get_")
)
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
_VALIDATORS = {
    name: Draft202012Validator(spec.output_schema)
    for name, spec in load_inventory().items()
    if name in TOOLS and spec.output_schema is not None
}


def et(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    """An America/New_York wall-clock instant."""
    return datetime(year, month, day, hour, minute, tzinfo=ET)


@dataclass
class Harness:
    venue: Venue
    clock: SteppedClock
    table: ToolTable

    def result(self, name: str, **args: Any) -> dict[str, Any]:
        # The MCP layer syncs the venue before every tool call; so do we.
        self.venue.sync()
        result = self.table.call(self.venue, name, args)
        validator = _VALIDATORS.get(name)
        if not result["isError"] and validator is not None:
            validator.validate(result["structuredContent"])
        return result

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.result(name, **args)
        assert not result["isError"], result["structuredContent"]
        data: dict[str, Any] = result["structuredContent"]["data"]
        return data

    def fail(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.result(name, **args)
        assert result["isError"], result["structuredContent"]
        error: dict[str, Any] = result["structuredContent"]["error"]
        return error

    def step(self, **delta: float) -> None:
        self.clock.advance(timedelta(**delta))

    def at(self, instant: datetime) -> None:
        self.clock.set(instant)


def build(seed: int = 7, start: datetime = START) -> Harness:
    clock = SteppedClock(start=start)
    venue = Venue(seed=seed, clock=clock)
    inventory = load_inventory()
    table = ToolTable(specs={name: inventory[name] for name in TOOLS}, table=handlers())
    return Harness(venue, clock, table)
