"""An agent on the embedded sandbox venue, through the real guard, on a stepped clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ordergate.agent import Agent, AgentConfig, DigestSink, Model, build_agent, parse_agent_config
from ordergate.core import SteppedClock
from ordergate.policy import parse_policy
from ordergate.runtime import Running, Settings, open_guard

POLICY = """\
mode = "paper"
approval = "never"
[limits]
max_order_usd = "3000"
max_daily_usd = "100000"
max_orders_per_day = 200
max_open_orders = 10
max_position_pct = "70"
max_spread_bps = 500
[symbols]
allow = ["SPY", "VTI", "QQQ"]
[paper]
starting_cash_usd = "10000"
"""

CONFIG = {
    "identity": "rebalancer",
    "sessions": ["regular"],
    "rebalance": {
        "band_pct": "3",
        "min_trade_usd": "5",
        "targets": {"SPY": "50", "VTI": "30"},
    },
}


@dataclass
class AgentRun:
    agent: Agent
    running: Running
    clock: SteppedClock
    config: AgentConfig


@asynccontextmanager
async def agent_on_sandbox(
    home: Path,
    *,
    start: datetime,
    policy: str = POLICY,
    config: dict[str, object] | None = None,
    strategy: str = "rebalance",
    model: Model | None = None,
    digest: DigestSink | None = None,
) -> AsyncIterator[AgentRun]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "policy.toml").write_text(policy, encoding="utf-8")
    settings = Settings(
        home=home,
        policy_path=home / "policy.toml",
        policy_given=True,
        db_url=f"sqlite:///{home / 'ledger.db'}",
        upstream_url=None,
        sandbox=True,
    )
    clock = SteppedClock(start=start)
    parsed = parse_agent_config(dict(config or CONFIG))
    # The policy as the owner applied it (``ordergate policy apply`` is an owner act).
    in_force = (parse_policy(policy), None)
    async with open_guard(settings, clock=clock, in_force=in_force) as running:
        agent = build_agent(
            running.guard, parsed, strategy=strategy, clock=clock, model=model, digest=digest
        )
        yield AgentRun(agent, running, clock, parsed)
