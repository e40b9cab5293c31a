"""Fault knobs: what a test can make the venue do wrong, on purpose.

Counters count down per request, so a test says exactly which request fails.
``unlisted_tools`` leaves those tools out of ``tools/list`` and answers a call to one as to
an unknown tool (an account the MCP does not offer them to: crypto orders before the
account is enabled for agentic crypto, say). The rate limit
counts calls per second of *venue* time, so a stepped clock makes it deterministic.
``quote_lag_s`` (``{"SPY": 16}``) answers a symbol's equity quote (``get_equity_quotes`` and a
review's ``quote_data``) as it stood that many seconds behind the venue clock, stamps and all:
a feed that has fallen behind, for the wall's ``stale_quote``. Orders still fill at the
venue's current prices; ``0`` puts the symbol back in step.
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
    quote_lag_s: dict[str, int] = field(default_factory=dict)
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
            "quote_lag_s",
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
            elif key == "quote_lag_s":
                self.quote_lag_s = _lags(key, value, self.quote_lag_s)
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
        state["quote_lag_s"] = dict(sorted(self.quote_lag_s.items()))
        return state

    def quote_instant(self, symbol: str, now: datetime) -> datetime:
        """The instant whose quote of ``symbol`` the venue answers at ``now``."""
        lag = self.quote_lag_s.get(symbol.upper())
        return now if lag is None else now - timedelta(seconds=lag)

    @staticmethod
    def take(counter: int) -> tuple[bool, int]:
        """(fires now, counter after)."""
        return (True, counter - 1) if counter > 0 else (False, 0)


def _lags(key: str, value: Any, current: dict[str, int]) -> dict[str, int]:
    """``current`` with ``value``'s symbols set to their lag (``0`` drops the symbol)."""
    if not isinstance(value, dict):
        raise ConfigError(key, "must be an object of symbol: seconds behind the venue clock")
    lags = dict(current)
    for symbol, seconds in value.items():
        if not isinstance(symbol, str) or not symbol.strip():
            raise ConfigError(key, "each key must be a symbol")
        lag = _whole(f"{key}.{symbol}", seconds)
        if lag:
            lags[symbol.strip().upper()] = lag
        else:
            lags.pop(symbol.strip().upper(), None)
    return lags


def _whole(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(key, "must be a non-negative whole number")
    return value
