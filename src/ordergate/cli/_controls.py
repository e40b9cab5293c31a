"""``ordergate pause`` and ``ordergate resume``: the kill switch.

``pause`` sets the ledger's pause flag, so every process sharing the ledger refuses every new
order (reason ``paused``) from its next filing on; reads and cancels are untouched. Anyone
may pause (it only makes things safer). Pausing while already paused changes nothing and says
so: the first reason and time are kept, because they record when and why trading was
stopped. ``pause --cancel-open`` also cancels every working order the gateway filed, on every
account, once the pause is on the ledger (none is placed after it), and prints each cancel's
outcome (each is journalled too); run again while paused, it cancels what is still working.
``resume`` is an owner act: it asks for the owner code; resuming when not paused is
harmless and asks for nothing.

Both go to the owner's desk: the running gateway's (``--gateway``), else the existing ledger
(``--db``, else ``ORDERGATE_DB_URL``, else ``$ORDERGATE_HOME/ledger.db``) — a mistyped path
fails loudly rather than pause a new, empty ledger while the real one keeps trading. Exit 0
on success, 2 when the ledger cannot be opened or the reason is unusable, 4 when a working
order may still be live after ``--cancel-open`` (the broker refused or did not answer its
cancel, or it has no broker order yet), 5 when the owner code is refused.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer

from ordergate.cli._desk import ChannelOption, CodeStdinOption, desk_failure, desk_for, owner_act
from ordergate.cli._options import DbOption, fail, settings_from

__all__ = ["pause_command", "resume_command"]

MAX_REASON = 200
EXIT_STILL_WORKING = 4


def _when(since: str | None) -> str:
    if since is None:
        return "an unknown time"
    return datetime.fromisoformat(since).isoformat(timespec="seconds")


def _why(reason: str) -> str:
    return f"reason: {reason}" if reason else "no reason given"


ConnectionOption = Annotated[
    str | None,
    typer.Option(
        "--connection",
        help="One connection's id (as `connections` lists it) instead of the whole rail.",
    ),
]


def pause_command(
    reason: Annotated[
        str, typer.Option("--reason", help="Why trading is stopped (kept in the journal).")
    ] = "",
    cancel_open: Annotated[
        bool,
        typer.Option(
            "--cancel-open",
            help="Also cancel every working order the gateway filed, on every account, and "
            "print each cancel's outcome (exit 4 if any may still be live).",
        ),
    ] = False,
    connection: ConnectionOption = None,
    db: DbOption = None,
    channel: ChannelOption = None,
) -> None:
    """Refuse every new order, in every process sharing the ledger, until `resume`.

    With --cancel-open, also cancel every working order the gateway filed. With --connection,
    pause that connection alone (on a hosted rail only its person resumes it)."""
    reason = reason.strip()
    if len(reason) > MAX_REASON or not reason.isprintable():
        raise typer.BadParameter(
            f"give at most {MAX_REASON} printable characters", param_hint="--reason"
        )
    if connection is not None and cancel_open:
        raise typer.BadParameter("--cancel-open pauses the whole rail", param_hint="--connection")
    settings = settings_from(None, db, None, False)
    state = anyio.run(_pause, settings, channel, reason, cancel_open, connection)
    if connection is not None:
        said = "was already paused" if not state["changed"] else "is paused"
        typer.echo(f"connection {connection} {said}: its new orders are refused")
        return
    if not state["changed"]:
        typer.echo(
            f"already paused since {_when(state['since'])} ({_why(state['reason'])}); "
            "new orders are still refused and the first reason is kept"
        )
    else:
        typer.echo(
            f"paused at {_when(state['since'])} ({_why(state['reason'])}): new orders are refused"
        )
    if cancel_open:
        _say_cancels(state["cancels"])


def _say_cancels(cancels: list[dict[str, Any]]) -> None:
    if not cancels:
        typer.echo("no order was working")
        return
    for cancel in cancels:
        code = f" [{cancel['broker_code']}]" if cancel["broker_code"] else ""
        typer.echo(
            f"{cancel['filing_id']}  {cancel['symbol']:<6} {cancel['outcome']}{code} "
            f"(status {cancel['status']})"
        )
    live = [cancel for cancel in cancels if not cancel["ended"]]
    if live:
        raise fail(
            f"{len(live)} of {len(cancels)} orders may still be working: the reconciler follows "
            "them; run this again to ask again",
            EXIT_STILL_WORKING,
        )
    typer.echo(f"{len(cancels)} working orders ended")


async def _pause(
    settings: Any, channel: Path | None, reason: str, cancel_open: bool, connection: str | None
) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings, announce=False) as desk:
        if connection is None:
            return await desk.pause(reason, cancel_open=cancel_open)
        try:
            return await desk.pause(reason, connection_id=connection)
        except DeskError as error:
            raise desk_failure(error) from None


def resume_command(
    code_stdin: CodeStdinOption = False,
    connection: ConnectionOption = None,
    db: DbOption = None,
    channel: ChannelOption = None,
) -> None:
    """Accept new orders again after `pause` (an owner act: asks for the owner code; with
    --connection, that connection's owner's code)."""
    settings = settings_from(None, db, None, False)
    state = anyio.run(_resume, settings, channel, code_stdin, connection)
    if connection is not None:
        said = "resumed" if state["changed"] else "was not paused"
        typer.echo(f"connection {connection} {said}: its new orders are accepted")
        return
    if not state["changed"]:
        typer.echo("not paused: new orders are already accepted")
        return
    was = state["was"]
    typer.echo(
        f"resumed: new orders are accepted again "
        f"(paused since {_when(was['since'])}, {_why(was['reason'])})"
    )


async def _resume(
    settings: Any, channel: Path | None, code_stdin: bool, connection: str | None
) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    params = {} if connection is None else {"connection_id": connection}
    async with desk_for(channel, settings, announce=False) as desk:
        try:
            return await owner_act(desk, "resume", params, code_stdin=code_stdin)
        except DeskError as error:
            raise desk_failure(error) from None
