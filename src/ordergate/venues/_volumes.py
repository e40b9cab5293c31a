"""``VolumeSource``: a symbol's recent average daily volume, for the policy's ``size_vs_adv``.

The guard asks it only when the policy sets ``max_adv_pct``. The figure is the average, in
shares (exact ``Decimal``), of the symbol's regular-session day volumes over its last
``ADV_SESSIONS`` closed sessions (today's, still in progress, left out), read from the venue's
historicals over ``ADV_LOOKBACK``; ``None`` when the venue cannot tell it (fewer closed
sessions, no answer): the check then refuses, never guesses. ``venues.robinhood`` answers it
from the typed client (``MarketVolumes``).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Protocol

__all__ = ["ADV_LOOKBACK", "ADV_SESSIONS", "VolumeSource"]

ADV_SESSIONS = 20
"""How many closed sessions the average daily volume is taken over (about a month)."""

ADV_LOOKBACK = timedelta(days=ADV_SESSIONS * 7 // 5 + 10)
"""The span of day bars asked for: calendar days that surely hold ``ADV_SESSIONS`` sessions
(weekends, and the longest run of holidays between them)."""


class VolumeSource(Protocol):
    async def average_daily_volume(self, symbol: str) -> Decimal | None:
        """``symbol``'s average daily volume in shares, or ``None`` when it is not known."""
        ...
