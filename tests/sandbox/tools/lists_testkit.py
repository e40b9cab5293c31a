"""A venue with the lists desk, and helpers to call the lists, scanner and research tools."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sandbox_testkit import ToolHarness, tool_table

from ordergate.core import SteppedClock
from ordergate.sandbox.tools import (
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
class Harness(ToolHarness):
    """Calls are ``result``, ``call`` and ``fail`` (outputs not checked against schemas);
    ``step`` moves the clock without syncing (the next call syncs)."""

    check_outputs = False
    result = ToolHarness.raw
    fail = ToolHarness.error

    @property
    def desk(self) -> Lists:
        return Lists.of(self.venue)

    def step(self, **delta: float) -> None:
        self.clock.advance(timedelta(**delta))


def build(seed: int = 7, start: datetime = START) -> Harness:
    clock = SteppedClock(start=start)
    venue = Venue(seed=seed, clock=clock)
    venue.add_desk(Lists(venue))
    table = tool_table(TOOLS, table=handlers())
    return Harness(clock=clock, venue=venue, table=table)
