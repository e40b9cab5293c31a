"""``mcp-remote`` (pinned) as a stdio MCP server in front of ``ordergate serve --sandbox``,
run with exactly the arguments ``ordergate client-config claude-desktop`` prints and driven
as Claude Desktop drives it: JSON-RPC lines on its stdin and stdout. It signs in on its own:
discovery, registration, a browser sent to the consent page, the code received on its
loopback callback, the exchange. The browser is headless: ``BROWSER`` (which the ``open``
package's ``xdg-open`` runs with the URL) names a stand-in that hands the URL to this test,
which approves as the owner. Then it lists the tools, reads a quote and places an order the
policy holds for the owner (``pending_approval``: a handshake-era client), which the owner
approves on the owner channel; the agent's ``gate_record`` shows it placed."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from consent_kit import approve
from gateway_testkit import HELD_ORDER, HELD_POLICY, PLACED, sandbox_gateway
from npm_testkit import PINNED, installed, node
from owner_testkit import channel_act, enrol
from stdio_kit import StdioPeer
from typer.testing import CliRunner

from ordergate.cli import app

HERE = Path(__file__).resolve().parent
BOUND_S = 30.0
PROTOCOL = "2025-06-18"


def _browser(tmp_path: Path) -> Path:
    script = tmp_path / "browser"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "browser_handoff.py"}" "$1"\n')
    script.chmod(0o700)
    return script


def _claude_desktop_command(modules: Path, mcp_url: str) -> list[str]:
    """The command ``client-config claude-desktop`` configures for ``mcp_url``, with its
    ``npx -y mcp-remote@VERSION`` run from the test kit's install of that same version."""
    printed = CliRunner().invoke(app, ["client-config", "claude-desktop", "--url", mcp_url])
    assert printed.exit_code == 0, printed.output
    (entry,) = json.loads(printed.stdout)["mcpServers"].values()
    assert entry["command"] == "npx"
    flag, package, *args = entry["args"]
    assert (flag, package) == ("-y", f"mcp-remote@{PINNED['mcp-remote']}")
    return [node(), str(modules / "mcp-remote" / "dist" / "proxy.js"), *args]


def _environment(tmp_path: Path, handoff_port: int) -> dict[str, str]:
    """A desktop-less session: no display or desktop for xdg-open to prefer over BROWSER,
    and mcp-remote's token cache in the test's own directory."""
    keep = {name: os.environ[name] for name in ("PATH", "LANG", "TMPDIR") if name in os.environ}
    return {
        **keep,
        "HOME": str(tmp_path),
        "MCP_REMOTE_CONFIG_DIR": str(tmp_path / "mcp-auth"),
        "BROWSER": str(_browser(tmp_path)),
        "HANDOFF_PORT": str(handoff_port),
    }


def _opened_url(listener: socket.socket) -> str:
    listener.settimeout(BOUND_S)
    connection, _ = listener.accept()
    with connection:
        connection.settimeout(BOUND_S)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode()


@pytest.mark.req("clients.real.mcp-remote")
def test_mcp_remote_signs_in_headlessly_and_serves_the_gateways_tools_over_stdio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    modules = installed()
    server = sandbox_gateway(tmp_path, monkeypatch, policy=HELD_POLICY)
    codes = enrol(tmp_path / "home")
    with server as url, socket.create_server(("127.0.0.1", 0)) as listener:
        peer = StdioPeer(
            _claude_desktop_command(modules, url + "/mcp"),
            env=_environment(tmp_path, listener.getsockname()[1]),
        )
        try:
            opened = _opened_url(listener)
            location = approve(opened, codes.next(), follow=True, profile="trader")
            init = peer.request(
                "initialize",
                {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "claude-desktop-stand-in", "version": "1"},
                },
            )
            peer.notify("notifications/initialized")
            listing = peer.request("tools/list")
            quote = peer.request(
                "tools/call", {"name": "get_equity_quotes", "arguments": {"symbols": ["SPY"]}}
            )
            order = peer.request(
                "tools/call", {"name": "place_equity_order", "arguments": HELD_ORDER}
            )
            held = order["result"]["structuredContent"]["data"]
            approval = {"approval_id": held["approval_id"]}
            approved = channel_act(tmp_path / "home", "approve", approval, codes.next())
            record = peer.request("tools/call", {"name": "gate_record", "arguments": {}})
        finally:
            peer.close()
        auth = server.auth
        assert auth is not None
        client_id = parse_qs(urlsplit(opened).query)["client_id"][0]
        client = auth.store.client(client_id)

    # The browser went to the gateway's own authorization endpoint, for the client mcp-remote
    # registered, and came back to mcp-remote's loopback callback with a code.
    assert opened.startswith(url + "/oauth/authorize?"), opened
    assert client is not None and client.client_name == "MCP CLI Proxy"
    back = urlsplit(location)
    assert (back.scheme, back.hostname, back.path) == ("http", "localhost", "/oauth/callback")
    assert "code" in parse_qs(back.query)
    assert init["result"]["protocolVersion"] == PROTOCOL, init
    names = {tool["name"] for tool in listing["result"]["tools"]}
    assert {"get_equity_quotes", "gate_how"} <= names, listing
    result = quote["result"]
    assert result["isError"] is False, result
    assert result["structuredContent"]["data"]["results"][0]["quote"]["symbol"] == "SPY"
    assert held["status"] == "pending_approval", held
    assert approved.status_code == 200, approved.text
    filings = record["result"]["structuredContent"]["data"]["filings"]
    standing = next(f for f in filings if f["filing_id"] == held["filing_id"])
    assert standing["status"] in PLACED, standing
