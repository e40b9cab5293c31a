"""``ordergate sandbox …``: run the simulated Robinhood Agentic venue."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Annotated

import typer
from rich.console import Console

from ordergate.core import ClockMode, ConfigError

__all__ = ["sandbox_app"]

sandbox_app = typer.Typer(
    help="The sandbox venue: a faithful simulation of Robinhood's Agentic Trading MCP.",
    no_args_is_help=True,
)


def _parse_start(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        start = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(
            "expected ISO-8601, e.g. 2026-12-01T14:30:00Z", param_hint="--start"
        ) from None
    if start.tzinfo is None:
        raise typer.BadParameter("give a timezone, e.g. 2026-12-01T14:30:00Z", param_hint="--start")
    return start


def _parse_decimal(value: str, hint: str) -> Decimal:
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise typer.BadParameter("expected a decimal number", param_hint=hint) from None
    if not number.is_finite():
        raise typer.BadParameter("expected a finite decimal number", param_hint=hint)
    return number


@sandbox_app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="Loopback address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0 picks a free one).")] = 8790,
    seed: Annotated[
        int, typer.Option(help="Seed for prices, ids and fills: same seed, same venue.")
    ] = 0,
    clock: Annotated[
        ClockMode,
        typer.Option(
            help="realtime, accelerated (--speed× wall time) or stepped (moved by tests)."
        ),
    ] = ClockMode.REALTIME,
    start: Annotated[
        str | None,
        typer.Option(
            metavar="ISO",
            help="Start the market at this instant, ISO-8601 with zone (e.g. "
            "2026-12-01T15:00:00Z, a Tuesday's regular session); the clock runs from there at "
            "wall speed (realtime), --speed times faster (accelerated) or when moved (stepped).",
        ),
    ] = None,
    speed: Annotated[
        str, typer.Option(metavar="N", help="Speed-up of the accelerated clock.")
    ] = "60",
    page_size: Annotated[int, typer.Option(help="Tools per tools/list page.")] = 20,
    framing: Annotated[str, typer.Option(help="Default response framing: json or sse.")] = "json",
    cash: Annotated[str, typer.Option(help="Starting cash of the agentic account.")] = "100000.00",
    approval_required: Annotated[
        bool,
        typer.Option(
            "--approval-required",
            help="Start with Robinhood's trade-approval setting on.",
            show_default=False,
        ),
    ] = False,
    account_type: Annotated[
        str,
        typer.Option(
            metavar="cash|margin",
            help="The agentic account's type: multi-leg option orders need margin.",
        ),
    ] = "cash",
    option_level: Annotated[
        int,
        typer.Option(
            metavar="1|2|3",
            help="The agentic account's option level: 1 closes and sells covered, 2 also buys "
            "to open (one leg), 3 takes up to four legs (spreads; margin accounts only).",
        ),
    ] = 2,
    admin: Annotated[
        bool,
        typer.Option("--admin/--no-admin", help="Serve the loopback-only /_sandbox admin routes."),
    ] = True,
    user: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME",
            help="A named user with their own accounts, signing in with their name and a "
            "password drawn from the seed (GET /_sandbox/users); repeat for each. None: one "
            "unnamed user who signs in with a click.",
        ),
    ] = None,
    access_token_ttl: Annotated[
        int,
        typer.Option(
            metavar="SECONDS", help="Access-token lifetime in seconds (live tokens last ~9 days)."
        ),
    ] = 9 * 24 * 3600,
) -> None:
    """Serve the sandbox venue: OAuth 2.1 + MCP (streamable HTTP) at /mcp/trading."""
    from ordergate.sandbox import Framing, SandboxConfig, serve_forever

    if framing not in ("json", "sse"):
        raise typer.BadParameter("expected json or sse", param_hint="--framing")
    try:
        config = SandboxConfig(
            host=host,
            port=port,
            seed=seed,
            clock=clock,
            start=_parse_start(start),
            speed=_parse_decimal(speed, "--speed"),
            page_size=page_size,
            framing=Framing(framing),
            cash=_parse_decimal(cash, "--cash"),
            approval_required=approval_required,
            account_type=account_type,
            option_level=option_level,
            admin=admin,
            access_token_ttl=timedelta(seconds=access_token_ttl),
            users=tuple(user or ()),
        )
    except ConfigError as error:
        # Name the option the user typed, not the config field behind it.
        option = "--user" if error.key == "users" else "--" + error.key.replace("_", "-")
        raise typer.BadParameter(error.reason, param_hint=option) from None
    serve_forever(config, console=Console(stderr=True))
