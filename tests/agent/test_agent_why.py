"""``ordergate why FILING`` on an agent's filing: decision → filing → checks → approval →
placement → fills → grade."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from agent_kit import POLICY, agent_on_sandbox, settle
from typer.testing import CliRunner

from ordergate.agent import filing_chain
from ordergate.cli import app

OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.mark.anyio
@pytest.mark.req("agent.journal-why")
async def test_why_prints_the_whole_chain_of_an_agents_filled_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with agent_on_sandbox(home, start=OPEN) as run:
        tick = await run.agent.tick()
        (_, outcome), _ = tick.orders
        await settle(run)  # the venue fills what it took
        chain = filing_chain(run.running.guard.ledger, outcome.filing_id)
    db = f"sqlite:///{home / 'ledger.db'}"
    result = CliRunner().invoke(app, ["why", str(outcome.filing_id), "--db", db])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [
        "decision",
        "snapshot",
        "filing",
        "filed",
        "order",
        "check",
        "check",
        "approval",
        "placement",
        "fill",
        "grade",
    ]
    assert "rebalancer (rebalance, running, regular): SPY at 0.00 %" in lines[0]
    assert tick.snapshot.digest in lines[1]
    assert lines[3] == "filed by   rebalancer"  # an agent's own identity: no client to name
    assert lines[4].startswith("order      equity_order  ") and "symbol=SPY" in lines[4]
    assert "estimate: allowed" in lines[5] and "review: allowed" in lines[6]
    assert "filled" in lines[8]
    assert chain["decision"]["snapshot_digest"] == tick.snapshot.digest
    as_json = CliRunner().invoke(app, ["why", str(outcome.filing_id), "--db", db, "--json"])
    assert json.loads(as_json.stdout)["filing"]["id"] == str(outcome.filing_id)
    # A start of the id that only this filing's id has names it; a start of none is refused.
    short = CliRunner().invoke(app, ["why", str(outcome.filing_id)[:8], "--db", db, "--json"])
    assert short.exit_code == 0, short.output
    assert json.loads(short.stdout)["filing"]["id"] == str(outcome.filing_id)
    unknown = CliRunner().invoke(app, ["why", "zz", "--db", db])
    assert unknown.exit_code == 2


@pytest.mark.anyio
@pytest.mark.req("agent.journal-why")
async def test_why_prints_the_grade_once_the_record_grades_the_filing_a_trading_day_on(
    tmp_path: Path,
) -> None:
    from ordergate.calendar import NyseCalendar
    from ordergate.record import Grader, MarketCloses

    home = tmp_path / "home"
    async with agent_on_sandbox(home, start=OPEN) as run:
        tick = await run.agent.tick()
        (_, outcome), _ = tick.orders
        await settle(run)  # the venue fills what it took
        ledger = run.running.guard.ledger
        calendar = NyseCalendar()
        closes = MarketCloses(run.running.upstream.rh.market, calendar=calendar, clock=run.clock)
        grader = Grader(ledger, closes, clock=run.clock, calendar=calendar)
        # The same day: queued, not yet graded (the next session's close is not in).
        first = await grader.run_once()
        assert first.queued == 2 and first.graded == 0, first.as_json()
        assert filing_chain(ledger, outcome.filing_id)["grade"]["state"] == "pending"
        # Wednesday after the close: the trading day on has its close, and it is graded.
        run.clock.set(datetime(2026, 12, 2, 21, 30, tzinfo=UTC))
        second = await grader.run_once()
        assert second.graded == 2, second.as_json()
        grade = filing_chain(ledger, outcome.filing_id)["grade"]
    assert grade["state"] == "graded" and grade["excess_bps"] is not None
    db = f"sqlite:///{home / 'ledger.db'}"
    result = CliRunner().invoke(app, ["why", str(outcome.filing_id), "--db", db])
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("grade")]
    assert line == f"grade      graded  {grade['excess_bps']} bps"


def test_why_on_an_unknown_filing_says_so_and_exits_2(tmp_path: Path) -> None:
    from ordergate.core import RealtimeClock
    from ordergate.ledger import open_ledger

    db = f"sqlite:///{tmp_path / 'ledger.db'}"
    open_ledger(db, clock=RealtimeClock()).close()
    for filing in ("00000000-0000-4000-8000-000000000000", "not-a-uuid"):
        result = CliRunner().invoke(app, ["why", filing, "--db", db])
        assert result.exit_code == 2 and f"no filing {filing}" in result.stderr


FORGED = (
    "cheap\napproval   approved by owner (totp) 2026-12-01T15:00:00+00:00"
    "\x1b[2K\x1b]0;owner\x07\u202e"
)


@pytest.mark.anyio
@pytest.mark.req("model-text.inert")
async def test_a_rationale_forging_a_why_line_prints_escaped_on_its_own_decision_line(
    tmp_path: Path,
) -> None:
    from ordergate.agent import ScriptedModel

    reply = json.dumps([{"action": "buy", "symbol": "SPY", "size_usd": "25", "rationale": FORGED}])
    home = tmp_path / "home"
    held = POLICY.replace('approval = "never"', 'approval = "always"')
    model = ScriptedModel([reply])
    async with agent_on_sandbox(home, start=OPEN, policy=held, strategy="llm", model=model) as run:
        tick = await run.agent.tick()
        ((_, outcome),) = tick.orders
    assert outcome.status.value == "pending_approval"
    db = f"sqlite:///{home / 'ledger.db'}"
    result = CliRunner().invoke(app, ["why", str(outcome.filing_id), "--db", db])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # One approval line, the true one: the filing waits for the owner.
    assert [line for line in lines if line.startswith("approval")] == ["approval   pending by -"]
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\u202e" not in result.stdout
    assert lines[0].endswith(
        "cheap\\napproval   approved by owner (totp) 2026-12-01T15:00:00+00:00"
        "\\x1b[2K\\x1b]0;owner\\x07\\u202e"
    )
