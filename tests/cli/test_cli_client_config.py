"""``ordergate client-config CLIENT``: each client's configuration parses in that client's own
format and names the gateway's MCP URL; where it goes is on stderr, never in the config."""

from __future__ import annotations

import json
import shlex
import tomllib
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from ordergate.cli import app
from ordergate.cli._client_config import MCP_REMOTE

URL = "http://127.0.0.1:8787/mcp"
OTHER = "https://gate.example.net:9443/mcp"


def run(*args: str) -> Result:
    return CliRunner().invoke(app, ["client-config", *args])


def printed(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("# ")  # the hint, apart from the configuration
    return result.stdout


@pytest.mark.req("clients.config.each-client")
def test_claude_desktop_gets_json_that_runs_the_pinned_mcp_remote_on_the_url() -> None:
    config: dict[str, Any] = json.loads(printed("claude-desktop"))
    assert config == {
        "mcpServers": {"ordergate": {"command": "npx", "args": ["-y", MCP_REMOTE, URL]}}
    }


@pytest.mark.req("clients.config.each-client")
def test_claude_code_gets_one_shell_command_adding_an_http_server() -> None:
    words = shlex.split(printed("claude-code"))
    assert words == ["claude", "mcp", "add", "--transport", "http", "ordergate", URL]


@pytest.mark.req("clients.config.each-client")
def test_cursor_gets_mcp_servers_json_with_the_url() -> None:
    config = json.loads(printed("cursor", "--url", OTHER, "--name", "gate"))
    assert config == {"mcpServers": {"gate": {"url": OTHER}}}


@pytest.mark.req("clients.config.each-client")
def test_vscode_gets_servers_json_of_type_http() -> None:
    config = json.loads(printed("vscode", "--name", "trading_gate"))
    assert config == {"servers": {"trading_gate": {"type": "http", "url": URL}}}


@pytest.mark.req("clients.config.each-client")
def test_codex_gets_an_mcp_servers_toml_table_with_the_url() -> None:
    text = printed("codex", "--url", OTHER, "--name", "my-gate")
    assert tomllib.loads(text) == {"mcp_servers": {"my-gate": {"url": OTHER}}}
    assert "codex mcp login my-gate" in text


def test_a_bare_server_url_gets_the_mcp_path() -> None:
    config = json.loads(printed("cursor", "--url", "http://127.0.0.1:9000/"))
    assert config["mcpServers"]["ordergate"]["url"] == "http://127.0.0.1:9000/mcp"


def test_mcp_remote_is_allowed_plain_http_only_where_asked_beyond_loopback() -> None:
    remote = json.loads(printed("claude-desktop", "--url", "http://10.1.2.3:8787/mcp"))
    assert remote["mcpServers"]["ordergate"]["args"][-1] == "--allow-http"
    local = json.loads(printed("claude-desktop", "--url", "http://localhost:8787/mcp"))
    assert "--allow-http" not in local["mcpServers"]["ordergate"]["args"]
    tls = json.loads(printed("claude-desktop", "--url", OTHER))
    assert "--allow-http" not in tls["mcpServers"]["ordergate"]["args"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["emacs"], "CLIENT"),
        (["cursor", "--url", "ftp://127.0.0.1/mcp"], "--url"),
        (["cursor", "--url", "127.0.0.1:8787"], "--url"),
        (["cursor", "--url", "http://127.0.0.1:8787/mcp?x=1"], "--url"),
        (["cursor", "--url", "http://me:pw@127.0.0.1:8787/mcp"], "--url"),
        (["codex", "--name", "a.b"], "--name"),
        (["codex", "--name", "-x"], "--name"),
        (["vscode", "--name", "n" * 65], "--name"),
    ],
)
def test_a_bad_client_url_or_name_is_a_usage_error_naming_it(args: list[str], named: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert named in result.output
    assert result.stdout == ""
