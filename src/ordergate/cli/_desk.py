"""The owner's commands reach the owner's desk: the running gateway's, else the ledger's.

``desk_for`` asks the gateway at ``--gateway URL`` (default ``ORDERGATE_GATEWAY_URL``, else
``http://127.0.0.1:8787``) for its owner route; when nothing listens there, the commands act
on the ledger directly (``--db``, the same configuration ``ordergate serve`` uses), which
needs what the gateway's OS user has: the ledger and the owner enrolment. Either way an
owner act needs the owner code: ``--code CODE``, else typed at a hidden prompt. A server
that answers at the URL but is not an ordergate gateway is never sent anything.

Exit codes of the owner's commands: 0 done; 2 a configuration or request that cannot be
used; 3 an order refused; 4 an order the broker did not answer; ``EXIT_OWNER_REFUSED`` (5)
the owner code was missing, wrong, replayed or locked out, or nobody is enrolled;
``EXIT_ALREADY_DECIDED`` (6) the approval was decided before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypeVar

import typer

from ordergate.cli._options import fail

if TYPE_CHECKING:
    from ordergate.gateway.desk import DeskError
    from ordergate.runtime import Settings

__all__ = [
    "DEFAULT_GATEWAY_URL",
    "EXIT_ALREADY_DECIDED",
    "EXIT_OWNER_REFUSED",
    "CodeOption",
    "Desk",
    "GatewayOption",
    "desk_failure",
    "desk_for",
    "owner_code",
    "said_delayed",
    "with_code",
]

DEFAULT_GATEWAY_URL = "http://127.0.0.1:8787"
EXIT_OWNER_REFUSED = 5
EXIT_ALREADY_DECIDED = 6
_HOUR = timedelta(hours=1)  # the store's lifetimes: the desk only lists and erases
_OWNER_CODES = frozenset(
    {
        "owner_code_required",
        "owner_code_wrong",
        "owner_code_replayed",
        "owner_locked",
        "owner_not_enrolled",
    }
)

GatewayOption = Annotated[
    str | None,
    typer.Option(
        "--gateway",
        metavar="URL",
        help="The running gateway (default ORDERGATE_GATEWAY_URL, else http://127.0.0.1:8787); "
        "with none running there, the ledger is used directly.",
        show_default=False,
    ),
]
CodeOption = Annotated[
    str | None,
    typer.Option(
        "--code",
        metavar="CODE",
        help="The owner code (an authenticator code, or the passphrase); asked at a hidden "
        "prompt when not given.",
        show_default=False,
    ),
]

_T = TypeVar("_T")


class Desk(Protocol):
    async def status(self) -> dict[str, Any]: ...
    async def approvals(self) -> list[dict[str, Any]]: ...
    async def connections(self) -> list[dict[str, Any]]: ...
    async def approve(self, approval_id: str, code: str | None) -> dict[str, Any]: ...
    async def deny(self, approval_id: str) -> dict[str, Any]: ...
    async def pause(self, reason: str) -> dict[str, Any]: ...
    async def resume(self, code: str | None) -> dict[str, Any]: ...
    async def apply_policy(self, text: str, code: str | None) -> dict[str, Any]: ...
    async def revoke(self, connection_id: str) -> dict[str, Any]: ...
    async def pending_acts(self) -> list[dict[str, Any]]: ...
    async def cancel_delayed(self, act_id: str | None) -> dict[str, Any]: ...

    async def mint(
        self, *, caller: str, profile: str, ttl_s: int, connection: str | None, code: str | None
    ) -> dict[str, Any]: ...


def owner_code(given: str | None) -> str:
    """The owner code: ``--code``, else typed at a hidden prompt; exit 2 when there is no
    terminal to ask at."""
    if given:
        return given
    if not sys.stdin.isatty():
        raise fail("this is an owner act: give the owner code with --code (no terminal to ask)", 2)
    code: str = typer.prompt("Owner code", hide_input=True)
    return code.strip()


async def with_code(act: Callable[[str | None], Awaitable[_T]], given: str | None) -> _T:
    """Run ``act`` without a code unless one was given; if the desk answers that this act
    needs the owner code, ask for it and run ``act`` once more."""
    from ordergate.gateway.desk import DeskError

    if given:
        return await act(given)
    try:
        return await act(None)
    except DeskError as error:
        if error.code != "owner_code_required":
            raise
        return await act(owner_code(None))


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
    if error.code in _OWNER_CODES:
        return fail(f"refused: {error.message} [{error.code}]", EXIT_OWNER_REFUSED)
    if error.code == "approval_decided":
        return fail(error.message, EXIT_ALREADY_DECIDED)
    return fail(f"cannot do that: {error.message} [{error.code}]", 2)


def gateway_url(given: str | None) -> str:
    return given or os.environ.get("ORDERGATE_GATEWAY_URL") or DEFAULT_GATEWAY_URL


@asynccontextmanager
async def desk_for(
    gateway: str | None, settings: Settings, *, announce: bool = True
) -> AsyncIterator[Desk]:
    """The running gateway's desk at ``gateway``, else one over the ledger in ``settings``."""
    from ordergate.gateway.desk import NotAGateway, RemoteDesk, probe

    url = gateway_url(gateway)
    try:
        running = await probe(url)
    except NotAGateway as error:
        raise fail(f"{error}; nothing was sent (give --gateway URL)", 2) from None
    if running:
        async with RemoteDesk(url) as desk:
            yield desk
        return
    if announce:
        typer.echo(f"no gateway answers at {url}: acting on the ledger directly", err=True)
    async with _ledger_desk(settings) as desk:
        yield desk


@asynccontextmanager
async def _ledger_desk(settings: Settings) -> AsyncIterator[Desk]:
    from ordergate.callers import ENV_CALLER_TOKEN_KEY, ENV_MASTER_SECRET, CallerKey
    from ordergate.cli._options import guard_from, open_existing_ledger
    from ordergate.core import ConfigError, RealtimeClock
    from ordergate.gateway.desk import OwnerDesk, policy_baseline
    from ordergate.gateway.oauth import GatewayStore
    from ordergate.ledger import FilingRecord
    from ordergate.owner import ENROLMENT_FILE, OwnerAuthority
    from ordergate.profiles import ProfileError, load_profiles

    clock = RealtimeClock()
    with open_existing_ledger(settings.db_url, clock=settings.clock()) as ledger:

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
        yield OwnerDesk(
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
            policy_path=settings.policy_path,
            profiles=profiles,
            caller_key=key,
        )
