"""``ordergate serve`` refuses to start while another OS user could read its secrets or change
its policy (issue 12 §3): exit 2, one line per problem naming the file and the fix, before
anything is opened; a home as ordergate writes it starts."""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import httpx2
import pytest
from home_testkit import full_home
from process_testkit import EXIT_BOUND_S, serving_process
from typer.testing import CliRunner, Result

from ordergate.cli import app


def serve(home: Path, *args: str) -> Result:
    env = {"COLUMNS": "200", "ORDERGATE_HOME": str(home), "ORDERGATE_DB_URL": ""}
    return CliRunner().invoke(app, ["serve", "--sandbox", "--port", "0", *args], env=env)


@pytest.mark.req("owner.separation.serve-refuses-open-home")
def test_serve_refuses_a_home_others_can_read_naming_it_and_the_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o755)
    result = serve(home)
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"home: {home} is readable by group and others, searchable by group and others "
        f"(mode 0755): chmod 700 {home}"
    ]
    assert list(home.iterdir()) == []  # refused before a policy or a ledger was written


@pytest.mark.req("owner.separation.serve-refuses-open-home")
def test_serve_names_each_problem_on_a_line_of_its_own(tmp_path: Path) -> None:
    home = full_home(tmp_path)
    os.chmod(home / "robinhood-tokens.json", 0o644)
    os.chmod(home / "ledger.db", 0o640)
    os.chmod(home / "owner.json", 0o604)
    os.chmod(home / "policy.toml", 0o666)
    os.chmod(home / "profiles" / "cautious.yaml", 0o646)
    result = serve(home)
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert [line.split(" is ", 1)[0] for line in lines] == [
        f"home: {home / name}"
        for name in (
            "robinhood-tokens.json",
            "ledger.db",
            "owner.json",
            "policy.toml",
            "profiles/cautious.yaml",
        )
    ]
    assert lines[0].endswith(f": chmod 600 {home / 'robinhood-tokens.json'}")
    assert lines[3].endswith(f": chmod go-w {home / 'policy.toml'}")


@pytest.mark.req("owner.separation.serve-refuses-open-home")
def test_serve_refuses_a_ledger_named_by_db_that_others_can_read(tmp_path: Path) -> None:
    home = full_home(tmp_path)
    ledger = tmp_path / "elsewhere.db"
    (home / "ledger.db").rename(ledger)
    os.chmod(ledger, 0o644)
    result = serve(home, "--db", f"sqlite:///{ledger}")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"home: {ledger} is readable by group and others (mode 0644): chmod 600 {ledger}"
    ]


@pytest.mark.req("owner.separation.serve-refuses-open-home")
def test_a_home_with_every_file_as_ordergate_writes_it_starts(tmp_path: Path) -> None:
    home = full_home(tmp_path)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ORDERGATE_") or key.startswith("ORDERGATE_TEST_")
    }
    env["ORDERGATE_HOME"] = str(home)
    command = [sys.executable, "-m", "ordergate", "serve", "--sandbox", "--port", "0"]
    with serving_process(command, b"Ctrl+C stops", env=env) as (process, banner):
        found = re.search(r"point MCP clients at (http://127\.0\.0\.1:\d+)/mcp", banner)
        assert found is not None, banner
        assert "home:" not in banner
        with httpx2.Client(timeout=EXIT_BOUND_S) as http:
            assert http.post(found.group(1) + "/mcp", json={}).status_code == 401
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=EXIT_BOUND_S) == 0
