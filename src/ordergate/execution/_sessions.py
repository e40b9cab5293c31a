"""The market session from the NYSE calendar, as the policy engine names it.

Outside the calendar's covered range the session cannot be told: ``None``, and the engine
refuses with ``missing_data:session`` (fail closed).
"""

from __future__ import annotations

from datetime import datetime

from ordergate.core import MarketHours
from ordergate.policy import SESSION_COVERAGE, MarketSession

__all__ = ["calendar_session", "next_open_for", "paper_session"]


def calendar_session(instant: datetime) -> MarketSession | None:
    """The session at ``instant`` (``regular``, ``pre_market`` … ``closed``), or ``None``."""
    from ordergate.calendar import OutOfCalendar, market_session

    try:
        return MarketSession(market_session(instant).value)
    except OutOfCalendar:
        return None


def paper_session(instant: datetime) -> MarketSession:
    """The session the paper book fills in: outside the calendar it is closed, so orders rest
    rather than fill at a price no check has seen."""
    return calendar_session(instant) or MarketSession.CLOSED


def next_open_for(instant: datetime, hours: MarketHours) -> datetime | None:
    """When the next session an order for ``hours`` may trade in opens after ``instant`` (by
    the NYSE calendar), or ``None`` past the calendar's range."""
    from ordergate.calendar import Session, next_session_start

    sessions = [Session(session.value) for session in SESSION_COVERAGE[hours]]
    return next_session_start(instant, sessions)
