"""Fault knobs: what a test can make the venue do wrong, on purpose.

Counters count down per request, so a test says exactly which request fails.
``unlisted_tools`` leaves those tools out of ``tools/list`` and answers a call to one as to
an unknown tool (an account the MCP does not offer them to: crypto orders before the
account is enabled for agentic crypto, say). The rate limit
counts calls per second of *venue* time, so a stepped clock makes it deterministic.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ordergate.core import ConfigError

__all__ = ["Faults", "RateLimiter"]


class RateLimiter:
    """At most ``per_second`` tool calls in any one-second window of venue time."""

    def __init__(self, per_second: int) -> None:
        if per_second <= 0:
            raise ConfigError("rate_limit_per_s", "must be a positive whole number")
        self.per_second = per_second
        self._calls: deque[datetime] = deque()

    def allow(self, now: datetime) -> bool:
        window_start = now - timedelta(seconds=1)
        while self._calls and self._calls[0] <= window_start:
            self._calls.popleft()
        if len(self._calls) >= self.per_second:
            return False
        self._calls.append(now)
        return True


@dataclass
class Faults:
    latency_ms: int = 0
    http_error_status: int = 503
    http_errors: int = 0
    drop_before: int = 0
    drop_after: int = 0
    malformed_sse: int = 0
    reject_orders: int = 0
    reject_reason: str = "Order rejected by the venue (simulated)."
    rate_limiter: RateLimiter | None = None
    unlisted_tools: frozenset[str] = frozenset()
    _fields: tuple[str, ...] = field(
        default=(
            "latency_ms",
            "http_error_status",
            "http_errors",
            "drop_before",
            "drop_after",
            "malformed_sse",
            "reject_orders",
            "reject_reason",
            "rate_limit_per_s",
            "unlisted_tools",
        ),
        repr=False,
    )

    def update(self, changes: dict[str, Any]) -> None:
        """Apply knob changes by name; unknown knobs and bad values are refused by name."""
        for key, value in changes.items():
            if key not in self._fields:
                raise ConfigError(key, f"unknown fault knob (known: {', '.join(self._fields)})")
            if key == "reject_reason":
                if not isinstance(value, str) or not value:
                    raise ConfigError(key, "must be a non-empty string")
                self.reject_reason = value
            elif key == "unlisted_tools":
                if not isinstance(value, list) or not all(
                    isinstance(name, str) and name for name in value
                ):
                    raise ConfigError(key, "must be a list of tool names")
                self.unlisted_tools = frozenset(value)
            elif key == "rate_limit_per_s":
                self.rate_limiter = None if value in (None, 0) else RateLimiter(_whole(key, value))
            else:
                number = _whole(key, value)
                if key == "http_error_status" and not 400 <= number <= 599:
                    raise ConfigError(key, "must be an HTTP error status (400-599)")
                setattr(self, key, number)

    def snapshot(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            k: getattr(self, k) for k in self._fields if k != "rate_limit_per_s"
        }
        state["rate_limit_per_s"] = self.rate_limiter.per_second if self.rate_limiter else None
        state["unlisted_tools"] = sorted(self.unlisted_tools)
        return state

    @staticmethod
    def take(counter: int) -> tuple[bool, int]:
        """(fires now, counter after)."""
        return (True, counter - 1) if counter > 0 else (False, 0)


def _whole(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(key, "must be a non-negative whole number")
    return value
