"""``AgentState`` and ``breaker_state``: the policy's breakers as the agent obeys them.

The breakers are the policy's own (``drawdown_halt_bps`` below the high-water mark,
``daily_loss_halt_usd`` since the session started), judged by the guard's own read
(``ordergate.execution.trading_read``: the policy's checks on the marks a decision at that
equity would see), so the agent and the wall agree on when they trip. A tripped breaker moves
the agent to ``REDUCING`` (it plans sells only) when the policy lets reducing orders through
(``reducing_exempt``), else to ``HALTED``; unknown equity is treated as tripped (no new
buys); a pause halts it at the next tick. With every breaker clear it is ``RUNNING`` again.
A tripped breaker it reads is noted (``note_trip``), so the guard's cooldown after a breaker
(``[cooldown] minutes``) counts from it as from a refused order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from ordergate.agent._kinds import DECISION
from ordergate.execution import note_trip, trading_read
from ordergate.ledger import Ledger
from ordergate.policy import PolicyConfig, ReasonCode

__all__ = ["AGENT_STATES_LOOKED_AT", "AgentState", "Breakers", "agent_states", "breaker_state"]


class AgentState(StrEnum):
    RUNNING = "running"
    REDUCING = "reducing"
    HALTED = "halted"


@dataclass(frozen=True, slots=True)
class Breakers:
    state: AgentState
    reasons: tuple[str, ...]


def breaker_state(
    equity: Decimal | None, *, ledger: Ledger, policy: PolicyConfig, now: datetime, account: str
) -> Breakers:
    """The state the breakers put the agent in at ``equity`` and ``now`` (unknown equity:
    no new buys); a tripped breaker is noted on ``account``."""
    if ledger.controls.pause_state().paused:
        return Breakers(AgentState.HALTED, ("paused",))
    read = trading_read(ledger, policy, equity, now=now, account=account)
    if read.state == "active":
        return Breakers(AgentState.RUNNING, ())
    # A breaker the agent obeys is one tripped: the cooldown after it counts from now.
    note_trip(ledger, policy, read.reasons, at=now, account=account)
    tripped = tuple(_said(code, equity, policy) for code in read.reasons) or ("equity unknown",)
    state = AgentState.REDUCING if policy.reducing_exempt else AgentState.HALTED
    return Breakers(state, tripped)


def _said(code: ReasonCode, equity: Decimal | None, policy: PolicyConfig) -> str:
    if code is ReasonCode.DRAWDOWN_HALT:
        bps = policy.drawdown_halt_bps
        return f"drawdown: equity {equity} is {bps} bps or more below the high-water mark"
    if code is ReasonCode.DAILY_LOSS_HALT:
        usd = policy.daily_loss_halt_usd
        return f"daily loss: equity {equity} is ${usd} or more below the session's start"
    return code.value


AGENT_STATES_LOOKED_AT = 1000
"""How many of the journal's latest entries ``agent_states`` reads (bounded, never the
whole history)."""


def agent_states(ledger: Ledger) -> dict[str, dict[str, str]]:
    """Each agent identity's state at its latest tick, as the journal records it: ``state``
    (``running``, ``reducing``, ``halted``), ``at`` and the ``decision``. An agent whose last
    tick is older than the journal's latest ``AGENT_STATES_LOOKED_AT`` entries is not listed."""
    latest: dict[str, dict[str, str]] = {}
    for entry in ledger.journal.entries(limit=AGENT_STATES_LOOKED_AT):
        if entry.kind == DECISION:
            latest[entry.identity] = {
                "state": str(entry.detail.get("state", "unknown")),
                "at": entry.created_at.isoformat(),
                "decision": entry.why,
            }
    return dict(sorted(latest.items()))
