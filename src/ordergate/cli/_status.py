"""``ordergate status [--json]`` and ``ordergate reconcile [--json]``.

``status`` shows the mode this configuration runs in (and why), the trading state (with the
breakers evaluated on the equity read now), the pause flag, the rolling 24 h spend and order
count against their caps, ordergate's open orders and the pending approvals, and the account
itself — the paper book's positions, cash and equity in paper mode, the broker's live — with
money to the cent for people and exact Decimal strings under ``--json`` (``portfolio``).
``reconcile`` runs one reconciliation pass: orders followed to their end, fills booked,
reservations corrected, unanswered filings looked up by ``ref_id``.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import typer

from ordergate.cli._options import (
    DbOption,
    JsonOption,
    PolicyOption,
    SandboxOption,
    UpstreamOption,
    guard_from,
    settings_from,
)
from ordergate.core import usd

__all__ = ["reconcile_command", "status_command"]


def status_command(
    as_json: JsonOption = False,
    policy: PolicyOption = None,
    db: DbOption = None,
    upstream: UpstreamOption = None,
    sandbox: SandboxOption = False,
) -> None:
    """Show mode, trading state, pause, 24 h spend and orders against their caps, open
    orders and pending approvals, and the account.

    The account: positions, cash, buying power and equity (the paper book's in paper mode,
    the broker's live; --json gives exact amounts).
    """
    settings = settings_from(policy, db, upstream, sandbox)
    anyio.run(_status, settings, as_json)


async def _status(settings: object, as_json: bool) -> None:
    from ordergate.agent import agent_states
    from ordergate.execution import read_status
    from ordergate.runtime import Settings
    from ordergate.store import blocking

    assert isinstance(settings, Settings)
    clock = settings.clock()
    # Deferred: over a paper book with nothing to price, no embedded venue is started.
    async with guard_from(settings, clock=clock, deferred=True) as running:
        guard = running.guard
        view = await guard.reader.read(guard.account, None)
        status = await blocking(
            read_status,
            guard.ledger,
            guard.policy,
            account=guard.account,
            mode=running.arming.mode.value,
            mode_note=running.arming.reason,
            now=clock.now(),
            equity=view.equity,
        )
        agents = await blocking(agent_states, guard.ledger)
    body = status.as_json()
    body["portfolio"] = account_json(view, paper=guard.paper)
    body["agents"] = agents
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
        return
    typer.echo(f"mode            {body['mode']} ({body['mode_note']})")
    typer.echo(f"trading state   {body['trading_state']}")
    if body["halt_reasons"]:
        typer.echo(f"halted by       {', '.join(body['halt_reasons'])}")
    pause = "no"
    if body["paused"]:
        pause = f"yes, since {body['paused_since']} ({body['pause_reason'] or 'no reason given'})"
    typer.echo(f"paused          {pause}")
    typer.echo(f"spent (24 h)    {usd(body['spent_24h'])} of {usd(body['max_daily_usd'])}")
    typer.echo(f"orders (24 h)   {body['orders_24h']} of {body['max_orders_per_day']}")
    typer.echo(f"open orders     {len(body['open_orders'])}")
    for order in body["open_orders"]:
        size = order["quantity"] or usd(order["dollar_amount"])
        typer.echo(
            f"  {order['filing_id']}  {order['status']}  {order['side']} {size} {order['symbol']}"
        )
    typer.echo(f"approvals       {len(body['pending_approvals'])} pending")
    for item in body["pending_approvals"]:
        typer.echo(
            f"  {item['approval_id']}  {item['side']} {item['symbol']}  ~{usd(item['notional'])}"
        )
    for identity, agent in agents.items():
        typer.echo(f"agent           {identity}: {agent['state']} at {agent['at']}")
    _echo_account(body["portfolio"])


def account_json(view: Any, *, paper: bool) -> dict[str, Any]:
    """The account as ``guard.reader`` read it (an ``AccountView``): exact Decimal strings,
    ``None`` for what could not be read (its ``notes`` say why)."""
    wire: dict[str, Any] = view.account_wire(paper=paper)
    return wire


def _echo_account(account: dict[str, Any]) -> None:
    typer.echo(f"account         {account['source']}")
    typer.echo(f"  cash          {usd(account['cash'])}")
    typer.echo(f"  buying power  {usd(account['buying_power'])}")
    typer.echo(f"  equity        {usd(account['equity'])}")
    positions = account["positions"]
    if positions is None:
        typer.echo("  positions     unknown")
    else:
        typer.echo(f"  positions     {len(positions)}")
        for held in positions:
            typer.echo(
                f"    {held['symbol']}  {held['quantity']} shares  {usd(held['market_value'])}"
            )
    for note in account["notes"]:
        typer.echo(f"  note          {note}")


def reconcile_command(
    as_json: JsonOption = False,
    policy: PolicyOption = None,
    db: DbOption = None,
    upstream: UpstreamOption = None,
    sandbox: SandboxOption = False,
) -> None:
    """Follow every open order to its end: book fills, correct reservations, resolve
    unanswered orders by looking them up."""
    settings = settings_from(policy, db, upstream, sandbox)
    anyio.run(_reconcile, settings, as_json)


async def _reconcile(settings: object, as_json: bool) -> None:
    from ordergate.runtime import Settings

    assert isinstance(settings, Settings)
    async with guard_from(settings) as running:
        report = await running.guard.reconcile()
    body = report.as_json()
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
        return
    typer.echo(
        f"checked {body['checked']}, moved {body['moved']}, fills booked "
        f"{body['fills_booked']}, adopted {body['adopted']}, not placed {body['not_placed']}, "
        f"expired approvals {body['expired']}, unreachable {body['unreachable']}"
    )
    for error in report.errors:
        typer.echo(f"  could not follow {error}")
