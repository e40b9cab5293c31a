"""A saved token goes only to the server it was issued for (issue 13 §2), from the command
line: ``ordergate login --url A`` then ``--url B`` is refused before anything reaches B, no
``--url`` means A, an older token file is sent nowhere, and connection errors name the URL."""

from __future__ import annotations

import json
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import pytest
from capture_testkit import capture_server, unused_port
from typer.testing import CliRunner, Result
from venue_testkit import VenueClient, running_venue

import ordergate.client._login
from ordergate.cli import app
from ordergate.client import read_token_file

WIDE = {"COLUMNS": "200"}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[VenueClient]:
    with running_venue() as client:
        yield client


def invoke(home: Path, *args: str, **env: str | None) -> Result:
    return CliRunner().invoke(app, list(args), env={**WIDE, "ORDERGATE_HOME": str(home), **env})


def said(result: Result) -> str:
    """The output with its line breaks (Rich wraps long errors) as single spaces."""
    return " ".join(result.output.split())


def log_in(sandbox: VenueClient, home: Path) -> str:
    """``ordergate login --url`` the sandbox with an environment token; the token."""
    token: str = sandbox.admin("tokens", {})["access_token"]
    result = invoke(home, "login", "--url", sandbox.mcp_url, ROBINHOOD_ACCESS_TOKEN=token)
    assert result.exit_code == 0, result.output
    return token


def dead_url() -> str:
    """An MCP URL on a loopback port nothing listens on."""
    return f"http://127.0.0.1:{unused_port()}/mcp/trading"


@pytest.mark.req("client.token.bound-to-server")
def test_the_saved_token_never_reaches_another_server_named_by_url(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    token = log_in(sandbox, tmp_path)
    with capture_server() as capture:
        whoami = invoke(tmp_path, "whoami", "--url", capture.mcp_url)
        listing = invoke(tmp_path, "tools", "list", "--url", capture.mcp_url)
        snapshot = invoke(
            tmp_path, "tools", "snapshot", "--url", capture.mcp_url, "--out", "x.json"
        )
        capabilities = invoke(tmp_path, "tools", "capabilities", "--url", capture.mcp_url)
    assert capture.authorizations() == []
    assert capture.requests == []
    assert whoami.exit_code == 1
    assert (listing.exit_code, snapshot.exit_code, capabilities.exit_code) == (2, 2, 2)
    for result in (whoami, listing, snapshot, capabilities):
        assert f"issued for {sandbox.mcp_url}, not {capture.mcp_url}" in said(result)
        assert f"log in there first: ordergate login --url {capture.mcp_url}" in said(result)
        assert token not in said(result)


@pytest.mark.req("client.token.bound-to-server")
def test_the_token_file_records_the_server_it_was_issued_for(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    log_in(sandbox, tmp_path)
    recorded = json.loads((tmp_path / "robinhood-tokens.json").read_text())["server"]
    assert recorded == {"mcp_url": sandbox.mcp_url, "origin": sandbox.base_url}
    assert read_token_file(tmp_path / "robinhood-tokens.json").server == sandbox.mcp_url


@pytest.mark.req("client.token.default-is-logged-in")
def test_without_url_every_command_uses_the_server_logged_in_to(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    log_in(sandbox, tmp_path)
    whoami = invoke(tmp_path, "whoami")
    assert whoami.exit_code == 0, whoami.output
    assert sandbox.agentic_account()["account_number"] in said(whoami)
    listing = invoke(tmp_path, "tools", "list")
    assert listing.exit_code == 0, listing.output
    assert f"82 tools from {sandbox.mcp_url}" in listing.output
    out = tmp_path / "snapshot.json"
    snapshot = invoke(tmp_path, "tools", "snapshot", "--out", str(out))
    assert snapshot.exit_code == 0, snapshot.output
    assert json.loads(out.read_text())["source"] == sandbox.mcp_url
    capabilities = invoke(tmp_path, "tools", "capabilities")
    assert capabilities.exit_code == 0, capabilities.output


@pytest.mark.req("client.token.default-is-logged-in")
def test_without_url_or_a_login_commands_say_to_log_in(tmp_path: Path) -> None:
    for args, code in ((("whoami",), 1), (("tools", "list"), 2), (("tools", "capabilities"), 2)):
        result = invoke(tmp_path, *args)
        assert result.exit_code == code, (args, result.output)
        assert "no Robinhood tokens at" in said(result)
        assert "ordergate login" in said(result)


@pytest.mark.req("client.token.unbound-refused")
def test_an_older_token_file_without_its_server_is_sent_nowhere(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    log_in(sandbox, tmp_path)
    token_file = tmp_path / "robinhood-tokens.json"
    older = json.loads(token_file.read_text())
    del older["server"]
    token_file.write_text(json.dumps(older))
    with capture_server() as capture:
        results = [
            invoke(tmp_path, "whoami"),
            invoke(tmp_path, "whoami", "--url", capture.mcp_url),
            invoke(tmp_path, "whoami", "--url", sandbox.mcp_url),
            invoke(tmp_path, "tools", "list"),
        ]
    assert capture.requests == []
    for result in results:
        assert result.exit_code in (1, 2), result.output
        assert "does not say which server it was issued for" in said(result)
        assert "log in again" in said(result)


@pytest.mark.req("client.errors.name-url")
def test_a_connection_error_names_the_url_it_tried(sandbox: VenueClient, tmp_path: Path) -> None:
    nowhere = dead_url()
    # Signing in with an environment token connects at once; nothing answers there.
    token = sandbox.admin("tokens", {})["access_token"]
    login = invoke(tmp_path, "login", "--url", nowhere, ROBINHOOD_ACCESS_TOKEN=token)
    assert login.exit_code == 1
    assert f"no answer from the venue at {nowhere} (ConnectError)" in said(login)
    whoami = invoke(tmp_path, "whoami")
    assert whoami.exit_code == 1
    assert f"no answer from the venue at {nowhere}" in said(whoami)
    # The browser sign-in starts with discovery at the URL itself.
    browser = invoke(tmp_path / "b", "login", "--url", nowhere, ROBINHOOD_ACCESS_TOKEN=None)
    assert browser.exit_code == 1
    assert f"no answer from {nowhere} (ConnectError)" in said(browser)
    assert token not in login.output + whoami.output


@pytest.mark.req("client.login.gives-up")
def test_login_without_a_browser_prints_the_url_waits_and_gives_up(
    sandbox: VenueClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webbrowser, "open", lambda url, new=0: False)
    monkeypatch.setattr(ordergate.client._login, "LOGIN_TIMEOUT_S", 0.2)
    result = invoke(tmp_path, "login", "--url", sandbox.mcp_url, ROBINHOOD_ACCESS_TOKEN=None)
    assert result.exit_code == 1
    assert "Open this address in a browser to sign in to Robinhood:" in said(result)
    assert f"{sandbox.base_url}/oauth" in said(result)
    assert "Waiting for the sign-in to redirect to http://127.0.0.1:" in said(result)
    assert "(giving up after 0.2 s)" in said(result)
    assert "gave up waiting for the sign-in: no redirect reached http://127.0.0.1:" in (
        result.output
    )
    assert not (tmp_path / "robinhood-tokens.json").exists()


def test_login_gives_up_after_five_minutes_by_default() -> None:
    assert ordergate.client._login.LOGIN_TIMEOUT_S == 300
    assert ordergate.client._login._duration(300) == "5 minutes"
    assert ordergate.client._login._duration(60) == "1 minute"
