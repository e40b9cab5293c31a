"""Injected clocks: every rule that depends on time reads one of these, never ``datetime.now``.

- ``RealtimeClock``: wall time.
- ``AcceleratedClock``: starts at a chosen instant and runs ``speed`` times faster than wall time.
- ``SteppedClock``: stands still until a test moves it (``advance`` / ``set``).

All return timezone-aware UTC datetimes.

A run has two clocks, kept apart (``Clocks``):

- the **market** clock (``MarketClock``) moves the venue, sessions, quote ages and an
  order's market day; a sandbox run may put it anywhere in time;
- the **security** clock (``SecurityClock``) times token and code expiry, TOTP, caller
  tokens, approval time-to-live and rate-limit windows, and is the record's clock: the
  ledger stamps every filing, approval, control, equity mark and journal entry on it and
  counts its windows in it. In a run it is always the wall clock, so a token minted by
  ``ordergate token mint`` means the same to every gateway. Tests may give it a stepped
  source to move security time on purpose.

The two are distinct types: a market clock cannot be passed where a security clock is
wanted (or the reverse) without saying so, and wiring names which one each part gets.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Protocol, runtime_checkable

__all__ = [
    "AcceleratedClock",
    "Clock",
    "ClockMode",
    "Clocks",
    "MarketClock",
    "RealtimeClock",
    "SecurityClock",
    "SteppedClock",
    "make_clock",
    "market_speed",
    "utc",
]


def utc(value: datetime) -> datetime:
    """The same instant in UTC; a naive datetime is refused rather than guessed."""
    if value.tzinfo is None:
        raise ValueError("naive datetime: give a timezone")
    return value.astimezone(UTC)


class ClockMode(StrEnum):
    REALTIME = "realtime"
    ACCELERATED = "accelerated"
    STEPPED = "stepped"


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...


class RealtimeClock:
    """Wall-clock time."""

    mode = ClockMode.REALTIME

    def now(self) -> datetime:
        return datetime.now(UTC)


class AcceleratedClock:
    """Runs ``speed`` times faster than wall time from ``start``."""

    mode = ClockMode.ACCELERATED

    def __init__(self, *, start: datetime, speed: Decimal = Decimal(60)) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._start = utc(start)
        self._speed = speed
        self._origin_ns = time.monotonic_ns()

    @property
    def speed(self) -> Decimal:
        """How many times faster than wall time it runs."""
        return self._speed

    def now(self) -> datetime:
        elapsed_ns = Decimal(time.monotonic_ns() - self._origin_ns) * self._speed
        return self._start + timedelta(microseconds=int(elapsed_ns / 1000))


class SteppedClock:
    """Stands still until moved; thread-safe so a test thread can step a server thread's clock
    (a move is one locked read-modify-write; reading the instant is one attribute load, which
    is atomic, so ``now`` takes no lock: a server reads it on every request)."""

    mode = ClockMode.STEPPED

    def __init__(self, *, start: datetime) -> None:
        self._now = utc(start)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        if delta < timedelta(0):
            raise ValueError("a clock never runs backwards")
        with self._lock:
            self._now += delta
            return self._now

    def set(self, instant: datetime) -> datetime:
        instant = utc(instant)
        with self._lock:
            if instant < self._now:
                raise ValueError("a clock never runs backwards")
            self._now = instant
            return self._now


def make_clock(
    mode: ClockMode, *, start: datetime | None = None, speed: Decimal = Decimal(60)
) -> RealtimeClock | AcceleratedClock | SteppedClock:
    """Build a clock; ``start`` defaults to now for accelerated and stepped clocks. A realtime
    clock given a ``start`` runs at wall speed from that instant (a market elsewhere in time,
    at the pace of a real one)."""
    if mode is ClockMode.REALTIME:
        if start is not None:
            return AcceleratedClock(start=start, speed=Decimal(1))
        return RealtimeClock()
    origin = utc(start) if start is not None else datetime.now(UTC)
    if mode is ClockMode.ACCELERATED:
        return AcceleratedClock(start=origin, speed=speed)
    return SteppedClock(start=origin)


class MarketClock:
    """The market's time: the venue, sessions, quote ages, an order's day. Wraps ``source``
    (wall time by default; a sandbox run's simulated clock)."""

    __slots__ = ("source",)

    def __init__(self, source: Clock | None = None) -> None:
        self.source: Clock = source if source is not None else RealtimeClock()

    def now(self) -> datetime:
        return self.source.now()

    def __repr__(self) -> str:
        return f"MarketClock({type(self.source).__name__})"


class SecurityClock:
    """Security time: token, code and approval expiry, TOTP, rate-limit windows, and the
    ledger's record. Wall time unless a test gives it another ``source``; never a run's
    simulated market."""

    __slots__ = ("source",)

    def __init__(self, source: Clock | None = None) -> None:
        self.source: Clock = source if source is not None else RealtimeClock()

    def now(self) -> datetime:
        return self.source.now()

    def __repr__(self) -> str:
        return f"SecurityClock({type(self.source).__name__})"


def market_speed(clock: Clock) -> Decimal:
    """How many times faster than wall time ``clock`` (a market's) runs: an accelerated
    clock's speed, else 1 (a stepped clock moves only when told, so it has no speed of its
    own)."""
    if isinstance(clock, MarketClock):
        clock = clock.source
    return clock.speed if isinstance(clock, AcceleratedClock) else Decimal(1)


@dataclass(frozen=True, slots=True)
class Clocks:
    """A run's two clocks: ``market`` (may be simulated) and ``security`` (wall time)."""

    market: MarketClock = field(default_factory=MarketClock)
    security: SecurityClock = field(default_factory=SecurityClock)
