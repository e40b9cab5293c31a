"""``ordergate tools …``: snapshot the venue's tool surface, list it, and check it for drift.

Exit codes: ``snapshot`` and ``list`` 0, or 2 with the reason (a failed sanity check, an
unreadable or unrecognised file, a failed sign-in or connection). ``drift`` 0 when nothing
drifted, 1 when something did (with ``--fail-on breaking``, only a breaking change), 2 when a
side cannot be loaded. Nothing here ever prints or writes a token.

The discovery modules (and through them the MCP client) are imported inside the commands, so
other commands do not pay for them at start-up.
"""

from __future__ import annotations

import json
from collections import defaultdict
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import anyio
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ordergate.cli._progress import working
from ordergate.cli._tools_capabilities import capabilities_command, readiness_command
from ordergate.core import ConfigError, OrdergateError

if TYPE_CHECKING:
    from ordergate.discovery import Change, Snapshot

__all__ = ["tools_app"]

tools_app = typer.Typer(
    help="The venue's tools: dated snapshots, listings and classified drift.",
    no_args_is_help=True,
)

NONE = "—"

TokenFileOption = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        help="Token file from `ordergate login` (default: $ORDERGATE_HOME/robinhood-tokens.json).",
        show_default=False,
    ),
]


class FailOn(StrEnum):
    BREAKING = "breaking"
    ANY = "any"


def _fail(error: OrdergateError) -> typer.Exit:
    code = getattr(error, "code", "")
    # Text, not markup: a message naming a path with brackets must print as it is.
    Console(stderr=True).print(
        Text.assemble(("error: ", "red"), f"{error!s} ({code})"), highlight=False
    )
    return typer.Exit(2)


async def _load(spec: str, token_file: Path | None) -> Snapshot:
    from ordergate.discovery import load_surface

    try:
        return await load_surface(spec, token_file=token_file)
    except OrdergateError as error:
        raise _fail(error) from None


# Each command's work, output included, happens inside ``anyio.run``: nothing follows the
# run in the calling frame, whose tracing CPython 3.11 can lose after a cancelled task group
# (python/cpython#106749).


@tools_app.command("snapshot")
def snapshot_command(
    out: Annotated[Path, typer.Option("--out", help="Where to write the snapshot (JSON).")],
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="The Agentic MCP endpoint (default: where `ordergate login` signed in).",
        ),
    ] = None,
    token_file: TokenFileOption = None,
) -> None:
    """Drain tools/list and write a sorted, diffable snapshot; exit 2 if a sanity check fails."""
    anyio.run(_snapshot, url, out, token_file)


def _signed_in_url(token_file: Path | None) -> str:
    """Where ``ordergate login`` signed in (the token file records it), or exit 2 saying
    why there is no such server."""
    from ordergate.client import Config

    try:
        return Config.signed_in(token_file).url
    except OrdergateError as error:
        raise _fail(error) from None


async def _snapshot(url: str | None, out: Path, token_file: Path | None) -> None:
    from ordergate.discovery import is_url

    if url is None:
        url = _signed_in_url(token_file)
    elif not is_url(url):
        raise _fail(ConfigError("--url", f"must be an http(s) URL, got {url!r}"))
    with working(f"tools snapshot: draining tools/list from {url}…"):
        snapshot = await _load(url, token_file)
    partial = out.with_name(out.name + ".partial")
    try:
        # Written aside and renamed, so a failed write never leaves half a snapshot at ``out``.
        partial.write_text(snapshot.to_json(), encoding="utf-8")
        partial.replace(out)
    except OSError as error:
        raise _fail(ConfigError(str(out), f"cannot write ({type(error).__name__})")) from None
    server = " ".join(filter(None, (snapshot.server_name, snapshot.server_version))) or "server"
    protocol = f" (protocol {snapshot.protocol_version})" if snapshot.protocol_version else ""
    typer.echo(f"Wrote {snapshot.tool_count} tools of {server}{protocol} to {out}.")


@tools_app.command("list")
def list_command(
    file: Annotated[
        str | None,
        typer.Argument(help="A snapshot, contract or inventory file.", show_default=False),
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="List a live endpoint instead (default: where `ordergate login` signed in).",
        ),
    ] = None,
    token_file: TokenFileOption = None,
) -> None:
    """A table of the tools: name, class, account parameter, read-only hint."""
    if file is not None and url is not None:
        raise typer.BadParameter("give FILE or --url, not both", param_hint="--url")
    anyio.run(_list, file or url, token_file, file is None)


async def _list(spec: str | None, token_file: Path | None, live: bool) -> None:
    from ordergate.discovery import is_url

    if spec is None:
        spec = _signed_in_url(token_file)
    elif live and not is_url(spec):
        raise _fail(ConfigError("--url", f"must be an http(s) URL, got {spec!r}"))
    snapshot = await _load(spec, token_file)
    title = f"{snapshot.tool_count} tools"
    if snapshot.source:
        title += f" from {snapshot.source}"
    table = Table(title=title)
    for column in ("name", "class", "account parameter", "read-only"):
        table.add_column(column)
    hints = {True: "yes", False: "no", None: NONE}
    for entry in snapshot.tools:
        table.add_row(
            entry.name,
            entry.tool_class.value,
            ", ".join(entry.account_parameters) or NONE,
            hints[entry.read_only_hint],
        )
    Console(width=120).print(table)


@tools_app.command("drift")
def drift_command(
    old: Annotated[str, typer.Argument(help="The older side: a file or a live URL.")],
    new: Annotated[str, typer.Argument(help="The newer side: a file or a live URL.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the classified changes as a JSON list.")
    ] = False,
    fail_on: Annotated[
        FailOn, typer.Option("--fail-on", help="Which changes exit 1: any, or breaking only.")
    ] = FailOn.ANY,
    token_file: TokenFileOption = None,
) -> None:
    """Classify every change from OLD to NEW (breaking, additive, cosmetic); exit 1 on drift."""
    anyio.run(_drift, old, new, as_json, fail_on, token_file)


async def _drift(
    old_spec: str, new_spec: str, as_json: bool, fail_on: FailOn, token_file: Path | None
) -> None:
    from ordergate.discovery import Compat, diff

    old = await _load(old_spec, token_file)
    new = await _load(new_spec, token_file)
    changes = diff(old, new)
    if as_json:
        typer.echo(json.dumps([change.as_json() for change in changes], indent=2))
    else:
        typer.echo(_report(old, new, changes))
    counted = changes
    if fail_on is FailOn.BREAKING:
        counted = [change for change in changes if change.compat is Compat.BREAKING]
    if counted:
        raise typer.Exit(1)


def _describe(snapshot: Snapshot) -> str:
    server = " ".join(filter(None, (snapshot.server_name, snapshot.server_version)))
    parts = [snapshot.source or "snapshot", f"{snapshot.tool_count} tools"]
    if server:
        parts.append(server)
    if snapshot.captured_at is not None:
        parts.append(snapshot.captured_at.isoformat().replace("+00:00", "Z"))
    return ", ".join(parts)


def _report(old: Snapshot, new: Snapshot, changes: list[Change]) -> str:
    from ordergate.discovery import ChangeKind, Compat

    lines = [f"old: {_describe(old)}", f"new: {_describe(new)}"]
    if not changes:
        return "\n".join([*lines, "No drift."])
    by_kind: dict[ChangeKind, dict[str, list[Change]]] = defaultdict(dict)
    for change in changes:
        by_kind[change.kind].setdefault(change.tool, []).append(change)
    for kind in (ChangeKind.ADDED, ChangeKind.REMOVED, ChangeKind.CHANGED):
        tools = by_kind.get(kind)
        if not tools:
            continue
        lines.append("")
        lines.append(kind.value.upper())
        for tool, found in tools.items():
            first = found[0]
            if kind is ChangeKind.CHANGED:
                lines.append(f"  {tool} [{first.tool_class.value}]")
                lines += [f"    {c.compat.value:<9} {c.path}: {c.detail}" for c in found]
            else:
                lines.append(f"  {tool} [{first.tool_class.value}] {first.compat.value}")
    totals = {compat: sum(c.compat is compat for c in changes) for compat in Compat}
    lines.append("")
    lines.append(", ".join(f"{count} {compat.value}" for compat, count in totals.items()))
    return "\n".join(lines)


# Capabilities and readiness live in their own module; they are commands of this group.
tools_app.command("capabilities")(capabilities_command)
tools_app.command("readiness")(readiness_command)
