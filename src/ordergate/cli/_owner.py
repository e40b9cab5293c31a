"""``ordergate owner init`` and ``ordergate owner status``: the owner's credential.

``init`` enrols the owner: a fresh TOTP secret (RFC 6238: 6 digits, 30 s), printed once as an
``otpauth://`` URI on a line of its own and, on a terminal, as a QR code for a phone
authenticator, and optionally a passphrase (``--passphrase-stdin``: one line on stdin),
kept only as its scrypt hash. It writes ``$ORDERGATE_HOME/owner.json`` (0600): run it as the
gateway's OS user. Enrolling again replaces the secret and needs the current owner code.
``status`` says what is enrolled and whether owner acts are locked (from the running
gateway's owner route when one answers, else from the home). ``unlock`` lifts every lock
after wrong codes (the gateway's and each source's), acting on the local home and ledger —
so only who can open them, the gateway's OS user, can — and journals who did.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import anyio
import typer

from ordergate.cli._desk import CodeOption, GatewayOption, desk_failure, desk_for, owner_code
from ordergate.cli._options import DbOption, JsonOption, fail, settings_from

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
    code: CodeOption = None,
    qr: Annotated[
        bool | None,
        typer.Option(
            "--qr/--no-qr",
            help="Draw the QR code (default: when standard output is a terminal).",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Enrol the owner: print the authenticator secret (once) and keep it for the gateway."""
    from ordergate.core import ConfigError, RealtimeClock
    from ordergate.ledger import LedgerError, open_ledger
    from ordergate.owner import (
        ENROLMENT_FILE,
        EnrolmentError,
        OwnerAct,
        OwnerAuthority,
        OwnerRefused,
        check_passphrase_rules,
        new_enrolment,
        provisioning_uri,
        terminal_qr,
        write_enrolment,
    )

    settings = settings_from(None, db, None, False)
    passphrase = None
    if passphrase_stdin:
        passphrase = sys.stdin.readline().rstrip("\r\n")
        try:
            check_passphrase_rules(passphrase)
        except ConfigError as error:
            raise fail(f"cannot enrol: {error}", 2) from None
    path = settings.home / ENROLMENT_FILE
    try:
        ledger = open_ledger(settings.db_url, clock=settings.clock())
    except LedgerError as error:
        raise fail(f"cannot open the ledger: {error}", 2) from None
    with ledger:
        authority = OwnerAuthority(enrolment_path=path, ledger=ledger)
        try:
            existing = authority.enrolment()
        except EnrolmentError as error:
            raise fail(f"cannot enrol: {error}", 2) from None
        credential = None
        if existing is not None:
            typer.echo("an owner is enrolled: enrolling again needs the current code", err=True)
            try:
                credential = authority.authorize(owner_code(code), OwnerAct.ENROL)
            except OwnerRefused as refused:
                raise fail(f"refused: {refused} [{refused.reason}]", 5) from None
        enrolment = new_enrolment(passphrase=passphrase, now=RealtimeClock().now())
        write_enrolment(path, enrolment)
        authority.enrolled(replaced=existing is not None, credential=credential)
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


@owner_app.command("status")
def status_command(
    as_json: JsonOption = False, gateway: GatewayOption = None, db: DbOption = None
) -> None:
    """Say whether an owner is enrolled (and with what) and whether owner acts are locked."""
    settings = settings_from(None, db, None, False)
    status = anyio.run(_status, settings, gateway)
    owner = status["owner"]
    if as_json:
        typer.echo(json.dumps(owner, sort_keys=True))
        return
    if not owner["enrolled"]:
        typer.echo("no owner enrolled: owner acts are refused; run `ordergate owner init`")
        return
    kinds = "authenticator code and passphrase" if owner["passphrase"] else "authenticator code"
    typer.echo(f"owner enrolled ({kinds})")
    if owner["locked_until"]:
        typer.echo(f"owner acts locked until {owner['locked_until']} after wrong codes")
    elif owner["recent_failures"]:
        typer.echo(f"{owner['recent_failures']} wrong code(s) in the last 15 minutes")


@owner_app.command("unlock")
def unlock_command(as_json: JsonOption = False, db: DbOption = None) -> None:
    """Lift the lock on owner acts after wrong codes (run as the gateway's OS user)."""
    import getpass

    from ordergate.ledger import LedgerError, open_ledger
    from ordergate.owner import ENROLMENT_FILE, EnrolmentError, OwnerAuthority

    settings = settings_from(None, db, None, False)
    path = settings.home / ENROLMENT_FILE
    try:
        ledger = open_ledger(settings.db_url, clock=settings.clock())
    except LedgerError as error:
        raise fail(f"cannot open the ledger: {error}", 2) from None
    with ledger:
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


async def _status(settings: Any, gateway: str | None) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(gateway, settings, announce=False) as desk:
        try:
            return await desk.status()
        except DeskError as error:
            raise desk_failure(error) from None
