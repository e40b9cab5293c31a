"""A venue on a stepped clock serving the market-data and option research tools.

Every successful result of a contract tool is validated against its captured output schema
before the test sees it (``sandbox_testkit``), so each test that calls a contract tool also
checks the contract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sandbox_testkit import ToolHarness, tool_table

from ordergate.core import SteppedClock
from ordergate.sandbox.tools import handlers, market_data, option_data
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


def et(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    """An America/New_York wall-clock instant."""
    return datetime(year, month, day, hour, minute, tzinfo=ET)


@dataclass
class Harness(ToolHarness):
    """Calls are ``result`` (validated), ``call`` and ``fail``; ``step`` and ``at`` move the
    clock without syncing (the next call syncs)."""

    result = ToolHarness.raw
    fail = ToolHarness.error

    def step(self, **delta: float) -> None:
        self.clock.advance(timedelta(**delta))

    def at(self, instant: datetime) -> None:
        self.clock.set(instant)


def build(seed: int = 7, start: datetime = START) -> Harness:
    clock = SteppedClock(start=start)
    venue = Venue(seed=seed, clock=clock)
    table = tool_table(TOOLS, table=handlers())
    return Harness(clock=clock, venue=venue, table=table)
