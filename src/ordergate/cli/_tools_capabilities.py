"""``ordergate tools capabilities`` and ``ordergate tools readiness``: which named capabilities
the upstream's tools provide, and whether crypto trading appeared or vanished since last time.

Both read the tool list from a live endpoint (``--url``, signed in with ``ordergate login``)
or from a FILE: a snapshot (``{"tools": [...]}`` with ``inputSchema`` or ``input_schema``
per tool, which the 81-tool inventory format also is) or a contract file in the reference
format (``{"tools": {name: {...}}}``). The small loader here stands in until
``ordergate.discovery``'s shared source loader is merged.

Exit codes: ``capabilities`` 0; ``readiness`` 0, 10 (appeared) or 11 (disappeared); both 2
when the tools cannot be had (a bad FILE, state file, override file or flag mix, a failed
sign-in or connection), as the other ``ordergate tools`` commands do. No token is printed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ordergate.client import Config
from ordergate.core import ConfigError, OrdergateError, ToolError
from ordergate.discovery import (
    CAPABILITIES,
    AmbiguousCapability,
    Classifier,
    SnapshotError,
    ToolUnavailable,
    check,
    is_url,
    load_overrides,
    load_surface,
    resolve,
)
from ordergate.inventory import ToolClass

__all__ = ["capabilities_command", "readiness_command"]

NONE = "—"

SourceArgument = Annotated[
    Path | None,
    typer.Argument(help="A snapshot or contract JSON file (instead of --url).", show_default=False),
]
UrlOption = Annotated[
    str | None,
    typer.Option(
        "--url",
        help="The Agentic MCP endpoint (default: where `ordergate login` signed in).",
        show_default=False,
    ),
]
ClassesOption = Annotated[
    Path | None,
    typer.Option(
        "--classes",
        help='Class overrides: a TOML file with a classes table (tool_name = "money").',
        show_default=False,
    ),
]
TokenFileOption = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        help="Token file from `ordergate login` (default: $ORDERGATE_HOME/robinhood-tokens.json).",
        show_default=False,
    ),
]
StateOption = Annotated[
    Path,
    typer.Option("--state", help="The readiness state file (JSON), read then rewritten."),
]


async def _tools(
    source: Path | None,
    url: str | None,
    token_file: Path | None,
    classifier: Callable[[str], ToolClass],
) -> list[dict[str, Any]]:
    if source is not None and url is not None:
        raise ConfigError("--url", "give either --url or a FILE, not both")
    spec = str(source) if source is not None else (url or Config.signed_in(token_file).url)
    if source is not None and is_url(spec):
        raise ConfigError("FILE", "a file path, not a URL (use --url for an endpoint)")
    snapshot = await load_surface(spec, token_file=token_file, classifier=classifier)
    return [entry.descriptor() for entry in snapshot.tools]


def _classifier(classes: Path | None) -> Callable[[str], ToolClass]:
    return Classifier(load_overrides(classes) if classes else None)


def _fail(error: OrdergateError) -> typer.Exit:
    # Text, not markup: a message naming a path with brackets must print as it is.
    Console(stderr=True).print(
        Text.assemble(("error: ", "red"), f"{error!s} ({error.code})"), highlight=False
    )
    return typer.Exit(2)


# Each command's work, output included, happens inside ``anyio.run`` (see ``_login``).


def capabilities_command(
    source: SourceArgument = None,
    url: UrlOption = None,
    token_file: TokenFileOption = None,
    classes: ClassesOption = None,
) -> None:
    """Show which named capabilities the listed tools provide, and by which tool."""
    anyio.run(_capabilities, source, url, token_file, classes)


def readiness_command(
    state: StateOption,
    source: SourceArgument = None,
    url: UrlOption = None,
    token_file: TokenFileOption = None,
    classes: ClassesOption = None,
) -> None:
    """Record whether crypto trading resolves; exit 10 if it appeared, 11 if it went."""
    anyio.run(_readiness, state, source, url, token_file, classes)


async def _capabilities(
    source: Path | None, url: str | None, token_file: Path | None, classes: Path | None
) -> None:
    try:
        classifier = _classifier(classes)
        tools = await _tools(source, url, token_file, classifier)
    except (ConfigError, ToolError, SnapshotError) as error:
        raise _fail(error) from None
    table = Table(title=f"Capabilities ({len(tools)} tools listed)")
    table.add_column("capability")
    table.add_column("tool")
    for name in CAPABILITIES:
        try:
            shown = str(resolve(name, tools, classifier=classifier)["name"])
        except AmbiguousCapability as error:
            shown = "ambiguous: " + ", ".join(error.candidates)
        except ToolUnavailable:
            shown = NONE
        table.add_row(name, shown)
    Console(width=120).print(table)


async def _readiness(
    state: Path,
    source: Path | None,
    url: str | None,
    token_file: Path | None,
    classes: Path | None,
) -> None:
    try:
        classifier = _classifier(classes)
        tools = await _tools(source, url, token_file, classifier)
        readiness, exit_code = check(tools, state, classifier=classifier)
    except (ConfigError, ToolError, SnapshotError) as error:
        raise _fail(error) from None
    typer.echo(f"crypto ready: {'yes' if readiness.ready else 'no'}")
    width = max(len(name) for name in readiness.tools)
    for name, tool in readiness.tools.items():
        typer.echo(f"  {name:<{width}}  {tool or NONE}")
    if readiness.first_run:
        typer.echo("first run: no earlier assessment to compare with")
    if readiness.appeared:
        typer.echo(f"appeared: {', '.join(readiness.appeared)}")
    if readiness.disappeared:
        typer.echo(f"disappeared: {', '.join(readiness.disappeared)}")
    typer.echo(f"recorded in {state}")
    raise typer.Exit(exit_code)
