"""``ordergate audit verify`` and ``ordergate audit head``: check the ledger's hash chains.

``verify`` exits 0 when both chains are intact, 1 when a record was edited, deleted or
reordered (or a tail was cut off below a given checkpoint), naming the first bad filing, and
2 when the ledger cannot be opened. ``head`` prints two checkpoints, ``SEQ:HASH`` each: the
filings' (the last ``seq`` and a digest of every account's chain head, so it covers every
account's chain up to that ``seq``), then the events chain's last link. Keep them somewhere
else, and pass them back to ``verify --checkpoint``/``--events-checkpoint`` to prove nothing
was truncated or rewritten since. A filings checkpoint printed before account chains (the
hash of filing ``SEQ`` itself) is still accepted.

``verify --since SEQ:HASH`` (a filings checkpoint) and ``--events-since SEQ:HASH`` (an events
head) walk only what follows them: the record up to each is proven against it, then only the
later records are read (``ordergate.ledger.verify`` says what that means for each chain). A
checkpoint that does not match the ledger exits 1 saying so; one that cannot start a walk
(from before account chains, or older than the ``--checkpoint`` beside it) exits 2. On a large
ledger the walk reports its progress on stderr.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ordergate.core import RealtimeClock

if TYPE_CHECKING:
    from ordergate.ledger import Ledger

__all__ = ["audit_app"]

audit_app = typer.Typer(help="Check the ledger's tamper-evident record.", no_args_is_help=True)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Ledger URL (default: ORDERGATE_DB_URL, else $ORDERGATE_HOME/ledger.db).",
        show_default=False,
    ),
]


def _open(db: str | None) -> Ledger:
    from ordergate.ledger import LedgerError, open_ledger

    try:
        return open_ledger(db, clock=RealtimeClock(), create=False)
    except LedgerError as error:
        typer.echo(f"cannot open the ledger: {error}", err=True)
        raise typer.Exit(2) from None


@audit_app.command("verify")
def verify_command(
    db: DbOption = None,
    checkpoint: Annotated[
        str | None,
        typer.Option(
            help="A filings checkpoint SEQ:HASH exported earlier by `audit head` (it covers "
            "every account's chain)."
        ),
    ] = None,
    events_checkpoint: Annotated[
        str | None, typer.Option(help="An events head SEQ:HASH exported earlier.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            help="Check only the filings after this filings checkpoint SEQ:HASH (from "
            "`audit head`), once the record up to it is proven against it.",
        ),
    ] = None,
    events_since: Annotated[
        str | None,
        typer.Option(help="Check only the events after this events head SEQ:HASH."),
    ] = None,
) -> None:
    """Walk the hash chains: exit 0 intact, 1 tampered (naming the first bad filing)."""
    from ordergate.ledger import ChainHead, CheckpointError

    texts = {"--checkpoint": checkpoint, "--events-checkpoint": events_checkpoint,
             "--since": since, "--events-since": events_since}  # fmt: skip
    pins: dict[str, ChainHead | None] = {}
    for name, text in texts.items():
        try:
            pins[name] = None if text is None else ChainHead.parse(text)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint=name) from None
    with _open(db) as ledger:
        try:
            result = ledger.verify(
                checkpoint=pins["--checkpoint"], event_checkpoint=pins["--events-checkpoint"],
                since=pins["--since"], events_since=pins["--events-since"], progress=_progress,
            )  # fmt: skip
        except CheckpointError as error:
            typer.echo(f"cannot verify from that checkpoint: {error}", err=True)
            raise typer.Exit(2) from None
    if result.ok:
        after = " after the checkpoint" if since or events_since else ""
        typer.echo(f"intact: {result.checked} records{after}")
        return
    named = f" (id {result.filing_id})" if result.filing_id else ""
    typer.echo(f"tampered: {result.chain} {result.first_bad_seq}{named}: {result.reason}")
    raise typer.Exit(1)


def _progress(line: str) -> None:
    typer.echo(f"audit verify: {line}", err=True)


@audit_app.command("head")
def head_command(db: DbOption = None) -> None:
    """Print the checkpoints as SEQ:HASH: filings (every account's chain), then events."""
    with _open(db) as ledger:
        typer.echo(f"filings {ledger.head()}")
        typer.echo(f"events {ledger.event_head()}")
