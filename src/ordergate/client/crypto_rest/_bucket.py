"""The client's own rate limit: a token bucket on an injected clock.

Robinhood's Crypto Trading API allows 100 requests a minute per account, in bursts of up to
300. The client holds itself to that before it sends (a 429 still ends in an error, and
empties the bucket), so a busy agent waits its turn instead of being refused.

The bucket starts full (``burst`` tokens) and refills at ``per_minute / 60`` tokens a second.
``take`` either takes a token (answer 0) or says how many seconds until one is there; it
never waits itself, so the caller's wait is bounded and its clock is the one injected.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["BURST", "PER_MINUTE", "TokenBucket"]

PER_MINUTE = 100
BURST = 300


class TokenBucket:
    """``now`` is a monotonic clock in seconds (``time.monotonic`` in a run)."""

    __slots__ = ("_at", "_now", "_rate", "_tokens", "burst")

    def __init__(
        self, now: Callable[[], float], *, per_minute: int = PER_MINUTE, burst: int = BURST
    ) -> None:
        if per_minute < 1 or burst < 1:
            raise ValueError("per_minute and burst must be at least 1")
        self._now = now
        self._rate = per_minute / 60
        self.burst = burst
        self._tokens = float(burst)
        self._at = now()

    def _refill(self) -> None:
        now = self._now()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self._rate)
        self._at = now

    @property
    def tokens(self) -> float:
        self._refill()
        return self._tokens

    def take(self) -> float:
        """Take one token (answer ``0.0``), or the seconds until one will be there."""
        self._refill()
        if self._tokens >= 1:
            self._tokens -= 1
            return 0.0
        return (1 - self._tokens) / self._rate

    def drain(self) -> None:
        """Empty the bucket (the venue said 429: it counts differently from us)."""
        self._refill()
        self._tokens = 0.0
