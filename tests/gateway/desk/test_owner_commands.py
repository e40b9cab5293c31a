"""The owner's commands against a running gateway: each act goes over its owner route (the
gateway's own key, guards and ledger), with the owner code where the act needs one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from desk_kit import Desk, owner_desk
from typer.testing import CliRunner, Result

from ordergate.cli import app
from ordergate.policy import DEFAULT_POLICY_TOML


def command(desk: Desk, *args: str) -> Result:
    """``ordergate ARGS --gateway URL`` as the owner runs it: no key, no ledger of its own."""
    env = {
        "ORDERGATE_HOME": str(desk.home.parent / "owner-elsewhere"),
        "ORDERGATE_DB_URL": "",
        "ORDERGATE_MASTER_SECRET": "",
        "ORDERGATE_CALLER_TOKEN_KEY": "",
    }
    return CliRunner().invoke(app, [*args, "--gateway", desk.url], env=env)


@pytest.mark.req("owner.act.approve")
def test_approve_through_the_gateway_places_the_order_with_the_code_and_not_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        listed = command(desk, "approvals", "--json")
        assert [item["approval_id"] for item in json.loads(listed.stdout)] == [held["approval_id"]]
        wrong = command(desk, "approve", held["approval_id"], "--code", desk.codes.wrong())
        assert wrong.exit_code == 5 and "owner_code_wrong" in wrong.stderr
        approved = command(desk, "approve", held["approval_id"], "--code", desk.codes.next())
        assert approved.exit_code == 0, approved.output
        assert "status    filled" in approved.stdout and "mode      paper" in approved.stdout
        again = command(desk, "approve", held["approval_id"], "--code", desk.codes.next())
        assert again.exit_code == 6


@pytest.mark.req("owner.act.safer-needs-no-code")
def test_pause_needs_no_code_and_resume_asks_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        assert command(desk, "pause", "--reason", "lunch").exit_code == 0
        assert desk.ledger.controls.pause_state().paused
        no_code = command(desk, "resume")
        assert no_code.exit_code == 2 and "--code" in no_code.stderr
        resumed = command(desk, "resume", "--code", desk.codes.passphrase or "")
        assert resumed.exit_code == 0 and "reason: lunch" in resumed.stdout
        assert not desk.ledger.controls.pause_state().paused


@pytest.mark.req("owner.act.policy")
def test_policy_apply_through_the_gateway_tightens_freely_and_loosens_with_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        tighter = tmp_path / "tighter.toml"
        tighter.write_text('approval = "always"\n[symbols]\nallow = ["SPY"]\n'
                           '[limits]\nmax_order_usd = "50"\n')  # fmt: skip
        applied = command(desk, "policy", "apply", str(tighter))
        assert applied.exit_code == 0, applied.output
        assert "changed: limits.max_order_usd" in applied.stdout
        looser = tmp_path / "looser.toml"
        looser.write_text(DEFAULT_POLICY_TOML)
        refused = command(desk, "policy", "apply", str(looser))
        assert refused.exit_code == 2 and "--code" in refused.stderr
        done = command(desk, "policy", "apply", str(looser), "--code", desk.codes.next())
        assert done.exit_code == 0, done.output
        assert "waiting: " in done.stdout and "policy_apply" in done.stdout
        [waiting] = json.loads(command(desk, "owner", "pending", "--json").stdout)
        assert "limits.max_order_usd, symbols.allow" in waiting["summary"]
        desk.pass_delay()
        assert (desk.home / "policy.toml").read_text() == DEFAULT_POLICY_TOML


@pytest.mark.req("owner.act.token-mint")
def test_token_mint_through_the_gateway_uses_its_key_and_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        args = ("token", "mint", "--profile")
        reader = command(desk, *args, "monitor", "--caller", "nightly-reader")
        assert reader.exit_code == 0, reader.output
        assert reader.stdout.strip().count(".") == 1
        trader = command(desk, *args, "trader", "--caller", "nightly", "--code", desk.codes.next())
        assert trader.exit_code == 0, trader.output
        assert trader.stdout == "" and "waiting: " in trader.stderr
        desk.pass_delay()
        trader = command(desk, *args, "trader", "--caller", "nightly")
        assert trader.exit_code == 0, trader.output
        assert trader.stdout.strip().count(".") == 1
        listed = command(desk, "connections", "list", "--json")
        assert listed.exit_code == 0
        shown = [
            (row["client_name"], row["kind"], row["state"]) for row in json.loads(listed.stdout)
        ]
        assert sorted(shown) == [
            ("nightly", "caller", "live"),
            ("nightly-reader", "caller", "live"),
        ]


def test_connections_are_listed_by_name_and_revoked_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        assert command(desk, "connections", "list").stdout.strip() == "no connections"
        desk.connected_client("Claude")
        [line] = command(desk, "connections", "list").stdout.splitlines()
        connection_id = line.split()[0]
        assert "'Claude'" in line and " monitor " in line and " live " in line
        revoked = command(desk, "connections", "revoke", connection_id)
        assert revoked.exit_code == 0 and "no longer work" in revoked.stdout
        again = command(desk, "connections", "revoke", connection_id)
        assert again.exit_code == 0 and "nothing changed" in again.stdout


def test_a_policy_already_in_force_a_bad_one_and_a_missing_file_are_each_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        same = command(desk, "policy", "apply", str(desk.home / "policy.toml"))
        assert same.exit_code == 0 and same.stdout.startswith("already in force")
        bad = tmp_path / "bad.toml"
        bad.write_text("[limits]\nmax_order_usd = 12.5\n")
        refused = command(desk, "policy", "apply", str(bad))
        assert refused.exit_code == 2 and "limits.max_order_usd" in refused.stderr
        missing = command(desk, "policy", "apply", str(tmp_path / "none.toml"))
        assert missing.exit_code == 2 and "cannot read" in missing.stderr


def test_pausing_twice_keeps_the_first_reason_and_resuming_unpaused_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        assert "not paused" in command(desk, "resume").stdout
        assert command(desk, "pause", "--reason", "first").exit_code == 0
        again = command(desk, "pause", "--reason", "second")
        assert "already paused" in again.stdout and "reason: first" in again.stdout
        assert command(desk, "deny", "no-such-approval").exit_code == 2


@pytest.mark.req("cli.decided-twice")
def test_deny_twice_through_the_gateway_says_it_was_decided_and_exits_6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        denied = command(desk, "deny", held["approval_id"])
        assert denied.exit_code == 0, denied.output
        again = command(desk, "deny", held["approval_id"])
        assert again.exit_code == 6
        assert "already decided" in again.stderr and "nothing changed" in again.stderr
        approve_after = command(desk, "approve", held["approval_id"], "--code", desk.codes.next())
        assert approve_after.exit_code == 6 and "already decided" in approve_after.stderr


@pytest.mark.req("owner.delay.cancelled-by-tightening")
def test_the_owner_cancels_a_waiting_act_from_the_command_line_without_a_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        looser = tmp_path / "looser.toml"
        looser.write_text(DEFAULT_POLICY_TOML)
        before = desk.ledger.controls.applied_policy()
        command(desk, "policy", "apply", str(looser), "--code", desk.codes.next())
        listed = command(desk, "owner", "pending")
        assert listed.exit_code == 0 and "policy_apply" in listed.stdout
        cancelled = command(desk, "owner", "cancel")
        assert cancelled.exit_code == 0 and "cancelled " in cancelled.stdout
        assert command(desk, "owner", "pending").stdout.strip() == "no owner act waits"
        desk.pass_delay()
        assert desk.ledger.controls.applied_policy() == before
