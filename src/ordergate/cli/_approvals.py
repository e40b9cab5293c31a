"""``ordergate approvals``, ``ordergate approve ID``, ``ordergate deny ID``.

All three go to the owner's desk: the running gateway's owner channel, else the ledger
directly (``ordergate.cli._desk``). ``approvals`` lists what waits. ``approve`` is an owner
act: the gateway prepares it and shows what will be placed (side, amount, symbol, the
estimated money, the filing), then the owner code (hidden prompt, or ``--code-stdin``) is
spent on that prepared act only; the approval is claimed (once: of two people approving at
once, one acts), checked unexpired and bound to the filing's terms, and the order is carried
on through review, stage B and place. ``deny`` needs no code (it only makes things safer).
Exit codes as ``ordergate order``; 5 when the owner code is refused, 6 when the approval was
already decided.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer

from ordergate.cli._desk import (
    EXIT_ALREADY_DECIDED,
    ChannelOption,
    CodeStdinOption,
    desk_failure,
    desk_for,
    owner_act,
    said_delayed,
)
from ordergate.cli._options import (
    DbOption,
    JsonOption,
    PolicyOption,
    SandboxOption,
    UpstreamOption,
    settings_from,
)
from ordergate.cli._outcomes import exit_code, print_body
from ordergate.core import inert, usd

__all__ = ["approvals_command", "approve_command", "deny_command"]

# ordergate.execution.APPROVAL_DECIDED, spelled here so listing approvals imports no guard.
_ALREADY_DECIDED = "approval_already_decided"

IdArgument = Annotated[str, typer.Argument(help="The approval id (from `ordergate approvals`).")]


def approvals_command(
    as_json: JsonOption = False, db: DbOption = None, channel: ChannelOption = None
) -> None:
    """List the orders waiting for the owner's approval."""
    settings = settings_from(None, db, None, False)
    waiting = anyio.run(_approvals, settings, channel)
    if as_json:
        typer.echo(json.dumps(waiting, sort_keys=True))
        return
    if not waiting:
        typer.echo("no approvals pending")
        return
    for item in waiting:
        size = f"{item['quantity']} shares" if item["quantity"] else usd(item["dollar_amount"])
        limit = f" limit {item['limit_price']}" if item["limit_price"] else ""
        # Short lines (100 columns): the order, who filed it, until when.
        # Every field came from an agent's call or a remote gateway's answer: printed inert.
        typer.echo(
            inert(
                f"{item['approval_id']}  {item['side']} {size} {item['symbol']} "
                f"{item['type']}{limit}  ~{usd(item['notional'])}"
            )
        )
        typer.echo(inert(f"    by {named(item['identity'], item.get('client_name'))}"))
        typer.echo(f"    expires {_to_the_second(item['expires_at'])}")


def named(identity: str, client_name: str | None) -> str:
    """``identity`` as the owner reads it: the client's registered name, then the hash."""
    return f"{client_name} ({identity})" if client_name else identity


def _to_the_second(value: str) -> str:
    """An ISO-8601 instant as ``2026-12-01 15:15:07 UTC``; anything else as it is."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return str(value)
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M:%S")
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


async def _approvals(settings: Any, channel: Path | None) -> list[dict[str, Any]]:
    async with desk_for(channel, settings, announce=False) as desk:
        return await desk.approvals()


def approve_command(
    approval_id: IdArgument,
    code_stdin: CodeStdinOption = False,
    as_json: JsonOption = False,
    channel: ChannelOption = None,
    policy: PolicyOption = None,
    db: DbOption = None,
    upstream: UpstreamOption = None,
    sandbox: SandboxOption = False,
) -> None:
    """Approve a held order (an owner act: shows what will be placed, then asks for the owner
    code); it is reviewed, checked again and placed."""
    settings = settings_from(policy, db, upstream, sandbox)
    raise typer.Exit(anyio.run(_approve, settings, channel, approval_id, code_stdin, as_json))


async def _approve(
    settings: Any, channel: Path | None, approval_id: str, code_stdin: bool, as_json: bool
) -> int:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings) as desk:
        try:
            params = {"approval_id": approval_id}
            body = await owner_act(desk, "approve", params, code_stdin=code_stdin)
        except DeskError as error:
            raise desk_failure(error) from None
    if not as_json and said_delayed(body):
        return 0
    return _decided(body, as_json=as_json, code=exit_code(body))


def deny_command(
    approval_id: IdArgument,
    as_json: JsonOption = False,
    db: DbOption = None,
    channel: ChannelOption = None,
) -> None:
    """Deny a held order: it is never sent and its reservation is released (no code needed)."""
    settings = settings_from(None, db, None, False)
    raise typer.Exit(anyio.run(_deny, settings, channel, approval_id, as_json))


async def _deny(settings: Any, channel: Path | None, approval_id: str, as_json: bool) -> int:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings) as desk:
        try:
            body = await desk.deny(approval_id)
        except DeskError as error:
            raise desk_failure(error) from None
    return _decided(body, as_json=as_json, code=0)


def _decided(body: dict[str, Any], *, as_json: bool, code: int) -> int:
    """Print the decision's outcome; ``code``, or exit 6 (saying so) when someone decided the
    approval first (a decision racing another is answered with that reason, not an error)."""
    if _ALREADY_DECIDED not in body["reasons"]:
        print_body(body, as_json=as_json)
        return code
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
    typer.echo(
        f"That approval was already decided (the order is {body['status']}); nothing changed.",
        err=True,
    )
    return EXIT_ALREADY_DECIDED
