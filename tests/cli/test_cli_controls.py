"""``ordergate pause`` and ``ordergate resume`` against real ledgers, seen from other processes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from owner_testkit import enrol
from pg_testkit import pg_server
from typer.testing import CliRunner, Result

from ordergate.bench._ledger import scratch_postgres
from ordergate.cli import app
from ordergate.core import RealtimeClock
from ordergate.ledger import open_ledger

# Another process files one order on the same ledger and prints "accepted reason".
FILE_ONE = """
import sys
from decimal import Decimal
from ordergate.core import RealtimeClock
from ordergate.ledger import Filing, RollingCaps, open_ledger
with open_ledger(sys.argv[1], clock=RealtimeClock()) as ledger:
    result = ledger.file_and_reserve(
        Filing("agent", {"symbol": "AAPL"}), notional=Decimal("10"),
        caps=RollingCaps(Decimal(1000), 100),
    )
print(result.accepted, result.reason)
"""


def run(*args: str, home: Path | None = None, code: str | None = None) -> Result:
    """``ordergate ARGS``; ``code``, when given, as one line of standard input."""
    env = {"ORDERGATE_DB_URL": ""}
    if home is not None:
        env["ORDERGATE_HOME"] = str(home)
    if code is None:
        return CliRunner().invoke(app, list(args), env=env)
    return CliRunner().invoke(app, [*args, "--code-stdin"], env=env, input=f"{code}\n")


def file_elsewhere(url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", FILE_ONE, url],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    open_ledger(url, clock=RealtimeClock()).close()
    return url


@pytest.fixture
def pg_url() -> Iterator[str]:
    with scratch_postgres(pg_server()) as url:
        open_ledger(url, clock=RealtimeClock()).close()
        yield url


@pytest.mark.req("controls.pause-refuses-new-orders-everywhere")
def test_pause_refuses_orders_filed_by_another_process_until_resume(
    sqlite_url: str, tmp_path: Path
) -> None:
    codes = enrol(tmp_path)
    assert file_elsewhere(sqlite_url) == "True None"
    paused = run("pause", "--db", sqlite_url, "--reason", "runaway agent")
    assert paused.exit_code == 0, paused.output
    assert "new orders are refused" in paused.output
    assert "reason: runaway agent" in paused.output
    assert file_elsewhere(sqlite_url) == "False paused"
    refused = run("resume", "--db", sqlite_url, home=tmp_path, code=codes.wrong())
    assert refused.exit_code == 5 and "owner_code_wrong" in refused.output
    assert file_elsewhere(sqlite_url) == "False paused"
    resumed = run("resume", "--db", sqlite_url, home=tmp_path, code=codes.next())
    assert resumed.exit_code == 0, resumed.output
    assert "accepted again" in resumed.output and "reason: runaway agent" in resumed.output
    assert file_elsewhere(sqlite_url) == "True None"


@pytest.mark.req("controls.pause-refuses-new-orders-everywhere")
def test_pause_refuses_orders_from_another_process_on_postgres(pg_url: str, tmp_path: Path) -> None:
    codes = enrol(tmp_path)
    assert run("pause", "--db", pg_url).exit_code == 0
    assert file_elsewhere(pg_url) == "False paused"
    assert run("resume", "--db", pg_url, home=tmp_path, code=codes.next()).exit_code == 0
    assert file_elsewhere(pg_url) == "True None"


def test_the_reason_is_recorded_in_the_state_and_the_journal(sqlite_url: str) -> None:
    result = run("pause", "--db", sqlite_url, "--reason", "  market halt  ")
    assert result.exit_code == 0
    with open_ledger(sqlite_url, clock=RealtimeClock()) as ledger:
        state = ledger.controls.pause_state()
        entries = ledger.journal.entries()
    assert state.paused and state.reason == "market halt" and state.since is not None
    assert state.since.isoformat(timespec="seconds") in result.output
    assert [(entry.kind, entry.why) for entry in entries] == [("pause", "market halt")]


def test_pausing_twice_keeps_the_first_reason_and_says_so(sqlite_url: str) -> None:
    assert run("pause", "--db", sqlite_url, "--reason", "first").exit_code == 0
    again = run("pause", "--db", sqlite_url, "--reason", "second")
    assert again.exit_code == 0
    assert "already paused" in again.output and "reason: first" in again.output
    with open_ledger(sqlite_url, clock=RealtimeClock()) as ledger:
        assert ledger.controls.pause_state().reason == "first"
        assert [entry.why for entry in ledger.journal.entries()] == ["first"]


def test_a_pause_without_a_reason_says_none_was_given(sqlite_url: str) -> None:
    result = run("pause", "--db", sqlite_url)
    assert result.exit_code == 0 and "no reason given" in result.output


def test_resuming_when_not_paused_is_harmless(sqlite_url: str) -> None:
    result = run("resume", "--db", sqlite_url)
    assert result.exit_code == 0
    assert "not paused" in result.output
    assert file_elsewhere(sqlite_url) == "True None"


def test_the_default_ledger_is_the_one_in_ordergate_home(tmp_path: Path) -> None:
    open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=RealtimeClock()).close()
    env = {"ORDERGATE_HOME": str(tmp_path), "ORDERGATE_DB_URL": ""}
    assert CliRunner().invoke(app, ["pause"], env=env).exit_code == 0
    assert file_elsewhere(f"sqlite:///{tmp_path / 'ledger.db'}") == "False paused"


@pytest.mark.parametrize(
    ("command", "db", "problem"),
    [
        ("pause", "sqlite:///{tmp}/missing.db", "no ledger at"),
        ("resume", "sqlite:///{tmp}/missing.db", "no ledger at"),
        ("pause", "mysql://user:hunter2@127.0.0.1/x", "unsupported ledger database"),
        ("pause", "not a url:hunter2", "not a database URL"),
        ("pause", "postgresql://user:hunter2@127.0.0.1:1/x", "cannot open the ledger"),
        ("pause", "sqlite:///{tmp}/not-a-ledger", "file is not a database"),
    ],
)
def test_a_ledger_that_cannot_be_opened_exits_2_naming_the_problem(
    tmp_path: Path, command: str, db: str, problem: str
) -> None:
    (tmp_path / "not-a-ledger").write_bytes(b"x" * 4096)
    result = run(command, "--db", db.format(tmp=tmp_path))
    assert result.exit_code == 2
    assert "cannot open the ledger" in result.output and problem in result.output
    assert "hunter2" not in result.output
    assert not (tmp_path / "missing.db").exists()


def test_an_unprintable_reason_is_a_usage_error(sqlite_url: str) -> None:
    result = run("pause", "--db", sqlite_url, "--reason", "stop\x1b[2J")
    assert result.exit_code == 2
    with open_ledger(sqlite_url, clock=RealtimeClock()) as ledger:
        assert not ledger.controls.pause_state().paused
