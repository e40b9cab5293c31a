"""``ordergate token mint``: the token alone on stdout, never the key or the master secret."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import typer
from owner_testkit import PASSPHRASE, enrol
from typer.testing import CliRunner, Result

from ordergate.callers import (
    ENV_CALLER_TOKEN_KEY,
    ENV_MASTER_SECRET,
    CallerClaims,
    CallerKey,
    CallerVerifier,
)
from ordergate.cli import app
from ordergate.cli._token import parse_ttl
from ordergate.core import RealtimeClock, SteppedClock
from ordergate.ledger import open_ledger
from ordergate.owner import Delays, DelaySettings

DEDICATED = "dedicated-caller-token-key-0123456789abcdef"
MASTER = "master-secret-for-the-whole-gateway-0123456789"
BOTH = {ENV_CALLER_TOKEN_KEY: DEDICATED, ENV_MASTER_SECRET: MASTER}
MASTER_ONLY = {ENV_CALLER_TOKEN_KEY: "", ENV_MASTER_SECRET: MASTER}


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    monkeypatch.delenv("ORDERGATE_DB_URL", raising=False)
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        # These tests are of the command's output: the owner enrolled with no loosen delay.
        Delays(ledger).ask(DelaySettings(timedelta(0)), first=True)
    enrol(tmp_path, passphrase=PASSPHRASE)
    return tmp_path


def run(env: dict[str, str], *args: str, code: str | None = PASSPHRASE) -> Result:
    """``ordergate token mint ARGS`` with the owner code (the enrolled passphrase) on standard
    input."""
    if code is None:
        return CliRunner().invoke(app, ["token", "mint", *args], env=env)
    return CliRunner().invoke(
        app, ["token", "mint", *args, "--code-stdin"], env=env, input=f"{code}\n"
    )


def claims_of(result: Result, environ: dict[str, str]) -> CallerClaims:
    # The CLI reads wall time; check at a moment that is surely before its expiry.
    clock = SteppedClock(start=datetime.now(UTC))
    claims = CallerVerifier(CallerKey.from_environ(environ), clock).verify(result.stdout.strip())
    assert claims is not None
    return claims


def test_mint_prints_only_a_token_that_verifies_under_the_host_key() -> None:
    before = datetime.now(UTC)
    result = run(BOTH, "--caller", "agent-1", "--profile", "trader")
    after = datetime.now(UTC)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 1
    claims = claims_of(result, BOTH)
    assert (claims.caller, claims.profile, claims.connection) == ("agent-1", "trader", None)
    # Fifteen minutes from the moment the command minted it, however long the command took;
    # the claim keeps whole seconds.
    fifteen = timedelta(minutes=15)
    assert before.replace(microsecond=0) + fifteen <= claims.expires_at <= after + fifteen
    assert claims.expires_at.isoformat() in result.stderr
    assert ENV_CALLER_TOKEN_KEY in result.stderr


@pytest.mark.req("owner.act.token-mint")
@pytest.mark.req("owner.threat.local-commands")
def test_a_token_that_can_trade_is_minted_only_with_the_owner_code() -> None:
    no_code = run(BOTH, "--caller", "agent-1", "--profile", "trader", code=None)
    assert no_code.exit_code == 2 and no_code.stdout == "" and "--code" in no_code.stderr
    wrong = run(BOTH, "--caller", "agent-1", "--profile", "trader", code="not the passphrase")
    assert wrong.exit_code == 5 and wrong.stdout == "" and "owner_code_wrong" in wrong.stderr
    reader = run(BOTH, "--caller", "agent-1", "--profile", "monitor", code=None)
    assert reader.exit_code == 0, reader.output
    assert claims_of(reader, BOTH).profile == "monitor"


def test_mint_carries_the_connection_and_the_ttl() -> None:
    before = datetime.now(UTC)
    result = run(
        MASTER_ONLY, "--caller", "c.7", "--profile", "monitor", "--ttl", "2h",
        "--connection", "0f3c2a9be51d47c68a0e5b1d9c7f2e41",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    claims = claims_of(result, MASTER_ONLY)
    assert claims.connection == "0f3c2a9be51d47c68a0e5b1d9c7f2e41"
    assert timedelta(hours=2) - timedelta(minutes=1) < claims.expires_at - before
    assert ENV_MASTER_SECRET in result.stderr


def test_mint_refuses_a_profile_this_host_does_not_define_naming_the_defined_ones() -> None:
    result = run({**BOTH, "COLUMNS": "200"}, "--caller", "a", "--profile", "no-such-profile_yet")
    assert result.exit_code == 2, result.output
    assert "--profile" in result.output
    assert "monitor, researcher, trader" in result.output


def test_mint_accepts_a_profile_defined_in_the_home(home: Path) -> None:
    (home / "profiles").mkdir()
    (home / "profiles" / "night-watch.yaml").write_text("name: night-watch\npermissions: []\n")
    result = run(BOTH, "--caller", "a", "--profile", "night-watch")
    assert result.exit_code == 0, result.output
    assert claims_of(result, BOTH).profile == "night-watch"


@pytest.mark.parametrize("environ", [BOTH, MASTER_ONLY])
def test_no_output_of_mint_contains_the_key_or_the_master_secret(environ: dict[str, str]) -> None:
    results = [
        run(environ, "--caller", "a", "--profile", "trader"),
        run(environ, "--caller", "a", "--profile", "trader", "--ttl", "90s"),
        run(environ, "--caller", "bad name", "--profile", "trader"),
        run(environ, "--caller", "a", "--profile", "trader", "--ttl", "3d"),
        run(
            {**environ, ENV_CALLER_TOKEN_KEY: DEDICATED[:20]},
            "--caller",
            "a",
            "--profile",
            "trader",
        ),
        run({**environ, ENV_MASTER_SECRET: MASTER[:20]}, "--caller", "a", "--profile", "trader"),
    ]
    assert results[0].exit_code == 0 and results[1].exit_code == 0
    for result in results:
        for secret in (DEDICATED, MASTER, DEDICATED[:20], MASTER[:20]):
            assert secret not in result.output
            assert secret not in result.stderr


def test_without_a_key_mint_names_the_variable_to_set_and_exits_2() -> None:
    result = run(
        {ENV_CALLER_TOKEN_KEY: "", ENV_MASTER_SECRET: ""}, "--caller", "a", "--profile", "trader"
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    assert ENV_CALLER_TOKEN_KEY in result.stderr


def test_a_short_key_is_refused_naming_its_variable() -> None:
    result = run({ENV_CALLER_TOKEN_KEY: "short"}, "--caller", "a", "--profile", "trader")
    assert result.exit_code == 2 and result.stdout == ""
    assert ENV_CALLER_TOKEN_KEY in result.stderr


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--caller", "has space", "--profile", "trader"], "--caller"),
        (["--caller", "c" * 65, "--profile", "trader"], "--caller"),
        (["--caller", "a", "--profile", "Trader"], "--profile"),
        (["--caller", "a", "--profile", "trader", "--connection", "a/b"], "--connection"),
        (["--caller", "a", "--profile", "trader", "--ttl", "15"], "--ttl"),
        (["--caller", "a", "--profile", "trader", "--ttl", "25h"], "--ttl"),
        (["--caller", "a", "--profile", "trader", "--ttl", "0m"], "--ttl"),
    ],
)
def test_a_bad_option_is_a_usage_error_naming_it(args: list[str], option: str) -> None:
    result = run(BOTH, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert option in result.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90s", timedelta(seconds=90)),
        ("15m", timedelta(minutes=15)),
        ("2h", timedelta(hours=2)),
        ("24h", timedelta(hours=24)),
        ("1s", timedelta(seconds=1)),
    ],
)
def test_ttl_accepts_seconds_minutes_and_hours(text: str, expected: timedelta) -> None:
    assert parse_ttl(text) == expected


@pytest.mark.parametrize(
    "text", ["", "15", "m", "0s", "015m", "1.5h", "1d", "15 m", "-5m", "1441m"]
)
def test_ttl_refuses_anything_else(text: str) -> None:
    with pytest.raises(typer.BadParameter):
        parse_ttl(text)
