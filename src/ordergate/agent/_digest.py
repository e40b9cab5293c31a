"""The daily digest: one agent's market day — positions, P&L, decisions, orders, refusals —
sent when the agent's first tick of the next market day runs.

``DayTally`` counts a day's ticks as they happen; ``WebhookDigest`` POSTs the digest as JSON
to the approval webhook (``ORDERGATE_APPROVAL_WEBHOOK``). The body names the identity, never
a token or an account number. A webhook that fails or is slow is logged and skipped: the
journal holds every decision either way.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

import httpx2

from ordergate.calendar import NEW_YORK
from ordergate.core import to_wire

__all__ = ["DayTally", "DigestSink", "WebhookDigest"]

logger = logging.getLogger(__name__)
TIMEOUT_S = 5.0

DigestSink = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass
class DayTally:
    day: date
    identity: str
    first_equity: Decimal | None = None
    last_equity: Decimal | None = None
    positions: dict[str, str] = field(default_factory=dict)
    decisions: int = 0
    holds: int = 0
    orders: int = 0
    refusals: list[str] = field(default_factory=list)
    dropped: int = 0

    def digest(self) -> dict[str, Any]:
        pnl = (
            None
            if self.first_equity is None or self.last_equity is None
            else to_wire(self.last_equity - self.first_equity)
        )
        return {
            "event": "agent_daily_digest",
            "identity": self.identity,
            "day": self.day.isoformat(),
            "equity": None if self.last_equity is None else to_wire(self.last_equity),
            "pnl": pnl,
            "positions": dict(sorted(self.positions.items())),
            "decisions": self.decisions,
            "holds": self.holds,
            "orders": self.orders,
            "refusals": list(self.refusals),
            "dropped": self.dropped,
        }


def market_day(instant: Any) -> date:
    """The New York date of ``instant`` (an aware datetime)."""
    return instant.astimezone(NEW_YORK).date()  # type: ignore[no-any-return]


class WebhookDigest:
    def __init__(self, url: str, *, timeout_s: float = TIMEOUT_S) -> None:
        self._url = url
        self._timeout_s = timeout_s

    def __repr__(self) -> str:
        return "WebhookDigest(url=<configured>)"

    async def __call__(self, digest: dict[str, Any]) -> None:
        try:
            async with httpx2.AsyncClient(timeout=self._timeout_s) as http:
                response = await http.post(self._url, json=digest)
            if response.status_code >= 300:
                logger.warning("digest webhook answered HTTP %s", response.status_code)
        except httpx2.HTTPError as error:
            logger.warning("digest webhook failed: %s", type(error).__name__)
