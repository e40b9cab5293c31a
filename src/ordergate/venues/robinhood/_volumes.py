"""``MarketVolumes``: the ``VolumeSource`` of ``venues`` over the typed client's market data.

It reads the venue's historicals (``get_equity_historicals``, regular-session ``day`` bars),
as the sandbox venue serves its simulated market and the real upstream its own, and averages
the last ``ADV_SESSIONS`` closed sessions' volumes (today's bar, still in progress, and
interpolated bars are left out). Fewer closed sessions than that, or an upstream that does
not answer, is ``None`` (the check then refuses). A figure is kept for the rest of its New
York date (it cannot change before the next close); a failure is not kept.
"""

from __future__ import annotations

from datetime import UTC, date
from decimal import Decimal
from zoneinfo import ZoneInfo

from ordergate.client import ToolError
from ordergate.client.market import MarketClient
from ordergate.core import Bounds, Clock, Interval
from ordergate.venues._volumes import ADV_LOOKBACK, ADV_SESSIONS

__all__ = ["MarketVolumes"]

_NEW_YORK = ZoneInfo("America/New_York")


class MarketVolumes:
    """``VolumeSource`` over the market-data tools of ``market`` (upstream or sandbox)."""

    def __init__(self, market: MarketClient, *, clock: Clock) -> None:
        self._market = market
        self._clock = clock
        self._day: date | None = None
        self._known: dict[str, Decimal] = {}

    async def average_daily_volume(self, symbol: str) -> Decimal | None:
        now = self._clock.now()
        today = now.astimezone(_NEW_YORK).date()
        if self._day != today:
            self._day, self._known = today, {}
        known = self._known.get(symbol)
        if known is not None:
            return known
        try:
            answer = await self._market.historicals(
                [symbol],
                start_time=now - ADV_LOOKBACK,
                end_time=now,
                interval=Interval.DAY,
                bounds=Bounds.REGULAR,
            )
        except ToolError:
            return None
        volumes: list[int] = []
        for result in answer.results:
            if result.symbol != symbol:
                continue
            for bar in result.bars:
                if bar is None or bar.interpolated:
                    continue  # a day the venue has no trading for
                # A day bar is stamped with its session's date (as the grader reads closes).
                if bar.begins_at.astimezone(UTC).date() < today:
                    volumes.append(bar.volume)
        if len(volumes) < ADV_SESSIONS:
            return None
        recent = volumes[-ADV_SESSIONS:]
        average = Decimal(sum(recent)) / ADV_SESSIONS
        self._known[symbol] = average
        return average
