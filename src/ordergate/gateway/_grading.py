"""The grader inside ``serve``: a background task on the gateway's loop (beside the guard's
reconciler), a bounded pass every ``GRADE_EVERY_S`` seconds.

With one owner session (owner custody, or the embedded sandbox) the closes come from that
session's market-data tools. With sealed custody there is no session of the gateway's own
to read them with, so nothing is graded in the background: ``ordergate record grade`` grades
on demand, signed in as the owner.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ordergate.calendar import NyseCalendar
from ordergate.core import Clock, command_hint
from ordergate.record import Grader, MarketCloses

if TYPE_CHECKING:
    from ordergate.gateway._serve import Serving

__all__ = ["GRADE_EVERY_S", "serving_grader"]

logger = logging.getLogger(__name__)

GRADE_EVERY_S = 300.0


def serving_grader(serving: Serving, clock: Clock) -> Grader | None:
    """The grader for a gateway serving ``serving``, or ``None`` (said in the log) when it
    has no session of its own to read closes with."""
    running, ledger = serving.running, serving.ledger
    if running is None or ledger is None:
        logger.info(
            "the graded record: no owner session to read closes with; `%s` grades on demand",
            command_hint("record grade"),
        )
        return None
    calendar = NyseCalendar()
    closes = MarketCloses(running.upstream.rh.market, calendar=calendar, clock=clock)
    return Grader(ledger, closes, clock=clock, calendar=calendar)
