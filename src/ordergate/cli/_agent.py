"""``ordergate agent run --strategy rebalance [--config FILE] [--once]``: run an agent.

The agent is an identity (``identity`` in its configuration) trading through the same guard
as ``ordergate order`` and the gateway: paper unless live is armed (the policy's
``mode = "live"`` and ``real_money = true``, and a compatible upstream), every order filed,
checked and placed by ``Guard.submit``. Each tick prints one line: the session, the agent's
state, the decision and what it filed. ``--once`` runs one tick; otherwise it ticks every
``tick_seconds`` of the market clock, at most ``max_ticks`` times. Each market day's digest
(positions, P&L, every decision, order and refusal of the day) goes to
``ORDERGATE_APPROVAL_WEBHOOK`` with the first tick of a later day, or from a run whose last
tick is at or after the day's end (a ``--once`` run after the close).
Exit 0 when the run ends, 2 bad configuration, 1 the upstream cannot be reached.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import anyio
import typer

from ordergate.cli._options import (
    DbOption,
    JsonOption,
    PolicyOption,
    SandboxOption,
    UpstreamOption,
    fail,
    guard_from,
    settings_from,
)
from ordergate.core import Clock, inert, market_speed

if TYPE_CHECKING:
    from ordergate.agent import AgentConfig, Tick
    from ordergate.runtime import Settings

__all__ = ["agent_app"]

agent_app = typer.Typer(
    help="Run a trading agent through the guard: paper first, every order filed and checked.",
    no_args_is_help=True,
)


@agent_app.command("run")
def run_command(
    strategy: Annotated[
        str, typer.Option("--strategy", help="rebalance, or llm (a model proposes).")
    ] = "rebalance",
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="The agent's TOML file (identity, sessions, targets); defaults without it.",
            show_default=False,
        ),
    ] = None,
    once: Annotated[bool, typer.Option("--once", help="Run one tick and stop.")] = False,
    as_json: JsonOption = False,
    policy: PolicyOption = None,
    db: DbOption = None,
    upstream: UpstreamOption = None,
    sandbox: SandboxOption = False,
) -> None:
    """Run an agent: tick on the market session, plan, submit through the guard."""
    from ordergate.agent import STRATEGIES, AgentConfigError, load_agent_config, require_sdk

    if strategy not in STRATEGIES:
        raise typer.BadParameter(f"one of {', '.join(STRATEGIES)}", param_hint="--strategy")
    try:
        agent_config = load_agent_config(config)
        if strategy == "llm":
            # Before anything opens: a missing SDK is one line and exit 2, not a traceback.
            require_sdk(agent_config.llm.provider)
    except AgentConfigError as error:
        raise fail(f"agent config: {error}", 2) from None
    settings = settings_from(policy, db, upstream, sandbox)
    anyio.run(_run, settings, agent_config, strategy, once, as_json)


async def _run(
    settings: Settings, config: AgentConfig, strategy: str, once: bool, as_json: bool
) -> None:
    from ordergate.agent import WebhookDigest, build_agent

    clock = settings.clocks().market
    digest = WebhookDigest(settings.webhook_url) if settings.webhook_url else None
    async with guard_from(settings, clock=clock) as running:
        typer.echo(
            f"agent {config.identity}: {strategy} in {running.arming.mode.value} mode", err=True
        )
        agent = build_agent(running.guard, config, strategy=strategy, clock=clock, digest=digest)
        await agent.run(
            max_ticks=1 if once else config.max_ticks,
            tick=timedelta(seconds=config.tick_seconds),
            wait=lambda delta: _sleep(wall_wait(clock, delta)),
            on_tick=lambda tick: _print(tick, as_json=as_json),
        )


def wall_wait(clock: Clock, delta: timedelta) -> float:
    """The wall seconds until ``clock`` (the market's) has moved ``delta``: fewer on an
    accelerated clock (the sandbox's), as many on a real-time one."""
    return delta.total_seconds() / float(market_speed(clock))


async def _sleep(seconds: float) -> None:
    await anyio.sleep(seconds)


def _print(tick: Tick, *, as_json: bool) -> None:
    body = tick.as_json()
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
        return
    # The decision is the strategy's (a model's) own sentence: printed inert.
    typer.echo(inert(f"{body['at']}  {body['session']:<9} {body['state']:<8} {body['decision']}"))
    for reason in body["dropped"]:
        typer.echo(inert(f"  dropped: {reason}"))
    for order in body["orders"]:
        reasons = f" ({', '.join(order['reasons'])})" if order["reasons"] else ""
        typer.echo(
            f"  {order['side']} {order['symbol']}  filing {order['filing_id']}  "
            f"{order['status']}{reasons}"
        )
