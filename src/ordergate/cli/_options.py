"""Options and helpers the ledger- and guard-using commands share.

The configuration is the one ``ordergate serve`` uses: ``ORDERGATE_HOME``, ``--policy``,
``--db``, ``--upstream URL | --sandbox`` (see ``ordergate.runtime.Settings``). Exit codes:
2 for a configuration that cannot be used (bad policy, unusable ledger, bad flags), 1 when
the upstream cannot be reached or signed in to.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ordergate.core import Clock, ConfigError, SecurityClock, ToolError

if TYPE_CHECKING:
    from ordergate.ledger import Ledger
    from ordergate.runtime import Running, Settings

__all__ = [
    "DbOption",
    "JsonOption",
    "PolicyOption",
    "SandboxOption",
    "UpstreamOption",
    "fail",
    "guard_from",
    "open_existing_ledger",
    "settings_from",
]

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Ledger URL (default: ORDERGATE_DB_URL, else $ORDERGATE_HOME/ledger.db).",
        show_default=False,
    ),
]
PolicyOption = Annotated[
    Path | None,
    typer.Option(
        "--policy",
        help="Policy file (default: $ORDERGATE_HOME/policy.toml, written with safe defaults "
        "when missing).",
        show_default=False,
    ),
]
UpstreamOption = Annotated[
    str | None,
    typer.Option(
        "--upstream",
        help="The upstream MCP URL (default: ORDERGATE_UPSTREAM_URL, else where "
        "`ordergate login` signed in, else the embedded sandbox).",
        show_default=False,
    ),
]
SandboxOption = Annotated[
    bool,
    typer.Option("--sandbox", help="Run against an embedded sandbox venue on loopback."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def fail(message: str, code: int) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(code)


def settings_from(
    policy: Path | None,
    db: str | None,
    upstream: str | None,
    sandbox: bool,
    sandbox_start: str | None = None,
) -> Settings:
    from ordergate.runtime import Settings

    try:
        return Settings.resolve(
            policy=policy, db=db, upstream=upstream, sandbox=sandbox, sandbox_start=sandbox_start
        )
    except ConfigError as error:
        raise fail(f"configuration: {error}", 2) from None


def open_existing_ledger(db: str | None) -> Ledger:
    """The ledger at ``db`` (or the default), which must already exist: a mistyped path must
    fail loudly rather than act on a new, empty ledger. It records on wall time, whatever a
    sandbox's market clock says."""
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from ordergate.ledger import LedgerError, open_ledger

    try:
        return open_ledger(db, clock=SecurityClock(), create=False, security_clock=SecurityClock())
    except LedgerError as error:
        problem = str(error)
    except ArgumentError:
        # SQLAlchemy's message repeats the URL, which may hold a password.
        problem = "the URL is not a database URL"
    except SQLAlchemyError as error:
        # The driver's own message (e.g. "connection refused"), without the SQL or links.
        problem = str(error.orig if hasattr(error, "orig") else error).splitlines()[0]
    raise fail(f"cannot open the ledger: {problem}", 2)


@asynccontextmanager
async def guard_from(
    settings: Settings,
    *,
    clock: Clock | None = None,
    ledger: Ledger | None = None,
    deferred: bool = False,
) -> AsyncIterator[Running]:
    """The configured guard (on ``ledger`` when given), with every start-up failure turned
    into a one-line error. ``deferred``: an embedded sandbox venue starts only if a call
    needs it (a read that prices nothing starts none)."""
    from sqlalchemy.exc import SQLAlchemyError

    from ordergate.ledger import LedgerError
    from ordergate.runtime import open_guard

    try:
        clocks = settings.clocks()
        async with open_guard(
            settings,
            clock=clock or clocks.market,
            security_clock=clocks.security,
            ledger=ledger,
            deferred=deferred,
        ) as running:
            for note in running.notes:
                typer.echo(note, err=True)
            yield running
    except ConfigError as error:
        raise fail(f"policy: {error.reason if error.key == 'policy' else error}", 2) from None
    except LedgerError as error:
        raise fail(f"cannot open the ledger: {error}", 2) from None
    except SQLAlchemyError as error:
        first = str(error.orig if hasattr(error, "orig") else error).splitlines()[0]
        raise fail(f"ledger: {first}", 2) from None
    except ToolError as error:
        raise fail(f"upstream: {error}", 1) from None
