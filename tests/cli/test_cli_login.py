"""``ordergate login`` and ``ordergate whoami`` against the venue over loopback."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from crypto_rest_testkit import DOC_API_KEY, DOC_PRIVATE_KEY
from typer.testing import CliRunner, Result
from venue_testkit import VenueClient, running_venue

from ordergate.cli import app
from ordergate.client import read_token_file

WIDE = {"COLUMNS": "200"}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[VenueClient]:
    with running_venue() as client:
        yield client


def invoke(*args: str, **env: str) -> Result:
    return CliRunner().invoke(app, list(args), env={**WIDE, **env})


def signed_in(sandbox: VenueClient, home: Path) -> Result:
    token = sandbox.admin("tokens", {})["access_token"]
    return invoke(
        "login",
        "--url",
        sandbox.mcp_url,
        ORDERGATE_HOME=str(home),
        ROBINHOOD_ACCESS_TOKEN=token,
    )


def test_login_with_an_environment_token_names_the_agentic_account_and_never_the_token(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    token = sandbox.admin("tokens", {})["access_token"]
    result = invoke(
        "login",
        "--url",
        sandbox.mcp_url,
        ORDERGATE_HOME=str(tmp_path),
        ROBINHOOD_ACCESS_TOKEN=token,
    )
    assert result.exit_code == 0, result.output
    agentic = sandbox.agentic_account()["account_number"]
    assert f"Agentic account: {agentic}" in result.output
    token_file = tmp_path / "robinhood-tokens.json"
    assert str(token_file) in result.output
    assert token not in result.output
    assert read_token_file(token_file).access_token.reveal() == token
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600


def test_whoami_lists_the_accounts_with_the_agentic_one_marked(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    assert signed_in(sandbox, tmp_path).exit_code == 0
    result = invoke("whoami", "--url", sandbox.mcp_url, ORDERGATE_HOME=str(tmp_path))
    assert result.exit_code == 0, result.output
    token = read_token_file(tmp_path / "robinhood-tokens.json").access_token.reveal()
    assert token not in result.output
    agentic = sandbox.agentic_account()["account_number"]
    rows = [line for line in result.output.splitlines() if "│" in line]
    marked = [row for row in rows if "*" in row]
    assert len(marked) == 1
    assert agentic in marked[0]
    state = sandbox.admin("state")
    for account in state["accounts"]:
        assert account["account_number"] in result.output


def test_whoami_before_login_says_to_run_ordergate_login(tmp_path: Path) -> None:
    result = invoke("whoami", "--url", "http://127.0.0.1:9/mcp", ORDERGATE_HOME=str(tmp_path))
    assert result.exit_code == 1
    assert "ordergate login" in result.output


def test_a_login_that_fails_exits_1_with_the_reason(sandbox: VenueClient, tmp_path: Path) -> None:
    result = invoke(
        "login",
        "--url",
        sandbox.base_url + "/nowhere",
        ORDERGATE_HOME=str(tmp_path),
        ROBINHOOD_ACCESS_TOKEN="",
    )
    assert result.exit_code == 1
    assert "did not ask for sign-in" in result.output
    assert not (tmp_path / "robinhood-tokens.json").exists()


def test_login_and_whoami_are_listed_in_the_help() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert "login" in result.output
    assert "whoami" in result.output


def test_login_crypto_api_keeps_the_key_0600_from_stdin_and_prints_only_the_public_key(
    tmp_path: Path,
) -> None:
    from ordergate.client.crypto_rest import read_key_file

    result = CliRunner().invoke(
        app,
        ["login", "--crypto-api"],
        input=f"{DOC_API_KEY}\n{DOC_PRIVATE_KEY}\n",
        env={**WIDE, "ORDERGATE_HOME": str(tmp_path)},
    )
    assert result.exit_code == 0, result.output
    key_file = tmp_path / "robinhood-crypto-api.json"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert "jPItx4TLjcnSUnmnXQQyAKL4eJj3+oWNNMmmm2vATqk=" in result.output
    assert DOC_PRIVATE_KEY not in result.output and DOC_API_KEY not in result.output
    assert read_key_file(key_file).public_key == "jPItx4TLjcnSUnmnXQQyAKL4eJj3+oWNNMmmm2vATqk="


@pytest.mark.parametrize(
    ("args", "given"),
    [
        (["--crypto-api"], f"{DOC_API_KEY}\n"),
        (["--crypto-api"], f"{DOC_API_KEY}\nc2hvcnQ=\n"),
        (["--crypto-api", "--url", "http://127.0.0.1:1/mcp"], ""),
    ],
)
def test_login_crypto_api_refuses_a_missing_or_bad_key_and_writes_nothing(
    tmp_path: Path, args: list[str], given: str
) -> None:
    result = CliRunner().invoke(
        app, ["login", *args], input=given, env={**WIDE, "ORDERGATE_HOME": str(tmp_path)}
    )
    assert result.exit_code == 2
    assert not (tmp_path / "robinhood-crypto-api.json").exists()
    assert DOC_API_KEY not in result.output


def test_login_crypto_api_at_a_terminal_reads_both_values_at_hidden_prompts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    import typer

    from ordergate.cli import _login

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    asked: list[tuple[str, bool]] = []
    answers = iter([DOC_API_KEY, DOC_PRIVATE_KEY])

    def prompt(text: str, *, hide_input: bool = False) -> str:
        asked.append((text, hide_input))
        return next(answers)

    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(typer, "prompt", prompt)
    _login._store_crypto_key()
    assert [hidden for _, hidden in asked] == [True, True]
    assert (tmp_path / "robinhood-crypto-api.json").exists()
