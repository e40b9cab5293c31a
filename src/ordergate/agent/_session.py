"""``session_signal``: the agent's own market-session signal, from the calendar and the
market clock — never inferred from how old the last quote is.

The agent names four sessions: ``regular``, ``extended`` (pre-market or after-hours),
``overnight`` and ``closed``; the signal carries the next regular open and close. Outside
the calendar's range the session is unknown and the agent treats it as closed (it never
trades on a guess). ``allowed_hours`` is the order's ``market_hours`` for a session that both
the agent's configuration and the policy allow (the narrowest the policy permits that
covers the session), else ``None``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from ordergate.calendar import OutOfCalendar, Session, market_session, next_session_start
from ordergate.core import MarketHours
from ordergate.policy import SESSION_COVERAGE, MarketSession, PolicyConfig

__all__ = ["AgentSession", "SessionSignal", "allowed_hours", "session_signal"]


class AgentSession(StrEnum):
    REGULAR = "regular"
    EXTENDED = "extended"
    OVERNIGHT = "overnight"
    CLOSED = "closed"


_OF_CALENDAR = {
    Session.REGULAR: AgentSession.REGULAR,
    Session.PRE_MARKET: AgentSession.EXTENDED,
    Session.AFTER_HOURS: AgentSession.EXTENDED,
    Session.OVERNIGHT: AgentSession.OVERNIGHT,
    Session.CLOSED: AgentSession.CLOSED,
}

_NARROWEST_FIRST = (
    MarketHours.REGULAR_HOURS,
    MarketHours.EXTENDED_HOURS,
    MarketHours.ALL_DAY_HOURS,
)


@dataclass(frozen=True, slots=True)
class SessionSignal:
    """The session at ``at``, as the calendar says (``calendar`` is its own name for it, or
    ``None`` outside its range), and the next regular open and close after ``at``."""

    at: datetime
    session: AgentSession
    calendar: MarketSession | None
    next_open: datetime | None
    next_close: datetime | None

    def as_json(self) -> dict[str, str | None]:
        return {
            "at": self.at.isoformat(),
            "session": self.session.value,
            "next_open": None if self.next_open is None else self.next_open.isoformat(),
            "next_close": None if self.next_close is None else self.next_close.isoformat(),
        }


def session_signal(at: datetime) -> SessionSignal:
    """The signal at ``at`` (the market clock's now)."""
    try:
        current = market_session(at)
    except OutOfCalendar:
        return SessionSignal(at, AgentSession.CLOSED, None, None, None)
    next_open = next_session_start(at, [Session.REGULAR])
    if current is Session.REGULAR:
        next_close = next_session_start(
            at, [Session.AFTER_HOURS, Session.CLOSED, Session.OVERNIGHT]
        )
    else:
        next_close = None
    return SessionSignal(
        at, _OF_CALENDAR[current], MarketSession(current.value), next_open, next_close
    )


def allowed_hours(
    signal: SessionSignal, *, wanted: Collection[str], policy: PolicyConfig
) -> MarketHours | None:
    """The ``market_hours`` an order placed now would carry, when the agent (``wanted``)
    and the policy both allow trading in ``signal``'s session; ``None`` otherwise."""
    if signal.session is AgentSession.CLOSED or signal.session.value not in wanted:
        return None
    assert signal.calendar is not None
    for hours in _NARROWEST_FIRST:
        if hours in policy.sessions and signal.calendar in SESSION_COVERAGE[hours]:
            return hours
    return None
