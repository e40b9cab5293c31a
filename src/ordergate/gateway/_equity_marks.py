"""The equity curve's periodic marks inside ``serve``: a background task on the gateway's loop
(beside the grader and the guard's reconciler), one pass every ``EQUITY_EVERY_S`` seconds.

A pass reads the account as the guard reads it (the paper book or the broker) and marks its
equity on the ledger, unless the account already has a mark within the interval (so one
mark per account per interval at most, whichever of this pass or an order wrote it). An
equity that could not be read is not marked: nothing is ever defaulted. With sealed custody
there is no guard of the gateway's own to read with, so only orders mark the curve.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING

import anyio

from ordergate.execution import Guard
from ordergate.store import blocking

if TYPE_CHECKING:
    from ordergate.gateway._serve import Serving

__all__ = ["EQUITY_EVERY_S", "EquityMarker", "serving_marker"]

logger = logging.getLogger(__name__)

EQUITY_EVERY_S = 300.0


class EquityMarker:
    """Marks the guard's account's equity, at most once every ``every`` seconds of the
    record's time (the ledger's clock: wall time in a run, whatever the market's says)."""

    def __init__(self, guard: Guard, *, every: float) -> None:
        if every <= 0:
            raise ValueError("every: the interval must be positive")
        self._guard = guard
        self._every = every

    async def run_once(self) -> bool:
        """One pass: whether a mark was written (not when the equity could not be read)."""
        guard = self._guard
        try:
            view = await guard.reader.read(guard.account, None)
        except Exception as error:  # a failed read marks nothing
            logger.warning("reading the equity to mark failed: %s", type(error).__name__)
            return False
        if view.equity is None:
            return False
        return await blocking(
            guard.ledger.equity.record,
            guard.account,
            view.equity,
            source="paper" if guard.paper else "broker",
            every=timedelta(seconds=self._every),
            at=guard.ledger.now(),
        )

    async def run_forever(self, *, pause: Callable[[float], Awaitable[None]] = anyio.sleep) -> None:
        """Pass after pass, ``every`` seconds apart, until cancelled; a failed pass is logged
        and the next one tried."""
        while True:
            try:
                await self.run_once()
            except Exception:
                logger.exception("an equity marking pass failed")
            await pause(self._every)


def serving_marker(serving: Serving, every: float) -> EquityMarker | None:
    """The marker for a gateway serving ``serving``, or ``None`` (said in the log) when it has
    no guard of its own (sealed custody)."""
    if serving.running is None:
        logger.info("the equity curve: marked by orders only (each connection has its own guard)")
        return None
    return EquityMarker(serving.running.guard, every=every)
