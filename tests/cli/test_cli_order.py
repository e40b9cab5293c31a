"""``ordergate order``, ``approvals``, ``approve``, ``deny``, ``status`` and ``reconcile`` on
the embedded sandbox, with a fresh ``ORDERGATE_HOME`` per test, as a person would run them."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from owner_testkit import enrol
from turn_testkit import impatient_turns, turn_held_elsewhere
from typer.testing import CliRunner, Result

from ordergate.cli import app

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


class Person:
    """Runs commands in one home; each command starts a minute after the previous one, as
    commands typed by a person would."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.minute = 0
        self.env: dict[str, str] = {}  # more of the environment, for the next commands

    def run(self, *args: str, code: str | None = None) -> Result:
        """``ordergate ARGS`` a minute on; ``code``, when given, on standard input."""
        self.minute += 1
        at = OPEN + timedelta(minutes=self.minute)
        env = {
            "ORDERGATE_HOME": str(self.home),
            "ORDERGATE_DB_URL": "",
            "ORDERGATE_UPSTREAM_URL": "",
            "ORDERGATE_APPROVAL_WEBHOOK": "",
            "ORDERGATE_SANDBOX_START": at.isoformat(),
            "ORDERGATE_GATEWAY_URL": "http://127.0.0.1:9",
            **self.env,
        }
        if code is None:
            return CliRunner().invoke(app, list(args), env=env)
        return CliRunner().invoke(app, [*args, "--code-stdin"], env=env, input=f"{code}\n")

    def json(self, *args: str, code: str | None = None) -> Any:
        result = self.run(*args, "--json", code=code)
        assert result.exit_code in (0, 3, 4), result.output
        return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def person(tmp_path: Path) -> Person:
    return Person(tmp_path / "home")


def test_a_fresh_install_writes_the_safe_policy_and_holds_the_first_order_for_approval(
    person: Person,
) -> None:
    result = person.run("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert result.exit_code == 0, result.output
    assert (person.home / "policy.toml").is_file()
    assert "wrote the default policy" in result.stderr
    assert "embedded sandbox" in result.stderr and "paper mode" in result.stderr
    assert "status    pending_approval" in result.stdout
    assert "approval  " in result.stdout


@pytest.mark.req("owner.act.approve")
@pytest.mark.req("owner.threat.local-commands")
def test_an_order_through_approval_to_a_fill_and_the_status_that_shows_it(person: Person) -> None:
    codes = enrol(person.home)
    pending = person.json("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert pending["status"] == "pending_approval" and pending["accepted"] is True
    listed = person.json("approvals")
    assert [item["approval_id"] for item in listed] == [pending["approval_id"]]
    unapproved = person.run("approve", pending["approval_id"], "--sandbox")
    assert unapproved.exit_code == 2 and "--code" in unapproved.output
    approved = person.json("approve", pending["approval_id"], "--sandbox", code=codes.next())
    assert approved["status"] == "submitted" and approved["mode"] == "paper"
    again = person.run("approve", pending["approval_id"], "--sandbox", code=codes.next())
    assert again.exit_code == 6 and "already decided" in again.output
    status = person.json("status", "--sandbox")
    assert status["mode"] == "paper" and status["paused"] is False
    assert status["orders_24h"] == 1 and status["max_orders_per_day"] == 20
    assert 0 < Decimal(status["spent_24h"]) < 100 and status["max_daily_usd"] == "500"
    # Placed on paper's engine, the market order is open until the clock moves and a
    # reconcile books its fill, as at the venue.
    assert status["pending_approvals"] == [] and len(status["open_orders"]) == 1
    assert status["trading_state"] == "active"


@pytest.mark.req("clocks.outside-session-next-open")
def test_an_order_outside_the_session_says_how_to_run_this_command_at_another_instant(
    person: Person,
) -> None:
    person.minute = 8 * 60  # Tuesday 18:00 New York: after hours
    refused = person.json("order", "SPY", "buy", "--usd", "20", "--sandbox")
    assert refused["reasons"] == ["outside_session"]
    next_open = refused["next_open"]
    # ``ordergate order`` runs its own sandbox: serve's flag would not move it.
    assert f"run the command again with ORDERGATE_SANDBOX_START={next_open}" in refused["message"]


def test_a_refused_order_exits_3_and_names_its_reasons(person: Person) -> None:
    result = person.run("order", "AAPL", "buy", "--qty", "1", "--sandbox")
    assert result.exit_code == 3, result.output
    assert "symbol_not_allowed" in result.stdout and "status    refused" in result.stdout


def test_an_order_while_another_process_holds_the_accounts_turn_exits_3_unfiled(
    person: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = person.json("order", "SPY", "buy", "--qty", "0.1", "--sandbox")  # the ledger exists
    impatient_turns(monkeypatch)
    with turn_held_elsewhere(person.home / "ledger.db"):
        busy = person.run("order", "SPY", "buy", "--qty", "0.2", "--sandbox")
    assert busy.exit_code == 3, busy.output
    assert "refused (account_busy)" in busy.stderr and "nothing was filed" in busy.stderr
    listed = person.json("approvals")
    assert [item["approval_id"] for item in listed] == [first["approval_id"]]


@pytest.mark.req("policy.duplicate-order")
def test_the_same_order_again_at_once_is_refused_as_a_duplicate_with_exit_3(
    person: Person,
) -> None:
    first = person.json("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert first["status"] == "pending_approval"
    person.minute -= 1  # the next command starts at the same instant as the first
    again = person.run("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert again.exit_code == 3, again.output
    assert "duplicate_order" in again.stdout and "status    refused" in again.stdout
    assert "limits.duplicate_window_s = 30" in again.stdout
    person.minute -= 1
    other = person.json("order", "SPY", "buy", "--qty", "0.11", "--sandbox")
    assert other["status"] == "pending_approval", other["reasons"]


@pytest.mark.req("policy.order-rate")
def test_an_order_past_the_minutes_rate_is_refused_order_rate_with_its_numbers_and_exit_3(
    person: Person,
) -> None:
    for step in range(5):  # five different orders in one minute, each held for approval
        placed = person.json("order", "SPY", "buy", "--qty", f"0.1{step}", "--sandbox")
        assert placed["status"] == "pending_approval", placed["reasons"]
        person.minute -= 1  # the next command starts at the same instant
    sixth = person.run("order", "SPY", "buy", "--qty", "0.2", "--sandbox")
    assert sixth.exit_code == 3, sixth.output
    assert "order_rate" in sixth.stdout and "status    refused" in sixth.stdout
    assert "5 orders accepted from you in the last minute" in sixth.stdout
    assert "(limits.max_orders_per_minute = 5)" in sixth.stdout
    # The five held orders are open too: the sentence names them against the cap.
    assert "max_open_orders: 5 open orders (5 filed here, 0 at the broker" in sixth.stdout


@pytest.mark.req("wall.agent-key.once")
def test_the_same_ref_id_again_answers_the_first_filing_and_another_order_under_it_exits_3(
    person: Person,
) -> None:
    key = "0b6e1f3a-1111-4222-8333-944455556666"
    first = person.json("order", "SPY", "buy", "--qty", "0.1", "--ref-id", key, "--sandbox")
    again = person.json("order", "SPY", "buy", "--qty", "0.1", "--ref-id", key, "--sandbox")
    assert again["filing_id"] == first["filing_id"] and again["status"] == "pending_approval"
    assert again["approval_id"] == first["approval_id"]
    other = person.run("order", "SPY", "buy", "--qty", "0.2", "--ref-id", key, "--sandbox")
    assert other.exit_code == 3, other.output
    assert "ref_id_reused" in other.stdout
    bad = person.run("order", "SPY", "buy", "--qty", "0.1", "--ref-id", "retry-1", "--sandbox")
    assert bad.exit_code == 2 and "--ref-id" in bad.output


def test_denying_an_order_ends_it_without_reaching_the_upstream(person: Person) -> None:
    pending = person.json("order", "SPY", "buy", "--usd", "20", "--sandbox")
    listed = person.run("approvals")
    assert "  ~$20.00\n" in listed.stdout  # money to the cent in human output
    denied = person.json("deny", pending["approval_id"])
    assert denied["status"] == "denied" and denied["reasons"] == ["approval_denied"]
    assert person.json("approvals") == []


def test_approvals_fit_100_columns_with_times_to_the_second(person: Person) -> None:
    pending = person.json("order", "SPY", "buy", "--usd", "20", "--sandbox")
    listed = person.run("approvals")
    lines = listed.stdout.splitlines()
    assert lines and all(len(line) <= 100 for line in lines), lines
    assert pending["approval_id"] in lines[0]
    assert re.search(r"expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", listed.stdout.strip())


@pytest.mark.req("cli.decided-twice")
def test_deny_twice_on_the_ledger_directly_says_it_was_decided_and_exits_6(
    person: Person,
) -> None:
    pending = person.json("order", "SPY", "buy", "--usd", "20", "--sandbox")
    assert person.run("deny", pending["approval_id"]).exit_code == 0
    again = person.run("deny", pending["approval_id"])
    assert again.exit_code == 6 and "already decided" in again.output


def test_pause_refuses_the_next_order_with_exit_3(person: Person) -> None:
    assert person.run("order", "SPY", "buy", "--usd", "20", "--sandbox").exit_code == 0
    assert person.run("pause", "--reason", "lunch").exit_code == 0
    refused = person.json("order", "SPY", "buy", "--usd", "20", "--sandbox")
    assert refused["status"] == "refused" and "paused" in refused["reasons"]
    status = person.json("status", "--sandbox")
    assert status["paused"] is True and status["trading_state"] == "paused"


def test_reconcile_prints_what_it_did(person: Person) -> None:
    report = person.json("reconcile", "--sandbox")
    assert report == {
        "adopted": 0, "checked": 0, "errors": [], "expired": 0, "fills_booked": 0,
        "late": 0, "moved": 0, "not_placed": 0, "unreachable": 0,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--qty", "1", "--usd", "5"), "--qty / --usd"),
        ((), "--qty / --usd"),
        (("--qty", "abc"), "--qty"),
        (("--qty", "-1"), "--qty"),
        (("--qty", "1", "--limit", "5"), "--limit"),
        (("--qty", "1", "--type", "limit"), "--limit"),
    ],
)
def test_an_order_the_path_cannot_name_is_refused_before_anything_runs(
    person: Person, args: tuple[str, ...], named: str
) -> None:
    result = person.run("order", "SPY", "buy", *args, "--sandbox")
    assert result.exit_code == 2
    assert named in result.output
    assert not (person.home / "ledger.db").exists()


def test_a_named_policy_file_that_does_not_exist_is_an_error_not_a_default(
    person: Person, tmp_path: Path
) -> None:
    result = person.run(
        "order", "SPY", "buy", "--qty", "1", "--sandbox", "--policy", str(tmp_path / "nope.toml")
    )
    assert result.exit_code == 2 and "no policy file" in result.output


def test_a_bad_policy_is_refused_naming_its_key(person: Person) -> None:
    person.home.mkdir(parents=True)
    (person.home / "policy.toml").write_text("[limits]\nmax_order_usd = 1.5\n")
    result = person.run("order", "SPY", "buy", "--qty", "1", "--sandbox")
    assert result.exit_code == 2 and "limits.max_order_usd" in result.output


def test_upstream_and_sandbox_together_are_refused(person: Person) -> None:
    result = person.run("status", "--sandbox", "--upstream", "https://example.test/mcp")
    assert result.exit_code == 2 and "not both" in result.output


@pytest.mark.req("wall.size-vs-adv")
def test_an_order_past_max_adv_pct_exits_3_naming_size_vs_adv_and_its_numbers(
    person: Person,
) -> None:
    from ordergate.policy import DEFAULT_POLICY_TOML

    person.home.mkdir(parents=True)
    # SPY trades tens of millions of shares a day: a millionth of a percent is under a share.
    text = DEFAULT_POLICY_TOML.replace("[limits]\n", '[limits]\nmax_adv_pct = "0.000001"\n', 1)
    (person.home / "policy.toml").write_text(text)
    refused = person.run("order", "SPY", "buy", "--qty", "1", "--sandbox")
    assert refused.exit_code == 3, refused.output
    assert "size_vs_adv" in refused.stdout and "status    refused" in refused.stdout
    assert "limits.max_adv_pct = 0.000001" in refused.stdout
    small = person.json("order", "SPY", "buy", "--qty", "0.01", "--sandbox")
    assert small["status"] == "pending_approval", small["reasons"]


@pytest.mark.req("wall.limit-collar")
def test_a_limit_outside_the_collar_exits_3_naming_price_collar_and_its_numbers(
    person: Person,
) -> None:
    # The default policy collars at 300 bps; SPY trades far above $1.
    refused = person.run(
        "order", "SPY", "buy", "--qty", "1", "--type", "limit", "--limit", "1.00", "--sandbox"
    )
    assert refused.exit_code == 3, refused.output
    assert "price_collar" in refused.stdout and "status    refused" in refused.stdout
    assert "price_collar: the order's price $1.00 against the quote" in refused.stdout
    assert "limits.price_collar_bps = 300" in refused.stdout


@pytest.mark.req("wall.stale-quote")
def test_a_quote_a_second_past_max_quote_age_exits_3_naming_stale_quote_and_its_numbers(
    person: Person,
) -> None:
    # The embedded venue's feed held behind its clock; the run's clock moves on while the
    # quote is read, so the quote a second under the default cap (15 s) is the one that passes.
    person.env["ORDERGATE_SANDBOX_FAULTS"] = '{"quote_lag_s": {"SPY": 16}}'
    refused = person.run("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    person.env["ORDERGATE_SANDBOX_FAULTS"] = '{"quote_lag_s": {"SPY": 14}}'
    inside = person.json("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert refused.exit_code == 3, refused.output
    assert "stale_quote" in refused.stdout and "status    refused" in refused.stdout
    assert re.search(r"stale_quote: the quote is 16(\.\d+)? s old", refused.stdout)
    assert "(limits.max_quote_age_s = 15)" in refused.stdout
    assert inside["status"] == "pending_approval", inside["reasons"]
    assert person.json("approvals")[0]["approval_id"] == inside["approval_id"]


def test_sandbox_faults_that_are_not_the_venues_knobs_exit_2_naming_the_knob(
    person: Person,
) -> None:
    person.env["ORDERGATE_SANDBOX_FAULTS"] = '{"quote_lag_s": {"SPY": -1}}'
    bad = person.run("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert bad.exit_code == 2, bad.output
    assert "ORDERGATE_SANDBOX_FAULTS: quote_lag_s.SPY" in bad.output
    person.env["ORDERGATE_SANDBOX_FAULTS"] = '{"quote_lag_s": {"SPY": 16}}'
    person.env["ORDERGATE_SANDBOX_START"] = ""  # a real broker's clock is real
    elsewhere = person.run(
        "order", "SPY", "buy", "--qty", "0.1", "--upstream", "http://127.0.0.1:9/mcp"
    )
    assert elsewhere.exit_code == 2, elsewhere.output
    assert "ORDERGATE_SANDBOX_FAULTS" in elsewhere.output


@pytest.mark.req("wall.cooldown")
def test_a_buy_in_the_cooldown_after_a_breaker_exits_3_naming_cooldown_and_until_when(
    person: Person,
) -> None:
    from ordergate.core import RealtimeClock
    from ordergate.ledger import open_ledger
    from ordergate.policy import DEFAULT_POLICY_TOML
    from ordergate.runtime import EMBEDDED_ACCOUNT

    person.home.mkdir(parents=True)
    text = DEFAULT_POLICY_TOML.replace("[cooldown]\nminutes = 0", "[cooldown]\nminutes = 30")
    (person.home / "policy.toml").write_text(text)
    url = f"sqlite:///{person.home / 'ledger.db'}"
    assert person.json("status", "--sandbox")  # the ledger is made, the policy applied
    with open_ledger(url, clock=RealtimeClock()) as ledger:
        ledger.controls.set_high_water_mark(Decimal(10) ** 9, account=EMBEDDED_ACCOUNT)
    tripped = person.json("order", "SPY", "buy", "--qty", "0.11", "--sandbox")
    assert "drawdown_halt" in tripped["reasons"]
    with open_ledger(url, clock=RealtimeClock()) as ledger:
        ledger.controls.set_high_water_mark(Decimal(1), account=EMBEDDED_ACCOUNT)
    cooling = person.run("order", "SPY", "buy", "--qty", "0.12", "--sandbox")
    assert cooling.exit_code == 3, cooling.output
    assert "cooldown" in cooling.stdout and "(cooldown.minutes = 30)" in cooling.stdout
    person.minute += 30  # each command starts a minute on: the cooldown has passed
    after = person.json("order", "SPY", "buy", "--qty", "0.13", "--sandbox")
    assert after["status"] == "pending_approval", after["reasons"]


@pytest.mark.req("controls.pause-cancels-working-orders")
def test_pause_cancel_open_with_no_gateway_running_ends_the_held_order_on_the_ledger(
    person: Person,
) -> None:
    held = person.json("order", "SPY", "buy", "--qty", "0.1", "--sandbox")
    assert held["status"] == "pending_approval"
    paused = person.run("pause", "--cancel-open", "--reason", "stop")
    assert paused.exit_code == 0, paused.output
    assert f"{held['filing_id']}  SPY    denied (status denied)" in paused.stdout
    assert "1 working orders ended" in paused.stdout
    refused = person.json("order", "SPY", "buy", "--qty", "0.11", "--sandbox")
    assert refused["reasons"] == ["paused"]
