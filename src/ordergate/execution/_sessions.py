"""The market session from the NYSE calendar, as the policy engine names it.

Outside the calendar's covered range the session cannot be told: ``None``, and the engine
refuses with ``missing_data:session`` (fail closed).
"""

from __future__ import annotations

from datetime import datetime

from ordergate.policy import MarketSession

__all__ = ["calendar_session"]


def calendar_session(instant: datetime) -> MarketSession | None:
    """The session at ``instant`` (``regular``, ``pre_market`` … ``closed``), or ``None``."""
    from ordergate.calendar import OutOfCalendar, market_session

    try:
        return MarketSession(market_session(instant).value)
    except OutOfCalendar:
        return None
