"""The policy's breakers as the agent obeys them: RUNNING, REDUCING (sells only), HALTED."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from ordergate.agent import AgentState, agent_states, breaker_state
from ordergate.core import SteppedClock
from ordergate.ledger import Ledger, open_ledger
from ordergate.policy import PolicyConfig

AT = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def _ledger(tmp_path: Path) -> Ledger:
    return open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=SteppedClock(start=AT))


def test_the_breakers_move_the_agent_between_running_reducing_and_halted(
    tmp_path: Path,
) -> None:
    policy = PolicyConfig(drawdown_halt_bps=1000, daily_loss_halt_usd=Decimal(250))
    with _ledger(tmp_path) as ledger:
        assert breaker_state(Decimal(10000), ledger=ledger, policy=policy).state is (
            AgentState.RUNNING
        )
        ledger.controls.set_high_water_mark(Decimal(10000))
        ledger.controls.set_session_start_equity("2026-12-01", Decimal(9100))
        clear = breaker_state(Decimal(9100), ledger=ledger, policy=policy)
        assert clear.state is AgentState.RUNNING and clear.reasons == ()
        drawn = breaker_state(Decimal(9000), ledger=ledger, policy=policy)
        assert drawn.state is AgentState.REDUCING
        assert [reason.split(":")[0] for reason in drawn.reasons] == ["drawdown"]
        lost = breaker_state(Decimal(8850), ledger=ledger, policy=policy)
        assert [reason.split(":")[0] for reason in lost.reasons] == ["drawdown", "daily loss"]
        strict = PolicyConfig(reducing_exempt=False)
        assert breaker_state(Decimal(8850), ledger=ledger, policy=strict).state is (
            AgentState.HALTED
        )
        unknown = breaker_state(None, ledger=ledger, policy=policy)
        assert unknown.state is AgentState.REDUCING and unknown.reasons == ("equity unknown",)
        ledger.controls.pause("test")
        paused = breaker_state(Decimal(10000), ledger=ledger, policy=policy)
        assert paused.state is AgentState.HALTED and paused.reasons == ("paused",)


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
