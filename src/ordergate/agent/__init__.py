"""The agent runtime: a paper-first trading agent that goes through the same wall.

::

    async with open_guard(settings, clock=clock) as running:
        agent = build_agent(running.guard, config, clock=clock)
        await agent.run(max_ticks=config.max_ticks, tick=..., wait=...)

An ``Agent`` is an identity with a strategy. Each tick reads its own market-session signal
from the calendar (``session_signal``), takes a ``Snapshot`` of the account through the
guard's reader, lets the policy's breakers set its state (``RUNNING``, ``REDUCING`` — sells
only — or ``HALTED``), asks the strategy for a ``Plan`` and submits every intent through
``Guard.submit``; every decision, a hold included, is journalled with its rationale and the
snapshot's digest. ``Rebalancer`` holds target weights within drift bands;
``LlmStrategist`` lets a model propose ``ProposedAction`` JSON (validated, the rest dropped).
"""

from ordergate.agent._book import Book, Holding, Reconciliation
from ordergate.agent._build import STRATEGIES, build_agent, model_for
from ordergate.agent._config import (
    AgentConfig,
    AgentConfigError,
    LlmConfig,
    RebalanceConfig,
    load_agent_config,
    parse_agent_config,
)
from ordergate.agent._digest import DigestSink, WebhookDigest
from ordergate.agent._intent import Intent, Plan
from ordergate.agent._kinds import DECISION, DIGEST, DROPPED, ORDER, RECONCILE
from ordergate.agent._llm import (
    AnthropicModel,
    LlmStrategist,
    Model,
    OpenAIModel,
    ProposedAction,
    ScriptedModel,
    read_actions,
    require_sdk,
)
from ordergate.agent._rebalance import Rebalancer
from ordergate.agent._runner import Agent, Strategy, Tick
from ordergate.agent._session import AgentSession, SessionSignal, allowed_hours, session_signal
from ordergate.agent._snapshot import Snapshot, take_snapshot
from ordergate.agent._state import AgentState, Breakers, agent_states, breaker_state
from ordergate.agent._why import filing_chain

__all__ = [
    "DECISION",
    "DIGEST",
    "DROPPED",
    "ORDER",
    "RECONCILE",
    "STRATEGIES",
    "Agent",
    "AgentConfig",
    "AgentConfigError",
    "AgentSession",
    "AgentState",
    "AnthropicModel",
    "Book",
    "Breakers",
    "DigestSink",
    "Holding",
    "Intent",
    "LlmConfig",
    "LlmStrategist",
    "Model",
    "OpenAIModel",
    "Plan",
    "ProposedAction",
    "RebalanceConfig",
    "Rebalancer",
    "Reconciliation",
    "ScriptedModel",
    "SessionSignal",
    "Snapshot",
    "Strategy",
    "Tick",
    "WebhookDigest",
    "agent_states",
    "allowed_hours",
    "breaker_state",
    "build_agent",
    "filing_chain",
    "load_agent_config",
    "model_for",
    "parse_agent_config",
    "read_actions",
    "require_sdk",
    "session_signal",
    "take_snapshot",
]
