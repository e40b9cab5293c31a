"""An agent on the embedded sandbox venue, through the real guard, on a stepped clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

from ordergate.agent import Agent, AgentConfig, DigestSink, Model, build_agent, parse_agent_config
from ordergate.core import SteppedClock
from ordergate.execution import Outcome
from ordergate.ledger import FilingStatus
from ordergate.policy import parse_policy
from ordergate.runtime import Running, Settings, open_guard
from ordergate.venues.paper import PaperVenue

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


# Past the venue's 1 s confirmation delay: a market order placed before it has filled at the
# engine's first look since (the reconciler's poll).
SETTLE = timedelta(seconds=2)


async def settle(run: AgentRun) -> None:
    """What the venue does with the orders a tick placed (answered ``submitted``): confirmed
    after its 1 s delay and filled at the engine's first look after that. The clock moves
    ``SETTLE`` and the guard's reconciler polls the book, recording the fills."""
    run.clock.advance(SETTLE)
    await run.running.guard.reconcile()


def status(run: AgentRun, outcome: Outcome) -> FilingStatus:
    """The ledger's status of ``outcome``'s filing now."""
    return run.running.guard.ledger.filing(outcome.filing_id).status


def split(run: AgentRun, symbol: str, ratio: Decimal) -> None:
    """A ``ratio``-for-1 split of ``symbol`` now, as paper learns of one: handed to the paper
    venue's feed (the upstream tells of none), the engine re-bases every lot of the book —
    its shares times ``ratio``, the price paid divided by it — when it next reads the book
    (the upstream's quotes are the test's to divide: ``/_sandbox/shock``)."""
    venue = run.running.guard.venue
    assert isinstance(venue, PaperVenue)
    venue.caller.split(symbol, ratio, run.clock.now())


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
