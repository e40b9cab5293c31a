"""The agent's own session signal, from the calendar and the market clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ordergate.agent import AgentSession, allowed_hours, session_signal
from ordergate.core import MarketHours
from ordergate.policy import PolicyConfig

REGULAR = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)  # Tuesday 10:00 New York
PRE_MARKET = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # 07:00
OVERNIGHT = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)  # 01:00
CHRISTMAS = datetime(2026, 12, 25, 16, 0, tzinfo=UTC)  # a holiday, 11:00


@pytest.mark.parametrize(
    ("at", "session"),
    [
        (REGULAR, AgentSession.REGULAR),
        (PRE_MARKET, AgentSession.EXTENDED),
        (OVERNIGHT, AgentSession.OVERNIGHT),
        (CHRISTMAS, AgentSession.CLOSED),
    ],
)
def test_the_signal_names_the_session_the_calendar_says(
    at: datetime, session: AgentSession
) -> None:
    assert session_signal(at).session is session


def test_in_the_regular_session_the_signal_carries_todays_close_and_the_next_open() -> None:
    signal = session_signal(REGULAR)
    assert signal.next_close == datetime(2026, 12, 1, 21, 0, tzinfo=UTC)
    assert signal.next_open == datetime(2026, 12, 2, 14, 30, tzinfo=UTC)
    assert signal.as_json()["session"] == "regular"


def test_on_a_holiday_the_next_open_is_the_next_session_day() -> None:
    signal = session_signal(CHRISTMAS)
    assert signal.next_close is None
    assert signal.next_open == datetime(2026, 12, 28, 14, 30, tzinfo=UTC)


def test_outside_the_calendar_the_session_is_closed_never_guessed() -> None:
    signal = session_signal(datetime(2040, 1, 2, 15, 0, tzinfo=UTC))
    assert signal.session is AgentSession.CLOSED and signal.calendar is None
    assert signal.as_json()["next_open"] is None


def test_an_order_carries_the_narrowest_hours_both_the_agent_and_the_policy_allow() -> None:
    regular_only = PolicyConfig()
    extended = PolicyConfig(sessions=frozenset({MarketHours.EXTENDED_HOURS}))
    wanted = {"regular", "extended"}
    assert allowed_hours(session_signal(REGULAR), wanted=wanted, policy=regular_only) is (
        MarketHours.REGULAR_HOURS
    )
    assert allowed_hours(session_signal(REGULAR), wanted=wanted, policy=extended) is (
        MarketHours.EXTENDED_HOURS
    )
    assert allowed_hours(session_signal(PRE_MARKET), wanted=wanted, policy=regular_only) is None
    assert allowed_hours(session_signal(PRE_MARKET), wanted={"regular"}, policy=extended) is None
    assert allowed_hours(session_signal(CHRISTMAS), wanted=wanted, policy=extended) is None
