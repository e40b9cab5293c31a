"""``ordergate connections list``, ``ordergate connections revoke ID``, ``ordergate
connections limits ID [CAP=VALUE …]`` and ``ordergate connections approval-mode ID on``.

A connection is one client's standing access through the gateway (approved once on the
consent page). ``list`` shows each live or dead one: its id, the client's registered name,
its profile and when it was made and last used. ``revoke`` erases one with its tokens (and
its sealed upstream session): it needs no owner code, since it only takes access away.
``limits`` shows a person's connection's limits under the rail's ceiling (the policy) or
tightens them, with no code either: loosening them is that person's own act, with their code.
``approval-mode ID on`` holds every order of a person's connection for them (no code: it only
tightens); ``off`` is refused (exit 2): only the person turns it off, with their own code.
Both go to the running gateway's owner route, else the ledger directly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer

from ordergate.cli._desk import ChannelOption, desk_failure, desk_for
from ordergate.cli._options import DbOption, JsonOption, settings_from
from ordergate.core import inert

__all__ = ["connections_app"]

connections_app = typer.Typer(
    help="The clients connected through the gateway: list them, revoke one.",
    no_args_is_help=True,
)


@connections_app.command("list")
def list_command(
    as_json: JsonOption = False, channel: ChannelOption = None, db: DbOption = None
) -> None:
    """List the connections: id, client name, profile, created, the identity its filings
    carry, last used."""
    rows = anyio.run(_list, settings_from(None, db, None, False), channel)
    if as_json:
        typer.echo(json.dumps(rows, sort_keys=True))
        return
    if not rows:
        typer.echo("no connections")
        return
    for row in rows:
        name = row["client_name"] or "(no name)"
        # Two lines: the connection and its client, then the identity its filings carry
        # (what `approvals`, `why` and the console's Filings show) and when it was used.
        # The name is whatever the client registered: printed inert, never a terminal's input.
        typer.echo(
            inert(
                f"{row['connection_id']}  {name}  {row['profile']}  {row['state']}  "
                f"created {row['created_at'][:19]}"
            )
        )
        typer.echo(f"    files as {row['identity']}  last used {row['last_used_at'][:19]}")


async def _list(settings: Any, channel: Path | None) -> list[dict[str, Any]]:
    async with desk_for(channel, settings, announce=False) as desk:
        return await desk.connections()


@connections_app.command("revoke")
def revoke_command(
    connection_id: Annotated[str, typer.Argument(help="The connection id (from `list`).")],
    channel: ChannelOption = None,
    db: DbOption = None,
) -> None:
    """Erase a connection and its tokens (no code needed: it only takes access away)."""
    result = anyio.run(_revoke, settings_from(None, db, None, False), channel, connection_id)
    if result["revoked"]:
        typer.echo(f"revoked {connection_id}: its tokens no longer work")
    else:
        typer.echo(f"no live connection {connection_id}: nothing changed")


async def _revoke(settings: Any, channel: Path | None, connection_id: str) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings, announce=False) as desk:
        try:
            return await desk.revoke(connection_id)
        except DeskError as error:
            raise desk_failure(error) from None


@connections_app.command("limits")
def limits_command(
    connection_id: Annotated[str, typer.Argument(help="A person's connection id (from `list`).")],
    tighten: Annotated[
        list[str] | None,
        typer.Argument(
            help="CAP=VALUE pairs (max_order_usd=20 max_open_orders=2): each at most the value "
            "in force. None: show the limits."
        ),
    ] = None,
    channel: ChannelOption = None,
    db: DbOption = None,
) -> None:
    """Show a person's connection's limits under the rail's ceiling, or tighten them (no code
    needed: it only tightens; loosening them is the person's own act)."""
    asked: dict[str, object] = {}
    for pair in tighten or []:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise typer.BadParameter("give each limit as CAP=VALUE", param_hint="TIGHTEN")
        asked[name.strip()] = int(value) if value.strip().isdigit() else value.strip()
    settings = settings_from(None, db, None, False)
    rows = anyio.run(_limits, settings, channel, connection_id, asked)
    for row in rows:
        own = "" if row["own"] is None else f"  own {row['own']} (set by {row['set_by']})"
        typer.echo(f"{row['name']:<20} in force {row['in_force']}  ceiling {row['ceiling']}{own}")


async def _limits(
    settings: Any, channel: Path | None, connection_id: str, asked: dict[str, object]
) -> list[dict[str, Any]]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings, announce=False) as desk:
        try:
            if asked:
                return list((await desk.tighten_limits(connection_id, asked))["limits"])
            return await desk.connection_limits(connection_id)
        except DeskError as error:
            raise desk_failure(error) from None


@connections_app.command("approval-mode")
def approval_mode_command(
    connection_id: Annotated[str, typer.Argument(help="A person's connection id (from `list`).")],
    state: Annotated[str, typer.Argument(help="on (off is the person's own act).")],
    channel: ChannelOption = None,
    db: DbOption = None,
) -> None:
    """Hold every order of a person's connection for them (no code: it only tightens); only
    the person turns it off, with their own code."""
    if state not in ("on", "off"):
        raise typer.BadParameter("give on (or off, which only the person does)", param_hint="STATE")
    settings = settings_from(None, db, None, False)
    result = anyio.run(_approval_mode, settings, channel, connection_id, state == "on")
    said = "is now" if result["changed"] else "was already"
    typer.echo(f"connection {connection_id} {said} in approval mode: each order waits its person")


async def _approval_mode(
    settings: Any, channel: Path | None, connection_id: str, on: bool
) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings, announce=False) as desk:
        try:
            return await desk.approval_mode(connection_id, on)
        except DeskError as error:
            raise desk_failure(error) from None
