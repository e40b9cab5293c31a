"""A venue with the lists desk, and helpers to call the lists, scanner and research tools."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ordergate.core import SteppedClock
from ordergate.inventory import load_inventory
from ordergate.sandbox.tools import (
    ToolTable,
    advanced,
    alerts,
    enrollment,
    handlers,
    research,
    scanner,
    watchlists,
)
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._lists import Lists

# Tuesday 2026-12-01, 10:00 in New York: a regular session.
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
FAMILY_MODULES = (watchlists, alerts, scanner, research, advanced, enrollment)
TOOLS = tuple(name for module in FAMILY_MODULES for name in module.__all__)


@dataclass
class Harness:
    venue: Venue
    clock: SteppedClock
    table: ToolTable

    @property
    def desk(self) -> Lists:
        return Lists.of(self.venue)

    def result(self, name: str, **args: Any) -> dict[str, Any]:
        # The MCP layer syncs the venue before every tool call; so do we.
        self.venue.sync()
        return self.table.call(self.venue, name, args)

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


def build(seed: int = 7, start: datetime = START) -> Harness:
    clock = SteppedClock(start=start)
    venue = Venue(seed=seed, clock=clock)
    venue.add_desk(Lists(venue))
    inventory = load_inventory()
    table = ToolTable(specs={name: inventory[name] for name in TOOLS}, table=handlers())
    return Harness(venue, clock, table)
