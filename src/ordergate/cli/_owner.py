"""``ordergate owner init`` and ``ordergate owner status``: the owner's credential.

``init`` enrols the owner: a fresh TOTP secret (RFC 6238: 6 digits, 30 s), printed once as an
``otpauth://`` URI on a line of its own and, on a terminal, as a QR code for a phone
authenticator, and optionally a passphrase (``--passphrase-stdin``: one line on stdin),
kept only as its scrypt hash. It writes ``$ORDERGATE_HOME/owner.json`` (0600): run it as the
gateway's OS user. Enrolling again replaces the secret and needs the current owner code.
``status`` says what is enrolled and whether owner acts are locked (from the running
gateway's owner channel when one answers, else from the home). ``unlock`` lifts every lock
after wrong codes (the gateway's and each source's), acting on the local home and ledger —
so only who can open them, the gateway's OS user, can — and journals who did. ``reset``
(the same: local, the gateway's OS user, journalled) removes the enrolment when the
authenticator is lost and no passphrase was enrolled; ``init`` then enrols afresh.

``init --loosen-delay 15m --approve-above USD`` also asks for the owner's delays: how long an
act that loosens waits before it takes effect (default 15 minutes), and the notional above
which approving a held order is such an act. Tighter settings are in force at once; looser
ones wait the delay in force. ``pending`` lists the acts that wait, with their time left;
``cancel [ID]`` ends one (or every one) unmade, with no code: it only makes things safer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer

from ordergate.cli._desk import (
    ChannelOption,
    CodeStdinOption,
    desk_failure,
    desk_for,
    read_owner_code,
)
from ordergate.cli._options import DbOption, JsonOption, fail, settings_from
from ordergate.core import command_hint

__all__ = ["owner_app"]

owner_app = typer.Typer(
    help="The owner's credential: the code every owner act asks for.", no_args_is_help=True
)


@owner_app.command("init")
def init_command(
    passphrase_stdin: Annotated[
        bool,
        typer.Option(
            "--passphrase-stdin",
            help="Also enrol a passphrase, read as one line from standard input.",
        ),
    ] = False,
    code_stdin: CodeStdinOption = False,
    qr: Annotated[
        bool | None,
        typer.Option(
            "--qr/--no-qr",
            help="Draw the QR code (default: when standard output is a terminal).",
            show_default=False,
        ),
    ] = None,
    loosen_delay: Annotated[
        str,
        typer.Option(
            "--loosen-delay",
            metavar="SPAN",
            help="How long an act that loosens waits before it takes effect (e.g. 15m, 1h, "
            "90s; at most 7d).",
        ),
    ] = "15m",
    approve_above: Annotated[
        str | None,
        typer.Option(
            "--approve-above",
            metavar="USD",
            help="Approving a held order above this notional waits the loosen delay too.",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Enrol the owner: print the authenticator secret (once) and keep it for the gateway."""
    from ordergate.core import ConfigError, RealtimeClock
    from ordergate.owner import (
        ENROLMENT_FILE,
        Delays,
        EnrolmentError,
        OwnerAct,
        OwnerAuthority,
        OwnerRefused,
        act_digest,
        check_passphrase_rules,
        new_enrolment,
        provisioning_uri,
        terminal_qr,
        write_enrolment,
    )

    settings = settings_from(None, db, None, False)
    delays = _delay_settings(loosen_delay, approve_above)
    passphrase = None
    if passphrase_stdin:
        passphrase = sys.stdin.readline().rstrip("\r\n")
        try:
            check_passphrase_rules(passphrase)
        except ConfigError as error:
            raise fail(f"cannot enrol: {error}", 2) from None
    path = settings.home / ENROLMENT_FILE
    with _ledger(settings) as ledger:
        authority = OwnerAuthority(enrolment_path=path, ledger=ledger)
        try:
            existing = authority.enrolment()
        except EnrolmentError as error:
            raise fail(f"cannot enrol: {error}", 2) from None
        credential = None
        if existing is not None:
            typer.echo("an owner is enrolled: enrolling again needs the current code", err=True)
            try:
                credential = authority.authorize(
                    read_owner_code(code_stdin),
                    OwnerAct.ENROL,
                    digest=act_digest(OwnerAct.ENROL, {"enrolment": str(path)}),
                )
            except OwnerRefused as refused:
                raise fail(f"refused: {refused} [{refused.reason}]", 5) from None
        enrolment = new_enrolment(passphrase=passphrase, now=RealtimeClock().now(), delays=delays)
        write_enrolment(path, enrolment)
        authority.enrolled(replaced=existing is not None, credential=credential)
        waiting = Delays(ledger).ask(delays, first=existing is None)
    uri = provisioning_uri(enrolment.totp_secret)
    if qr if qr is not None else sys.stdout.isatty():
        typer.echo(terminal_qr(uri))
    typer.echo(uri)
    kept = "the authenticator secret and the passphrase's hash" if passphrase else "the secret"
    typer.echo(
        f"enrolled: {path} keeps {kept} (mode 0600). Add the URI (or its QR code) to an "
        "authenticator app now: it is not shown again. Owner acts now ask for its code.",
        err=True,
    )
    if waiting is not None:
        typer.echo(
            f"the looser delay settings wait until {waiting.effective_at.isoformat()} "
            f"(cancel with `{command_hint(f'owner cancel {waiting.id}')}`)",
            err=True,
        )


def _ledger(settings: Any) -> Any:
    """The ledger the gateway uses (``--db``), opened as the gateway's OS user; exit 2 when
    it cannot be."""
    from ordergate.core import SecurityClock
    from ordergate.ledger import LedgerError, open_ledger

    try:
        # The record's clock is wall time, whatever the market's (a sandbox's) says.
        return open_ledger(settings.db_url, clock=SecurityClock())
    except LedgerError as error:
        raise fail(f"cannot open the ledger: {error}", 2) from None


def _delay_settings(loosen_delay: str, approve_above: str | None) -> Any:
    from decimal import Decimal, InvalidOperation

    from ordergate.owner import DelaySettings

    span = parse_span(loosen_delay)
    if span is None:
        raise fail("--loosen-delay must be a span like 15m, 1h or 90s", 2)
    threshold = None
    if approve_above is not None:
        try:
            threshold = Decimal(approve_above)
        except InvalidOperation:
            raise fail("--approve-above must be an amount in dollars", 2) from None
    try:
        return DelaySettings(span, threshold)
    except ValueError as error:
        raise fail(f"cannot enrol: {error}", 2) from None


def parse_span(text: str) -> Any:
    """``15m``, ``1h``, ``90s``, ``2d`` (or bare seconds) as a ``timedelta``; ``None`` for
    anything else."""
    from datetime import timedelta

    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    text = text.strip().lower()
    unit = units.get(text[-1:]) if text else None
    digits = text[:-1] if unit is not None else text
    if not digits.isascii() or not digits.isdigit() or len(digits) > 9:
        return None
    return timedelta(seconds=int(digits) * (unit or 1))


@owner_app.command("pending")
def pending_command(
    as_json: JsonOption = False, channel: ChannelOption = None, db: DbOption = None
) -> None:
    """List the owner acts that loosen and wait for the owner's delay, with their time left."""
    settings = settings_from(None, db, None, False)
    waiting = anyio.run(_pending, settings, channel)
    if as_json:
        typer.echo(json.dumps(waiting, sort_keys=True))
        return
    if not waiting:
        typer.echo("no owner act waits")
        return
    for act in waiting:
        typer.echo(
            f"{act['id']}  {act['act']}  takes effect {act['effective_at']} "
            f"(in {act.get('seconds_left', 0)} s): {act['summary']}"
        )


@owner_app.command("cancel")
def cancel_command(
    act_id: Annotated[
        str | None,
        typer.Argument(metavar="[ID]", help="The waiting act to cancel (default: every one)."),
    ] = None,
    channel: ChannelOption = None,
    db: DbOption = None,
) -> None:
    """Cancel an owner act that still waits for its delay (no code: it only makes things
    safer); every waiting act when no ID is given."""
    settings = settings_from(None, db, None, False)
    answer = anyio.run(_cancel, settings, channel, act_id)
    cancelled = answer["cancelled"]
    if not cancelled:
        typer.echo("no owner act waited: nothing was cancelled")
    for act in cancelled:
        typer.echo(f"cancelled {act['id']} ({act['act']}): {act['summary']}")


async def _pending(settings: Any, channel: Path | None) -> list[dict[str, Any]]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings, announce=False) as desk:
        try:
            return await desk.pending_acts()
        except DeskError as error:
            raise desk_failure(error) from None


async def _cancel(settings: Any, channel: Path | None, act_id: str | None) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings, announce=False) as desk:
        try:
            return await desk.cancel_delayed(act_id)
        except DeskError as error:
            raise desk_failure(error) from None


@owner_app.command("status")
def status_command(
    as_json: JsonOption = False, channel: ChannelOption = None, db: DbOption = None
) -> None:
    """Say whether an owner is enrolled (and with what) and whether owner acts are locked."""
    settings = settings_from(None, db, None, False)
    status = anyio.run(_status, settings, channel)
    owner = status["owner"]
    if as_json:
        typer.echo(json.dumps(owner, sort_keys=True))
        return
    if not owner["enrolled"]:
        typer.echo(f"no owner enrolled: owner acts are refused; run `{command_hint('owner init')}`")
        return
    kinds = "authenticator code and passphrase" if owner["passphrase"] else "authenticator code"
    typer.echo(f"owner enrolled ({kinds})")
    if owner["locked_until"]:
        typer.echo(f"owner acts locked until {owner['locked_until']} after wrong codes")
    elif owner["recent_failures"]:
        typer.echo(f"{owner['recent_failures']} wrong code(s) in the last 15 minutes")
    delays = status.get("delays")
    if delays is not None:
        above = delays["approve_above"]
        typer.echo(
            f"an act that loosens waits {delays['loosen_delay_s']} s"
            + (f"; so does approving an order above ${above}" if above is not None else "")
        )
    if status.get("waiting_acts"):
        typer.echo(
            f"{status['waiting_acts']} owner act(s) wait: see `{command_hint('owner pending')}`"
        )


@owner_app.command("unlock")
def unlock_command(as_json: JsonOption = False, db: DbOption = None) -> None:
    """Lift the lock on owner acts after wrong codes (run as the gateway's OS user)."""
    import getpass

    from ordergate.owner import ENROLMENT_FILE, EnrolmentError, OwnerAuthority

    settings = settings_from(None, db, None, False)
    path = settings.home / ENROLMENT_FILE
    with _ledger(settings) as ledger:
        authority = OwnerAuthority(enrolment_path=path, ledger=ledger)
        try:
            if authority.enrolment() is None:
                raise fail("no owner is enrolled here: nothing to unlock", 2)
        except EnrolmentError as error:
            raise fail(f"cannot unlock: {error}", 2) from None
        outcome = authority.unlock(by=getpass.getuser())
    if as_json:
        typer.echo(json.dumps(outcome, sort_keys=True))
        return
    was = outcome["was_locked_until"]
    typer.echo(
        ("owner acts were locked until " + was if was else "owner acts were not locked")
        + f"; {outcome['sources_unlocked']} source(s) unlocked; the unlock is journalled"
    )


@owner_app.command("reset")
def reset_command(
    yes: Annotated[
        bool, typer.Option("--yes", help="Remove the enrolment without asking first.")
    ] = False,
    db: DbOption = None,
) -> None:
    """Remove the owner's enrolment when the authenticator is lost (run as the gateway's OS
    user; journalled); then `owner init` enrols again."""
    import getpass

    from ordergate.owner import ENROLMENT_FILE, OwnerAuthority

    settings = settings_from(None, db, None, False)
    path = settings.home / ENROLMENT_FILE
    if not path.exists():
        raise fail("no owner is enrolled here: nothing to reset", 2)
    if not yes and not typer.confirm(
        "Remove the owner enrolment? Until `owner init` runs again, no owner act can be made"
    ):
        raise typer.Exit(1)
    with _ledger(settings) as ledger:
        OwnerAuthority(enrolment_path=path, ledger=ledger).reset(by=getpass.getuser())
    typer.echo("the owner enrolment is removed and the reset journalled; enrol again with:")
    typer.echo(f"  {command_hint('owner init')}")


async def _status(settings: Any, channel: Path | None) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings, announce=False) as desk:
        try:
            return await desk.status()
        except DeskError as error:
            raise desk_failure(error) from None
