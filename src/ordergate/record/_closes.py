"""Where closes come from: the ``Closes`` protocol, and ``MarketCloses`` on the upstream's
market-data tools (``get_equity_historicals`` through the typed client), which the sandbox
venue serves from its simulated market as the real upstream serves its own.

A close is the ``close_price`` of the symbol's regular-session ``day`` bar for that date,
asked for only once that session has closed (a bar in progress closes at *now*).

A price at an instant is the last price at that instant: the ``close_price`` of the finest
bars the upstream serves (``15second``, 24/5 bounds) asked to end at the instant, taken from
the bar that holds it. The upstream cuts the bar in progress at ``end_time`` (the sandbox
venue closes it at exactly that instant's price), so this is the price at the fill, not the
open of a bar that began minutes earlier. Anything missing — no bar, an interpolated one, a
bar of another day or not holding the instant, a session not yet closed — is ``None``,
"not yet": the grader never guesses a price.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Protocol

from ordergate.calendar import NyseCalendar
from ordergate.client.market import MarketClient
from ordergate.core import Bounds, Clock, Interval

__all__ = ["Closes", "MarketCloses"]

_FINEST = timedelta(seconds=15)


class Closes(Protocol):
    """Prices the grader needs; ``None`` means not known (yet), never an estimate."""

    async def close(self, symbol: str, day: date) -> Decimal | None:
        """The regular-session close of ``symbol`` on session day ``day``."""
        ...

    async def price_at(self, symbol: str, instant: datetime) -> Decimal | None:
        """``symbol``'s price at ``instant`` (the benchmark's price when a fill happened)."""
        ...


class MarketCloses:
    """``Closes`` from the market-data tools of ``market`` (upstream or sandbox). Raises
    what the client raises (``ToolError``) when the upstream cannot answer."""

    def __init__(self, market: MarketClient, *, calendar: NyseCalendar, clock: Clock) -> None:
        self._market = market
        self._calendar = calendar
        self._clock = clock

    async def close(self, symbol: str, day: date) -> Decimal | None:
        session = self._calendar.trading_day(day)
        if self._clock.now() < session.regular_close:
            return None
        answer = await self._market.historicals(
            [symbol],
            start_time=session.regular_open,
            end_time=session.regular_close + timedelta(minutes=1),
            interval=Interval.DAY,
            bounds=Bounds.REGULAR,
        )
        for result in answer.results:
            if result.symbol != symbol:
                continue
            for bar in result.bars:
                if bar is None or bar.interpolated:
                    continue
                if bar.begins_at.astimezone(UTC).date() == day:
                    return bar.close_price
        return None

    async def price_at(self, symbol: str, instant: datetime) -> Decimal | None:
        answer = await self._market.historicals(
            [symbol],
            start_time=instant - _FINEST,
            end_time=instant,
            interval=Interval.SECOND_15,
            bounds=Bounds.H24_5,
        )
        holding: Decimal | None = None
        for result in answer.results:
            if result.symbol != symbol:
                continue
            for bar in result.bars:
                if bar is None or bar.interpolated:
                    continue
                # The bar ending at the instant: it began less than one bar before it.
                if instant - _FINEST <= bar.begins_at < instant:
                    holding = bar.close_price
        return holding
