"""``ordergate bench NAME``: one JSON object per measured case on stdout.

``--pg URL`` names the Postgres server of the ledger and history benches' Postgres cases
(else ``ORDERGATE_TEST_PG_URL``). The URL's password is never printed: not in errors about the URL,
not when the server fails (its messages are shown with the password masked).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from ordergate.bench import BENCHES, Summary, json_line
from ordergate.cli._progress import working
from ordergate.core import register_secret

__all__ = ["bench"]

_PG_BENCHES = frozenset({"ledger", "history"})


def bench(
    name: Annotated[str, typer.Argument(help=f"Which benchmark: {', '.join(BENCHES)}.")],
    quick: Annotated[bool, typer.Option(help="A short run (under a minute).")] = False,
    pg: Annotated[
        str | None,
        typer.Option(
            "--pg",
            metavar="URL",
            help="Postgres server for the ledger and history benches' Postgres cases, e.g. "
            "postgresql://postgres@127.0.0.1:5432/test (default: ORDERGATE_TEST_PG_URL). "
            "The bench works in a scratch database it creates and drops.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Measure NAME against a baseline in the same run; prints JSON lines (p50/p99, ratio)."""
    if name not in BENCHES:
        raise typer.BadParameter(
            f"unknown benchmark (known: {', '.join(BENCHES)})", param_hint="NAME"
        )

    def emit(summary: Summary) -> None:
        typer.echo(json_line(summary.as_json()))

    # stdout stays the JSON lines alone; the spinner is on stderr, and only on a terminal.
    with working(f"bench {name}: measuring (each case in rounds)…"):
        _run(name, quick, pg, emit)


def _run(name: str, quick: bool, pg: str | None, emit: Callable[[Summary], None]) -> None:
    if pg is None:
        BENCHES[name](quick=quick, emit=emit)
        return
    if name not in _PG_BENCHES:
        raise typer.BadParameter(
            "only the ledger and history benches have Postgres cases", param_hint="--pg"
        )
    import psycopg
    from sqlalchemy.exc import SQLAlchemyError

    shown, password = _parse_pg(pg)
    if password:
        register_secret(password)  # masked in log records too
    try:
        BENCHES[name](quick=quick, emit=emit, pg_url=pg)
    except (psycopg.Error, SQLAlchemyError, OSError) as error:
        message = str(error)
        if password:
            message = message.replace(password, "***")
        typer.echo(f"bench {name}: the Postgres server at {shown} failed: {message}", err=True)
        raise typer.Exit(1) from None


def _parse_pg(url: str) -> tuple[str, str | None]:
    """``url`` as it may be shown (password masked) and its password; a usage error, without
    echoing ``url``, unless it is a Postgres URL."""
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise typer.BadParameter("not a database URL", param_hint="--pg") from None
    if parsed.get_backend_name() != "postgresql":
        raise typer.BadParameter("not a postgresql:// URL", param_hint="--pg")
    return parsed.render_as_string(hide_password=True), parsed.password
