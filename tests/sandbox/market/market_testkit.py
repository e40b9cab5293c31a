"""Shared helpers for the market tests: New York instants and a market on a stepped clock."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from ordergate.core import SteppedClock
from ordergate.sandbox.market import Market

ET = ZoneInfo("America/New_York")


def et(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    """An America/New_York wall-clock instant."""
    return datetime(year, month, day, hour, minute, second, tzinfo=ET)


def market_at(instant: datetime, seed: int = 7) -> tuple[Market, SteppedClock]:
    clock = SteppedClock(start=instant)
    return Market(seed=seed, clock=clock), clock
