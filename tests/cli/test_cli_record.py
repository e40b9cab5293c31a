"""``ordergate record`` and ``ordergate record grade`` on a ledger with a filled placement."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from record_testkit import MONDAY_CLOSE, desk
from typer.testing import CliRunner

from ordergate.cli import app
from ordergate.core import Side
from ordergate.record import public_id

pytestmark = pytest.mark.req("record.grade.once")


async def _filled(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await d.fill("AAPL", Side.BUY, identity="agent-a")


def test_record_grade_grades_a_due_fill_once_and_record_shows_the_track(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    anyio.run(_filled, tmp_path)
    db = f"sqlite:///{tmp_path / 'record-ledger.db'}"
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    for name in ("ORDERGATE_DB_URL", "ORDERGATE_UPSTREAM_URL", "ORDERGATE_APPROVAL_WEBHOOK"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()
    empty = runner.invoke(app, ["record", "--db", db])
    assert empty.exit_code == 0, empty.output
    assert "no graded placements yet" in empty.output and "1 fills wait" not in empty.output
    # Monday before the close: the fill is queued, nothing is graded.
    monkeypatch.setenv("ORDERGATE_SANDBOX_START", (MONDAY_CLOSE - timedelta(hours=1)).isoformat())
    early = runner.invoke(app, ["record", "grade", "--sandbox", "--db", db, "--json"])
    assert early.exit_code == 0, early.output
    assert json.loads(early.stdout.splitlines()[-1])["queued"] == 1
    assert json.loads(early.stdout.splitlines()[-1])["graded"] == 0
    monkeypatch.setenv("ORDERGATE_SANDBOX_START", (MONDAY_CLOSE + timedelta(hours=1)).isoformat())
    graded = runner.invoke(app, ["record", "grade", "--sandbox", "--db", db])
    assert graded.exit_code == 0, graded.output
    assert "queued 0, graded 1, not yet 0, unreachable 0" in graded.output
    again = runner.invoke(app, ["record", "grade", "--sandbox", "--db", db, "--json"])
    assert json.loads(again.stdout.splitlines()[-1])["graded"] == 0
    shown = runner.invoke(app, ["record", "--db", db, "--json"])
    body = json.loads(shown.stdout)
    (record,) = body["records"]
    assert record["identity"] == "agent-a" and record["public_id"] == public_id("agent-a")
    assert record["graded"] == 1 and record["rank"] is None and body["pending"] == 0
    text = runner.invoke(app, ["record", "--db", db])
    assert "agent-a" in text.output and "1 graded" in text.output and "unranked" in text.output


def test_record_on_a_missing_ledger_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["record", "--db", f"sqlite:///{tmp_path / 'none.db'}"])
    assert result.exit_code == 2
    assert "cannot open the ledger" in result.output


def test_record_help_explains_the_grade() -> None:
    result = CliRunner().invoke(app, ["record", "grade", "--help"])
    assert result.exit_code == 0 and "grading pass" in result.output


def test_record_grade_without_a_reachable_upstream_exits_1_and_grades_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    anyio.run(_filled, tmp_path)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    db = f"sqlite:///{tmp_path / 'record-ledger.db'}"
    result = CliRunner().invoke(
        app, ["record", "grade", "--db", db, "--upstream", "http://127.0.0.1:1/mcp"]
    )
    assert result.exit_code == 1 and "upstream:" in result.output
    shown = CliRunner().invoke(app, ["record", "--db", db, "--json"])
    assert json.loads(shown.stdout)["records"] == []
