"""The owner's commands reach the owner's desk: the running gateway's, else the ledger's.

``desk_for`` connects to the running gateway's owner channel, a Unix socket
(``--owner-socket PATH``, else ``ORDERGATE_OWNER_SOCKET``, else
``$ORDERGATE_HOME/run/owner.sock``, else the systemd service's ``/run/ordergate/owner.sock``:
``command_socket``), after checking it is the real gateway's: the socket and
the directories above it are root's or the serving process's own, and nobody else can write
where it is (``ordergate.gateway.desk.open_channel``). A socket that fails a check is refused
with the reason and nothing is sent anywhere. With no socket there (no gateway runs), the
commands act on the ledger directly (``--db``, the same configuration ``ordergate serve``
uses), which needs what the gateway's OS user has — and say so. No owner command talks TCP.

An owner act that may need the owner code is prepared first (``owner_act``): the gateway's
summary of exactly what will run is printed, then the code is read — at a hidden prompt, or
as one line of standard input with ``--code-stdin``, never from the command line — and spent
on that prepared act only.

Exit codes of the owner's commands: 0 done; 2 a configuration or request that cannot be
used; 3 an order refused; 4 an order the broker did not answer; ``EXIT_OWNER_REFUSED`` (5)
the owner code was missing, wrong, spent, replayed or locked out, or nobody is enrolled;
``EXIT_ALREADY_DECIDED`` (6) the approval was decided before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import typer

from ordergate.cli._options import fail

if TYPE_CHECKING:
    from ordergate.gateway.desk import DeskError
    from ordergate.runtime import Settings

__all__ = [
    "EXIT_ALREADY_DECIDED",
    "EXIT_OWNER_REFUSED",
    "ChannelOption",
    "CodeStdinOption",
    "Desk",
    "command_socket",
    "desk_failure",
    "desk_for",
    "owner_act",
    "read_owner_code",
    "said_delayed",
]

EXIT_OWNER_REFUSED = 5
EXIT_ALREADY_DECIDED = 6
_HOUR = timedelta(hours=1)  # the store's lifetimes: the desk only lists and erases
_OWNER_CODES = frozenset(
    {
        "owner_code_required",
        "owner_code_wrong",
        "owner_code_replayed",
        "owner_code_spent",
        "owner_locked",
        "owner_not_enrolled",
    }
)

ChannelOption = Annotated[
    Path | None,
    typer.Option(
        "--owner-socket",
        metavar="PATH",
        help="The running gateway's owner channel (default ORDERGATE_OWNER_SOCKET, else "
        "$ORDERGATE_HOME/run/owner.sock); with no gateway there, the ledger is used directly.",
        show_default=False,
    ),
]
CodeStdinOption = Annotated[
    bool,
    typer.Option(
        "--code-stdin",
        help="Read the owner code (an authenticator code, or the passphrase) as one line of "
        "standard input instead of at a hidden prompt.",
    ),
]


class Desk(Protocol):
    async def status(self) -> dict[str, Any]: ...
    async def approvals(self) -> list[dict[str, Any]]: ...
    async def connections(self) -> list[dict[str, Any]]: ...
    async def deny(self, approval_id: str) -> dict[str, Any]: ...
    async def pause(
        self, reason: str, *, cancel_open: bool = False, connection_id: str | None = None
    ) -> dict[str, Any]: ...
    async def revoke(self, connection_id: str) -> dict[str, Any]: ...
    async def connection_limits(self, connection_id: str) -> list[dict[str, Any]]: ...
    async def tighten_limits(self, connection_id: str, limits: object) -> dict[str, Any]: ...
    async def approval_mode(self, connection_id: str, on: bool) -> dict[str, Any]: ...
    async def pending_acts(self) -> list[dict[str, Any]]: ...
    async def cancel_delayed(self, act_id: str | None) -> dict[str, Any]: ...
    async def prepare(self, act: str, params: dict[str, Any]) -> dict[str, Any]: ...
    async def authorize_act(self, act_id: str, digest: str, code: str | None) -> dict[str, Any]: ...


def read_owner_code(from_stdin: bool) -> str:
    """The owner code: one line of standard input (``--code-stdin``), else typed at a hidden
    prompt; exit 2 when there is neither."""
    if from_stdin:
        code = sys.stdin.readline().strip()
        if not code:
            raise fail("this is an owner act: --code-stdin read no owner code", 2)
        return code
    if not sys.stdin.isatty():
        raise fail(
            "this is an owner act: type the owner code at a terminal, or give it as one line "
            "of standard input with --code-stdin",
            2,
        )
    typed: str = typer.prompt("Owner code", hide_input=True)
    return typed.strip()


async def owner_act(
    desk: Desk, act: str, params: dict[str, Any], *, code_stdin: bool
) -> dict[str, Any]:
    """Prepare ``act`` on ``desk``; when it needs the owner code, print the gateway's summary
    of what will run (on standard error), read the code and authorise that prepared act."""
    prepared = await desk.prepare(act, params)
    code = None
    if prepared["needs_code"]:
        for line in prepared["summary"]:
            typer.echo(line, err=True)
        code = read_owner_code(code_stdin)
    return await desk.authorize_act(prepared["act_id"], prepared["digest"], code)


def command_socket(home: Path) -> Path:
    """Where the owner's commands look for the owner channel: ``ORDERGATE_OWNER_SOCKET``;
    else ``home/run/owner.sock`` when a socket is there; else the systemd service's
    (``/run/ordergate/owner.sock``, in a directory only root could have made) when one is
    there; else ``home/run/owner.sock``."""
    from ordergate.gateway.desk import owner_socket_path
    from ordergate.service import OWNER_SOCKET

    chosen = owner_socket_path(home)
    if os.environ.get("ORDERGATE_OWNER_SOCKET") or chosen.exists():
        return chosen
    return OWNER_SOCKET if OWNER_SOCKET.exists() else chosen


def said_delayed(answer: dict[str, Any]) -> bool:
    """Whether the desk answered that the act waits the owner's delay (then said so)."""
    delayed = answer.get("delayed")
    if not isinstance(delayed, dict):
        return False
    typer.echo(f"waiting: {delayed['id']} ({delayed['act']}): {delayed['summary']}")
    typer.echo(str(answer.get("message", "")), err=True)
    return True


def desk_failure(error: DeskError) -> typer.Exit:
    """Print a desk's refusal (its sentence and code) and the exit code it means."""
    # A person's code refused on their own connection (``person_…``) is an owner code refused.
    if error.code in _OWNER_CODES or error.code.startswith("person_"):
        return fail(f"refused: {error.message} [{error.code}]", EXIT_OWNER_REFUSED)
    if error.code == "approval_decided":
        return fail(error.message, EXIT_ALREADY_DECIDED)
    return fail(f"cannot do that: {error.message} [{error.code}]", 2)


@asynccontextmanager
async def desk_for(
    channel: Path | None, settings: Settings, *, announce: bool = True
) -> AsyncIterator[Desk]:
    """The running gateway's desk on its owner channel, else one over the ledger in
    ``settings``. Exits 2, sending nothing, when the socket there is not the real gateway's."""
    from ordergate.gateway.desk import (
        ChannelRefused,
        NoChannel,
        RemoteDesk,
        open_channel,
    )
    from ordergate.store import blocking

    path = channel or command_socket(settings.home)
    try:
        checked = await blocking(open_channel, path)
    except ChannelRefused as error:
        raise fail(f"refused the owner channel: {error}; nothing was sent", 2) from None
    except NoChannel:
        checked = None
    if checked is not None:
        checked.close()  # each act opens (and checks) a connection of its own
        if announce:
            typer.echo(f"acting through the running gateway's owner channel {path}", err=True)
        yield RemoteDesk(path)
        return
    if announce:
        typer.echo(f"no gateway serves {path}: acting on the ledger directly", err=True)
    async with _ledger_desk(settings) as desk:
        yield desk


@asynccontextmanager
async def _ledger_desk(settings: Settings) -> AsyncIterator[Desk]:
    from ordergate.callers import ENV_CALLER_TOKEN_KEY, ENV_MASTER_SECRET, CallerKey
    from ordergate.cli._options import guard_from, open_existing_ledger
    from ordergate.core import ConfigError, RealtimeClock
    from ordergate.gateway.desk import owner_desk, policy_baseline
    from ordergate.gateway.oauth import GatewayStore
    from ordergate.ledger import FilingRecord
    from ordergate.owner import ENROLMENT_FILE, OwnerAuthority
    from ordergate.profiles import ProfileError, load_profiles

    clock = RealtimeClock()
    with open_existing_ledger(settings.db_url) as ledger:

        @asynccontextmanager
        async def guard_for(record: FilingRecord) -> AsyncIterator[Any]:
            async with guard_from(settings, ledger=ledger) as running:
                yield running.guard

        try:
            profiles = load_profiles(settings.home, policy_baseline(ledger)[0])
        except (ProfileError, ConfigError) as error:
            raise fail(f"profile: {error}", 2) from None
        key = None
        if os.environ.get(ENV_CALLER_TOKEN_KEY) or os.environ.get(ENV_MASTER_SECRET):
            try:
                key = CallerKey.from_environ(os.environ)
            except ConfigError as error:
                # The message names the variable and the rule, never a value.
                raise fail(f"cannot use the caller-token key: {error}", 2) from None
        # The gateway's one composition of the desk, on this ledger: no webhook announces
        # from here (the running gateway does), and the store only lists and erases.
        yield owner_desk(
            settings,
            authority=OwnerAuthority(enrolment_path=settings.home / ENROLMENT_FILE, ledger=ledger),
            ledger=ledger,
            store=GatewayStore(
                ledger.engine,
                clock=clock,
                access_ttl=_HOUR,
                refresh_ttl=_HOUR,
                code_ttl=_HOUR,
                consent_ttl=_HOUR,
            ),
            guard_for=guard_for,
            mode="ledger",
            profiles=profiles,
            caller_key=key,
            clock=clock,
        )
