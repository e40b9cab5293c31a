"""``ordergate status`` shows the account: the paper book's positions, cash and equity in paper
mode (issue 15 §1), money to the cent for people, exact Decimal strings under ``--json``. On
the embedded sandbox, in a fresh ``ORDERGATE_HOME``, as a person would run it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from owner_testkit import apply_home_policy
from typer.testing import CliRunner, Result

from ordergate.cli import app
from ordergate.cli._status import _echo_account, account_json
from ordergate.core import usd
from ordergate.venues import AccountView

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
POLICY = """
approval = "never"
[symbols]
allow = ["SPY"]
"""


def _run(home: Path, minute: int, *args: str) -> Result:
    env = {
        "ORDERGATE_HOME": str(home),
        "ORDERGATE_DB_URL": "",
        "ORDERGATE_UPSTREAM_URL": "",
        "ORDERGATE_APPROVAL_WEBHOOK": "",
        "ORDERGATE_SANDBOX_START": (OPEN + timedelta(minutes=minute)).isoformat(),
        "ORDERGATE_GATEWAY_URL": "http://127.0.0.1:9",
    }
    return CliRunner().invoke(app, list(args), env=env)


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "policy.toml").write_text(POLICY)
    apply_home_policy(home)
    return home


def test_status_shows_the_paper_books_positions_cash_and_equity(tmp_path: Path) -> None:
    home = _home(tmp_path)
    ordered = _run(home, 1, "order", "SPY", "buy", "--qty", "0.1", "--sandbox", "--json")
    assert ordered.exit_code == 0, ordered.output
    assert json.loads(ordered.stdout.strip().splitlines()[-1])["status"] == "submitted"
    exact = _run(home, 2, "status", "--sandbox", "--json")
    human = _run(home, 3, "status", "--sandbox")
    assert exact.exit_code == 0 and human.exit_code == 0, exact.output + human.output
    body: dict[str, Any] = json.loads(exact.stdout.strip().splitlines()[-1])["portfolio"]
    assert body["source"] == "paper book" and body["notes"] == []
    [held] = body["positions"]
    assert held["symbol"] == "SPY" and held["quantity"] == "0.1"
    cash, equity = Decimal(body["cash"]), Decimal(body["equity"])
    assert cash < Decimal(10000) and body["buying_power"] == body["cash"]
    assert equity == cash + Decimal(held["market_value"])
    assert "account         paper book" in human.stdout
    assert f"  cash          {usd(body['cash'])}" in human.stdout
    assert "  positions     1" in human.stdout and "    SPY  0.1 shares  $" in human.stdout


def test_status_of_a_fresh_paper_account_is_its_starting_cash(tmp_path: Path) -> None:
    home = _home(tmp_path)
    result = _run(home, 1, "status", "--sandbox", "--json")
    body = json.loads(result.stdout.strip().splitlines()[-1])["portfolio"]
    assert body["positions"] == [] and body["cash"] == body["equity"]


def test_money_is_shown_to_the_cent_and_unknown_is_said() -> None:
    assert usd("1234.565") == "$1,234.56"
    assert usd("-0.5") == "-$0.50"
    assert usd(None) == "unknown"


def test_an_order_held_for_approval_is_shown_to_the_cent(tmp_path: Path) -> None:
    home = tmp_path / "home"  # the default policy: every order waits for the owner
    held = _run(home, 1, "order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert held.exit_code == 0, held.output
    status = _run(home, 2, "status", "--sandbox")
    assert status.exit_code == 0, status.output
    [line] = [line for line in status.stdout.splitlines() if "  buy SPY  ~$" in line]
    assert re.search(r"~\$[\d,]+\.\d\d$", line), line


def test_an_account_that_could_not_be_read_is_shown_as_unknown_with_the_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    body = account_json(AccountView(notes=("portfolio: UPSTREAM_UNAVAILABLE",)), paper=False)
    assert body == {
        "source": "broker",
        "cash": None,
        "buying_power": None,
        "equity": None,
        "positions": None,
        "notes": ["portfolio: UPSTREAM_UNAVAILABLE"],
    }
    _echo_account(body)
    shown = capsys.readouterr().out
    assert "account         broker" in shown and "  cash          unknown" in shown
    assert "  positions     unknown" in shown
    assert "  note          portfolio: UPSTREAM_UNAVAILABLE" in shown
