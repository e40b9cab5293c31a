"""The policy's breakers as the agent obeys them: RUNNING, REDUCING (sells only), HALTED."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from ordergate.agent import AgentState, agent_states, breaker_state
from ordergate.core import SteppedClock
from ordergate.execution import trading_read
from ordergate.ledger import Ledger, open_ledger
from ordergate.policy import PolicyConfig

AT = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
ACCOUNT = "acct-1"


def _ledger(tmp_path: Path) -> Ledger:
    return open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=SteppedClock(start=AT))


def test_the_breakers_move_the_agent_between_running_reducing_and_halted(
    tmp_path: Path,
) -> None:
    policy = PolicyConfig(drawdown_halt_bps=1000, daily_loss_halt_usd=Decimal(250))
    with _ledger(tmp_path) as ledger:
        assert breaker_state(
            Decimal(10000), ledger=ledger, policy=policy, now=AT, account=ACCOUNT
        ).state is (AgentState.RUNNING)
        ledger.controls.set_high_water_mark(Decimal(10000), account=ACCOUNT)
        ledger.controls.set_session_start_equity("2026-12-01", Decimal(9100), account=ACCOUNT)
        clear = breaker_state(Decimal(9100), ledger=ledger, policy=policy, now=AT, account=ACCOUNT)
        assert clear.state is AgentState.RUNNING and clear.reasons == ()
        drawn = breaker_state(Decimal(9000), ledger=ledger, policy=policy, now=AT, account=ACCOUNT)
        assert drawn.state is AgentState.REDUCING
        assert [reason.split(":")[0] for reason in drawn.reasons] == ["drawdown"]
        lost = breaker_state(Decimal(8850), ledger=ledger, policy=policy, now=AT, account=ACCOUNT)
        assert [reason.split(":")[0] for reason in lost.reasons] == ["drawdown", "daily loss"]
        strict = PolicyConfig(reducing_exempt=False)
        assert breaker_state(
            Decimal(8850), ledger=ledger, policy=strict, now=AT, account=ACCOUNT
        ).state is (AgentState.HALTED)
        unknown = breaker_state(None, ledger=ledger, policy=policy, now=AT, account=ACCOUNT)
        assert unknown.state is AgentState.REDUCING and unknown.reasons == ("equity unknown",)
        ledger.controls.pause("test")
        paused = breaker_state(
            Decimal(10000), ledger=ledger, policy=policy, now=AT, account=ACCOUNT
        )
        assert paused.state is AgentState.HALTED and paused.reasons == ("paused",)


def test_the_agent_starts_each_market_day_where_the_guard_does_not_at_yesterdays_equity(
    tmp_path: Path,
) -> None:
    policy = PolicyConfig(drawdown_halt_bps=5000, daily_loss_halt_usd=Decimal(250))
    with _ledger(tmp_path) as ledger:
        ledger.controls.set_high_water_mark(Decimal(10000), account=ACCOUNT)
        # Yesterday's session started at 10000; today the account opens at 9000.
        ledger.controls.set_session_start_equity("2026-11-30", Decimal(10000), account=ACCOUNT)
        today = breaker_state(Decimal(9000), ledger=ledger, policy=policy, now=AT, account=ACCOUNT)
        assert today.state is AgentState.RUNNING and today.reasons == ()
        # The guard judges an order at that equity the same way: the breakers are its own.
        read = trading_read(ledger, policy, Decimal(9000), now=AT, account=ACCOUNT)
        assert (read.state, read.reasons) == ("active", ())
        lower = breaker_state(
            Decimal(9000), ledger=ledger, policy=policy, now=AT - timedelta(days=1), account=ACCOUNT
        )
        assert [reason.split(":")[0] for reason in lower.reasons] == ["daily loss"]


def test_a_ledger_with_no_marks_yet_lets_the_agent_run_as_the_guard_would(tmp_path: Path) -> None:
    with _ledger(tmp_path) as ledger:
        fresh = breaker_state(
            Decimal(5000), ledger=ledger, policy=PolicyConfig(), now=AT, account=ACCOUNT
        )
        assert fresh.state is AgentState.RUNNING


def test_status_lists_each_agents_latest_state_from_the_journal(tmp_path: Path) -> None:
    with _ledger(tmp_path) as ledger:
        ledger.journal.append(identity="a", kind="agent.decision", why="hold", detail={})
        ledger.journal.append(
            identity="a", kind="agent.decision", why="sell", detail={"state": "reducing"}
        )
        ledger.journal.append(identity="b", kind="pause", why="", detail={})
        states = agent_states(ledger)
        assert list(states) == ["a"] and states["a"]["state"] == "reducing"
        assert states["a"]["decision"] == "sell"


@pytest.mark.req("wall.breakers.per-account")
def test_one_accounts_drawdown_moves_its_agent_and_not_another_accounts_on_the_ledger(
    tmp_path: Path,
) -> None:
    policy = PolicyConfig(drawdown_halt_bps=1000, daily_loss_halt_usd=Decimal(250))
    other = "other-account"
    with _ledger(tmp_path) as ledger:
        ledger.controls.set_high_water_mark(Decimal(10000), account=ACCOUNT)
        ledger.controls.set_high_water_mark(Decimal(9000), account=other)
        for account in (ACCOUNT, other):
            ledger.controls.set_session_start_equity("2026-12-01", Decimal(9000), account=account)
        drawn = breaker_state(Decimal(9000), ledger=ledger, policy=policy, now=AT, account=ACCOUNT)
        clear = breaker_state(Decimal(9000), ledger=ledger, policy=policy, now=AT, account=other)
        read = trading_read(ledger, policy, Decimal(9000), now=AT, account=other)
    assert drawn.state is AgentState.REDUCING
    assert [reason.split(":")[0] for reason in drawn.reasons] == ["drawdown"]
    assert clear.state is AgentState.RUNNING and clear.reasons == ()
    assert (read.state, read.reasons) == ("active", ())
