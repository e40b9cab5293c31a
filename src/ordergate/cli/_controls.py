"""``ordergate pause`` and ``ordergate resume``: the kill switch.

``pause`` sets the ledger's pause flag, so every process sharing the ledger refuses every new
order (reason ``paused``) from its next filing on; reads and cancels are untouched. Pausing
while already paused changes nothing and says so: the first reason and time are kept, because
they record when and why trading was stopped; resume and pause again to give a new reason.
``resume`` clears the flag; resuming when not paused is harmless.

Both open an existing ledger only (``--db``, else ``ORDERGATE_DB_URL``, else
``$ORDERGATE_HOME/ledger.db``): a mistyped path must fail loudly rather than pause a new,
empty ledger while the real one keeps trading. Exit 0 on success, 2 when the ledger cannot be
opened or the reason is unusable.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import typer

from ordergate.cli._options import DbOption, open_existing_ledger

if TYPE_CHECKING:
    from ordergate.ledger import Ledger

__all__ = ["pause_command", "resume_command"]

MAX_REASON = 200


def _open(db: str | None) -> Ledger:
    return open_existing_ledger(db)


def _when(since: datetime | None) -> str:
    return "an unknown time" if since is None else since.isoformat(timespec="seconds")


def _why(reason: str) -> str:
    return f"reason: {reason}" if reason else "no reason given"


def pause_command(
    reason: Annotated[
        str, typer.Option("--reason", help="Why trading is stopped (kept in the journal).")
    ] = "",
    db: DbOption = None,
) -> None:
    """Refuse every new order, in every process sharing the ledger, until `resume`."""
    reason = reason.strip()
    if len(reason) > MAX_REASON or not reason.isprintable():
        raise typer.BadParameter(
            f"give at most {MAX_REASON} printable characters", param_hint="--reason"
        )
    with _open(db) as ledger:
        current = ledger.controls.pause_state()
        if current.paused:
            typer.echo(
                f"already paused since {_when(current.since)} ({_why(current.reason)}); "
                "new orders are still refused and the first reason is kept"
            )
            return
        state = ledger.controls.pause(reason)
    typer.echo(f"paused at {_when(state.since)} ({_why(state.reason)}): new orders are refused")


def resume_command(db: DbOption = None) -> None:
    """Accept new orders again after `pause`."""
    with _open(db) as ledger:
        current = ledger.controls.pause_state()
        if not current.paused:
            typer.echo("not paused: new orders are already accepted")
            return
        ledger.controls.resume()
    typer.echo(
        f"resumed: new orders are accepted again "
        f"(paused since {_when(current.since)}, {_why(current.reason)})"
    )
