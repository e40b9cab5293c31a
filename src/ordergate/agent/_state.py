"""``AgentState`` and ``breaker_state``: the policy's breakers as the agent obeys them.

The breakers are the policy's own (``drawdown_halt_bps`` below the high-water mark,
``daily_loss_halt_usd`` since the session started), measured on the marks the guard keeps in
the ledger, so the agent and the wall agree on when they trip. A tripped breaker moves the
agent to ``REDUCING`` (it plans sells only) when the policy lets reducing orders through
(``reducing_exempt``), else to ``HALTED``; a pause halts it at the next tick. With every
breaker clear it is ``RUNNING`` again.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from ordergate.agent._kinds import DECISION
from ordergate.ledger import Ledger
from ordergate.policy import PolicyConfig

__all__ = ["AGENT_STATES_LOOKED_AT", "AgentState", "Breakers", "agent_states", "breaker_state"]


class AgentState(StrEnum):
    RUNNING = "running"
    REDUCING = "reducing"
    HALTED = "halted"


@dataclass(frozen=True, slots=True)
class Breakers:
    state: AgentState
    reasons: tuple[str, ...]


def breaker_state(equity: Decimal | None, *, ledger: Ledger, policy: PolicyConfig) -> Breakers:
    """The state the breakers put the agent in at ``equity`` (unknown equity: no new buys)."""
    if ledger.controls.pause_state().paused:
        return Breakers(AgentState.HALTED, ("paused",))
    tripped: list[str] = []
    if equity is None:
        tripped.append("equity unknown")
    else:
        mark = ledger.controls.high_water_mark()
        if mark is not None and (
            mark <= 0 or (mark - equity) * 10000 >= policy.drawdown_halt_bps * mark
        ):
            tripped.append(
                f"drawdown: equity {equity} is {policy.drawdown_halt_bps} bps or more "
                f"below the high-water mark {mark}"
            )
        start = ledger.controls.session_start_equity()
        if start is not None and start.equity - equity >= policy.daily_loss_halt_usd:
            tripped.append(
                f"daily loss: equity {equity} is ${policy.daily_loss_halt_usd} or more "
                f"below the session's start {start.equity}"
            )
    if not tripped:
        return Breakers(AgentState.RUNNING, ())
    state = AgentState.REDUCING if policy.reducing_exempt else AgentState.HALTED
    return Breakers(state, tuple(tripped))


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
