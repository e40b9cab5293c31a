"""``ordergate client-config CLIENT``: the configuration that connects one MCP client.

Each client's format is the one its own documentation gives (checked 2026-12-01):

- Claude Desktop, ``claude_desktop_config.json``: ``mcpServers.NAME`` with ``command`` and
  ``args`` (modelcontextprotocol.io/quickstart/user). Its own remote connectors are reached
  from Anthropic's cloud, which cannot see a gateway on this machine's loopback, so a local
  gateway goes through ``mcp-remote`` (npm), a stdio process that speaks streamable HTTP
  and OAuth for it; mcp-remote refuses plain ``http`` except to ``localhost`` and
  ``127.0.0.1`` unless given ``--allow-http`` (its README).
- Claude Code: ``claude mcp add --transport http NAME URL`` (code.claude.com/docs/en/mcp).
- Cursor, ``~/.cursor/mcp.json``: ``mcpServers.NAME.url`` (cursor.com/docs/mcp).
- VS Code, ``.vscode/mcp.json``: ``servers.NAME`` with ``"type": "http"`` and ``url``
  (code.visualstudio.com/docs/copilot/reference/mcp-configuration).
- Codex, ``~/.codex/config.toml``: a ``[mcp_servers.NAME]`` table with ``url``, then
  ``codex mcp login NAME`` for OAuth (developers.openai.com/codex/mcp).

Every one of them registers itself at the gateway and sends the owner to its consent page.
The configuration goes to stdout alone (so it can be piped into the file); where it goes, to
stderr. Exit status: 0, or 2 for a bad ``--url`` or ``--name``.
"""

from __future__ import annotations

import json
import re
import shlex
from enum import StrEnum
from typing import Annotated
from urllib.parse import urlsplit, urlunsplit

import typer

__all__ = ["MCP_REMOTE", "Client", "client_config", "client_config_command"]

MCP_REMOTE = "mcp-remote@0.15.1"
"""The mcp-remote the Claude Desktop configuration runs: the version the test suite drives."""
DEFAULT_URL = "http://127.0.0.1:8787/mcp"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_MCP_REMOTE_PLAIN_HTTP = frozenset({"localhost", "127.0.0.1"})


class Client(StrEnum):
    CLAUDE_DESKTOP = "claude-desktop"
    CLAUDE_CODE = "claude-code"
    CURSOR = "cursor"
    VSCODE = "vscode"
    CODEX = "codex"


_WHERE = {
    Client.CLAUDE_DESKTOP: "merge into claude_desktop_config.json (Settings > Developer > Edit "
    "Config), then restart Claude Desktop; needs Node.js for npx",
    Client.CLAUDE_CODE: "run it in a shell; in Claude Code, /mcp then signs in",
    Client.CURSOR: "merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
    Client.VSCODE: "merge into .vscode/mcp.json in the workspace (or the user mcp.json)",
    Client.CODEX: "append to ~/.codex/config.toml",
}


def mcp_url(url: str) -> str:
    """``url`` as the gateway's MCP endpoint: ``/mcp`` added to a bare server URL.

    Raises ``typer.BadParameter`` (naming ``--url``) for anything but an http(s) URL with a
    host and no query, fragment or credentials."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise typer.BadParameter("must be an http:// or https:// URL", param_hint="--url")
    if parts.query or parts.fragment or parts.username is not None:
        raise typer.BadParameter("must have no query, fragment or user name", param_hint="--url")
    path = parts.path if parts.path not in ("", "/") else "/mcp"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def client_config(client: Client, *, url: str, name: str) -> str:
    """The configuration text that connects ``client`` to the gateway at ``url`` (its MCP
    endpoint) under ``name``."""
    if client is Client.CLAUDE_DESKTOP:
        args = ["-y", MCP_REMOTE, url]
        if urlsplit(url).scheme == "http" and urlsplit(url).hostname not in _MCP_REMOTE_PLAIN_HTTP:
            args.append("--allow-http")
        return _json({"mcpServers": {name: {"command": "npx", "args": args}}})
    if client is Client.CLAUDE_CODE:
        return f"claude mcp add --transport http {shlex.quote(name)} {shlex.quote(url)}\n"
    if client is Client.CURSOR:
        return _json({"mcpServers": {name: {"url": url}}})
    if client is Client.VSCODE:
        return _json({"servers": {name: {"type": "http", "url": url}}})
    # Codex. A TOML basic string takes the same escapes as JSON for what a URL may hold;
    # the name is a bare key (letters, digits, _ and -), checked before we get here.
    return f"[mcp_servers.{name}]\nurl = {json.dumps(url)}\n# then: codex mcp login {name}\n"


def _json(value: object) -> str:
    return json.dumps(value, indent=2) + "\n"


def client_config_command(
    client: Annotated[
        str,
        typer.Argument(
            help="The MCP client: claude-desktop, claude-code, cursor, vscode or codex.",
            metavar="CLIENT",
            show_default=False,
        ),
    ],
    url: Annotated[
        str,
        typer.Option(
            "--url",
            metavar="URL",
            help="The gateway's MCP endpoint; a bare server URL gets /mcp added.",
        ),
    ] = DEFAULT_URL,
    name: Annotated[
        str,
        typer.Option(
            "--name",
            metavar="NAME",
            help="The name the client shows for the gateway (letters, digits, _ and -).",
        ),
    ] = "ordergate",
) -> None:
    """Print the configuration that connects an MCP client to the gateway.

    The client registers itself and sends you to the gateway's consent page on first use.
    """
    # A plain string, not the enum: Typer would print the choices as a metavar too wide for
    # 80 columns; the help sentence names them.
    try:
        chosen = Client(client)
    except ValueError:
        raise typer.BadParameter(
            "one of " + ", ".join(c.value for c in Client), param_hint="CLIENT"
        ) from None
    if not _NAME.fullmatch(name):
        raise typer.BadParameter(
            "letters, digits, _ and - only, starting with a letter or digit, at most 64",
            param_hint="--name",
        )
    text = client_config(chosen, url=mcp_url(url), name=name)
    typer.echo(text, nl=False)
    typer.echo(f"# {chosen.value}: {_WHERE[chosen]}", err=True)
