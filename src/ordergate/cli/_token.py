"""``ordergate token mint``: a caller-bound capability token for one agent (issue 7 §2).

Prints the token alone on stdout (so ``TOKEN=$(ordergate token mint ...)`` works) and its
expiry on stderr. The running gateway mints it over its owner route with its own key (so the
key need not be where the command runs); with no gateway running, the key comes from
``ORDERGATE_CALLER_TOKEN_KEY``, else is derived from ``ORDERGATE_MASTER_SECRET``. The key is
never printed, and neither is the master secret; with no key, it says which variable to set
and exits 2. The expiry line names the token's mint (``caller:NAME#MINT``), which is what
``ordergate connections revoke`` takes to revoke this token alone before it expires. A token
whose profile can place or cancel orders is an owner act: the owner code is asked for
(``--code``, or a hidden prompt), and a refused code exits 5.

``--ttl`` is a whole number of seconds, minutes or hours (``90s``, ``15m``, ``2h``), at most
24 hours. The profile must be one this host defines (a built-in or a file in
``ORDERGATE_HOME/profiles``); the gateway checks it again, in full, when the token is used.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer

from ordergate.callers import CALLER_PATTERN, MAX_TTL, PROFILE_PATTERN
from ordergate.cli._desk import ChannelOption, CodeStdinOption, desk_failure, desk_for, owner_act
from ordergate.cli._options import DbOption, settings_from
from ordergate.client import ordergate_home
from ordergate.profiles import BUILTIN_PROFILES

__all__ = ["parse_ttl", "token_app"]

token_app = typer.Typer(
    help="Caller-bound capability tokens for agents that cannot run an OAuth flow.",
    no_args_is_help=True,
)

_TTL = re.compile(r"([1-9][0-9]{0,5})([smh])")
_UNITS = {"s": timedelta(seconds=1), "m": timedelta(minutes=1), "h": timedelta(hours=1)}


def parse_ttl(text: str) -> timedelta:
    """``90s``, ``15m`` or ``2h`` as a duration of at most 24 hours; a usage error naming
    ``--ttl`` otherwise."""
    match = _TTL.fullmatch(text)
    if match is None:
        raise typer.BadParameter(
            "give a whole number and s, m or h, e.g. 90s, 15m, 2h", param_hint="--ttl"
        )
    ttl = int(match[1]) * _UNITS[match[2]]
    if ttl > MAX_TTL:
        raise typer.BadParameter("at most 24h", param_hint="--ttl")
    return ttl


def defined_profiles() -> frozenset[str]:
    """The profile names a gateway on this host defines: the built-ins and the files in
    ``ORDERGATE_HOME/profiles`` (each file is checked in full when the gateway loads it)."""
    folder = ordergate_home() / "profiles"
    files = {path.stem for path in folder.glob("*.yaml")} if folder.is_dir() else set()
    return frozenset(BUILTIN_PROFILES) | files


@token_app.command("mint")
def mint_command(
    caller: Annotated[
        str,
        typer.Option(metavar="NAME", help="Who the token speaks for: 1-64 of A-Z a-z 0-9 . _ -"),
    ],
    profile: Annotated[
        str, typer.Option(metavar="P", help="The profile it acts under: 1-64 of a-z 0-9 _ -")
    ],
    ttl: Annotated[
        str, typer.Option(help="How long it lasts: 90s, 15m, 2h (at most 24h).")
    ] = "15m",
    connection: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            help="The gateway connection whose upstream session it acts on (when several).",
            show_default=False,
        ),
    ] = None,
    code_stdin: CodeStdinOption = False,
    channel: ChannelOption = None,
    db: DbOption = None,
) -> None:
    """Print a caller token for NAME under profile P; the signing key is never printed. A
    profile that can place or cancel makes this an owner act (it asks for the owner code)."""
    lifetime = parse_ttl(ttl)
    if CALLER_PATTERN.fullmatch(caller) is None:
        raise typer.BadParameter("1-64 characters of A-Z a-z 0-9 . _ -", param_hint="--caller")
    if PROFILE_PATTERN.fullmatch(profile) is None:
        raise typer.BadParameter("1-64 characters of a-z 0-9 _ -", param_hint="--profile")
    known = defined_profiles()
    if profile not in known:
        raise typer.BadParameter(
            f"no such profile (defined: {', '.join(sorted(known))})", param_hint="--profile"
        )
    if connection is not None and CALLER_PATTERN.fullmatch(connection) is None:
        raise typer.BadParameter("1-64 characters of A-Z a-z 0-9 . _ -", param_hint="--connection")
    request = {
        "caller": caller,
        "profile": profile,
        "ttl_s": int(lifetime.total_seconds()),
        "connection": connection,
    }
    settings = settings_from(None, db, None, False)
    minted = anyio.run(_mint, settings, channel, request, code_stdin)
    if "delayed" in minted:  # a trading token waits the owner's delay; stdout holds tokens only
        typer.echo(f"waiting: {minted['delayed']['id']}: {minted['message']}", err=True)
        return
    typer.echo(minted["token"])
    typer.echo(
        f"expires {minted['expires_at']} (signed with the key from {minted['key_source']}); "
        f"revoke it with: ordergate connections revoke 'caller:{caller}#{minted['mint_id']}'",
        err=True,
    )


async def _mint(
    settings: Any, channel: Path | None, request: dict[str, Any], code_stdin: bool
) -> dict[str, Any]:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings) as desk:
        try:
            return await owner_act(desk, "token_mint", request, code_stdin=code_stdin)
        except DeskError as error:
            raise desk_failure(error) from None
