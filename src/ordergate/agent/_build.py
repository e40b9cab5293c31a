"""``build_agent``: the agent a configuration describes, over a guard."""

from __future__ import annotations

from ordergate.agent._config import AgentConfig, LlmConfig
from ordergate.agent._digest import DigestSink
from ordergate.agent._llm import AnthropicModel, LlmStrategist, Model, OpenAIModel, ScriptedModel
from ordergate.agent._rebalance import Rebalancer
from ordergate.agent._runner import Agent, Strategy
from ordergate.core import Clock
from ordergate.execution import Guard

__all__ = ["STRATEGIES", "build_agent", "model_for"]

STRATEGIES = ("rebalance", "llm")


def model_for(config: LlmConfig) -> Model:
    """The configured provider's model (``AgentConfigError`` when its SDK is not
    installed)."""
    if config.provider == "anthropic":
        return AnthropicModel(config.model or "claude-sonnet-4-5")
    if config.provider == "openai":
        return OpenAIModel(config.model or "gpt-4o-mini")
    return ScriptedModel(config.replies)


def build_agent(
    guard: Guard,
    config: AgentConfig,
    *,
    strategy: str,
    clock: Clock,
    model: Model | None = None,
    digest: DigestSink | None = None,
) -> Agent:
    """``strategy`` is one of ``STRATEGIES`` (``ValueError`` otherwise); for ``llm``,
    ``model`` overrides the configured provider. ``digest`` is sent each market day's
    digest."""
    planner: Strategy
    if strategy == "rebalance":
        planner = Rebalancer(config.rebalance, max_order_usd=guard.policy.max_order_usd)
    elif strategy == "llm":
        planner = LlmStrategist(model or model_for(config.llm), symbols=config.llm.symbols)
    else:
        raise ValueError(f"unknown strategy {strategy!r}: one of {', '.join(STRATEGIES)}")
    return Agent(
        guard,
        planner,
        identity=config.identity,
        sessions=config.sessions,
        clock=clock,
        digest=digest,
    )
