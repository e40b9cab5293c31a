"""``build_agent``: the agent a configuration describes, over a guard."""

from __future__ import annotations

from ordergate.agent._config import AgentConfig
from ordergate.agent._rebalance import Rebalancer
from ordergate.agent._runner import Agent
from ordergate.core import Clock
from ordergate.execution import Guard

__all__ = ["STRATEGIES", "build_agent"]

STRATEGIES = ("rebalance",)


def build_agent(guard: Guard, config: AgentConfig, *, strategy: str, clock: Clock) -> Agent:
    """``strategy`` is one of ``STRATEGIES``; ``ValueError`` otherwise."""
    if strategy != "rebalance":
        raise ValueError(f"unknown strategy {strategy!r}: one of {', '.join(STRATEGIES)}")
    planner = Rebalancer(config.rebalance, max_order_usd=guard.policy.max_order_usd)
    return Agent(guard, planner, identity=config.identity, sessions=config.sessions, clock=clock)
