"""The owner's commands against a running gateway: each act goes over its owner channel (the
gateway's own key, guards and ledger), with the owner code — read from a hidden prompt or
``--code-stdin``, never the command line — where the act needs one."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from desk_kit import BOUND_S, owner_desk
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from typer.testing import CliRunner

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.cli import app
from ordergate.policy import DEFAULT_POLICY_TOML


@pytest.mark.req("owner.act.approve")
def test_approve_through_the_gateway_places_the_order_with_the_code_and_not_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        listed = desk.command("approvals", "--json")
        assert [item["approval_id"] for item in json.loads(listed.stdout)] == [held["approval_id"]]
        wrong = desk.command("approve", held["approval_id"], code=desk.codes.wrong())
        assert wrong.exit_code == 5 and "owner_code_wrong" in wrong.stderr
        approved = desk.command("approve", held["approval_id"], code=desk.codes.next())
        assert approved.exit_code == 0, approved.output
        assert "status    submitted" in approved.stdout and "mode      paper" in approved.stdout
        assert desk.settled(held["filing_id"]) == "filled"
        again = desk.command("approve", held["approval_id"], code=desk.codes.next())
        assert again.exit_code == 6


@pytest.mark.req("owner.act.safer-needs-no-code")
def test_pause_needs_no_code_and_resume_asks_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        assert desk.command("pause", "--reason", "lunch").exit_code == 0
        assert desk.ledger.controls.pause_state().paused
        no_code = desk.command("resume")
        assert no_code.exit_code == 2 and "--code" in no_code.stderr
        resumed = desk.command("resume", code=desk.codes.passphrase or "")
        assert resumed.exit_code == 0 and "reason: lunch" in resumed.stdout
        assert not desk.ledger.controls.pause_state().paused


@pytest.mark.req("controls.pause-cancels-working-orders")
def test_pause_cancel_open_through_the_gateway_ends_each_open_order_and_prints_its_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        held = [desk.held_order()["filing_id"] for _ in range(2)]
        paused = desk.command("pause", "--cancel-open", "--reason", "runaway")
        assert paused.exit_code == 0, paused.output
        assert "new orders are refused" in paused.stdout
        for filing_id in held:
            assert f"{filing_id}  SPY    denied (status denied)" in paused.stdout
        assert "2 working orders ended" in paused.stdout
        assert desk.ledger.open_filings() == []
        kills = [e for e in desk.ledger.journal.entries() if e.why.startswith("kill switch")]
        assert sorted(str(e.filing_id) for e in kills) == sorted(held)
        again = desk.command("pause", "--cancel-open")
        assert again.exit_code == 0 and "already paused" in again.stdout
        assert "no order was working" in again.stdout


@pytest.mark.req("owner.act.policy")
def test_policy_apply_through_the_gateway_tightens_freely_and_loosens_with_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        tighter = tmp_path / "tighter.toml"
        tighter.write_text('approval = "always"\n[symbols]\nallow = ["SPY"]\n'
                           '[limits]\nmax_order_usd = "50"\n')  # fmt: skip
        applied = desk.command("policy", "apply", str(tighter))
        assert applied.exit_code == 0, applied.output
        assert "changed: limits.max_order_usd" in applied.stdout
        looser = tmp_path / "looser.toml"
        looser.write_text(DEFAULT_POLICY_TOML)
        refused = desk.command("policy", "apply", str(looser))
        assert refused.exit_code == 2 and "--code" in refused.stderr
        done = desk.command("policy", "apply", str(looser), code=desk.codes.next())
        assert done.exit_code == 0, done.output
        assert "waiting: " in done.stdout and "policy_apply" in done.stdout
        [waiting] = json.loads(desk.command("owner", "pending", "--json").stdout)
        assert "limits.max_order_usd, symbols.allow" in waiting["summary"]
        desk.pass_delay()
        assert (desk.home / "policy.toml").read_text() == DEFAULT_POLICY_TOML


@pytest.mark.req("owner.act.token-mint")
def test_token_mint_through_the_gateway_uses_its_key_and_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        args = ("token", "mint", "--profile")
        reader = desk.command(*args, "monitor", "--caller", "nightly-reader")
        assert reader.exit_code == 0, reader.output
        assert reader.stdout.strip().count(".") == 1
        trader = desk.command(*args, "trader", "--caller", "nightly", code=desk.codes.next())
        assert trader.exit_code == 0, trader.output
        assert trader.stdout == "" and "waiting: " in trader.stderr
        desk.pass_delay()
        trader = desk.command(*args, "trader", "--caller", "nightly")
        assert trader.exit_code == 0, trader.output
        assert trader.stdout.strip().count(".") == 1
        listed = desk.command("connections", "list", "--json")
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
        assert desk.command("connections", "list").stdout.strip() == "no connections"
        desk.connected_client("Claude")
        [line, identity] = desk.command("connections", "list").stdout.splitlines()
        connection_id = line.split()[0]
        assert "  Claude  " in line and " monitor " in line and " live " in line
        assert identity.lstrip().startswith("files as conn:") and "last used" in identity
        revoked = desk.command("connections", "revoke", connection_id)
        assert revoked.exit_code == 0 and "no longer work" in revoked.stdout
        again = desk.command("connections", "revoke", connection_id)
        assert again.exit_code == 0 and "nothing changed" in again.stdout


def test_a_policy_already_in_force_a_bad_one_and_a_missing_file_are_each_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        same = desk.command("policy", "apply", str(desk.home / "policy.toml"))
        assert same.exit_code == 0 and same.stdout.startswith("already in force")
        bad = tmp_path / "bad.toml"
        bad.write_text("[limits]\nmax_order_usd = 12.5\n")
        refused = desk.command("policy", "apply", str(bad))
        assert refused.exit_code == 2 and "limits.max_order_usd" in refused.stderr
        missing = desk.command("policy", "apply", str(tmp_path / "none.toml"))
        assert missing.exit_code == 2 and "cannot read" in missing.stderr


def test_pausing_twice_keeps_the_first_reason_and_resuming_unpaused_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        assert "not paused" in desk.command("resume").stdout
        assert desk.command("pause", "--reason", "first").exit_code == 0
        again = desk.command("pause", "--reason", "second")
        assert "already paused" in again.stdout and "reason: first" in again.stdout
        assert desk.command("deny", "no-such-approval").exit_code == 2


@pytest.mark.req("cli.decided-twice")
def test_deny_twice_through_the_gateway_says_it_was_decided_and_exits_6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        held = desk.held_order()
        denied = desk.command("deny", held["approval_id"])
        assert denied.exit_code == 0, denied.output
        again = desk.command("deny", held["approval_id"])
        assert again.exit_code == 6, again.output
        assert "already decided" in again.stderr and "nothing changed" in again.stderr
        approve_after = desk.command("approve", held["approval_id"], code=desk.codes.next())
        assert approve_after.exit_code == 6, approve_after.output
        assert "already decided" in approve_after.stderr


@pytest.mark.req("owner.delay.cancelled-by-tightening")
def test_the_owner_cancels_a_waiting_act_from_the_command_line_without_a_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        looser = tmp_path / "looser.toml"
        looser.write_text(DEFAULT_POLICY_TOML)
        before = desk.ledger.controls.applied_policy()
        desk.command("policy", "apply", str(looser), code=desk.codes.next())
        listed = desk.command("owner", "pending")
        assert listed.exit_code == 0 and "policy_apply" in listed.stdout
        cancelled = desk.command("owner", "cancel")
        assert cancelled.exit_code == 0 and "cancelled " in cancelled.stdout
        assert desk.command("owner", "pending").stdout.strip() == "no owner act waits"
        desk.pass_delay()
        assert desk.ledger.controls.applied_policy() == before


def _collecting_gateway(seen: list[str]) -> BackgroundServer:
    """A fake gateway on a loopback port: answers ``GET /owner/status`` as the real one did
    and keeps every request it is sent (method, path and body)."""

    async def collect(request: Request) -> JSONResponse:
        seen.append(f"{request.method} {request.url.path} {(await request.body()).decode()}")
        return JSONResponse({"owner": {"enrolled": True}, "paused": False, "status": "filled"})

    app = Starlette(routes=[Route("/{path:path}", collect, methods=["GET", "POST"])])
    return BackgroundServer(app, bind_socket("127.0.0.1", 0))


@pytest.mark.req("owner.channel.fake-gateway")
def test_a_fake_gateway_on_the_default_address_collects_no_code_when_the_owner_approves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    with (
        owner_desk(tmp_path, monkeypatch, passphrase=None) as desk,
        _collecting_gateway(seen) as fake,
    ):
        held = desk.held_order()
        code = desk.codes.next()
        # The owner's own shell: the gateway's home, and the default address held by the
        # agent's server (ORDERGATE_GATEWAY_URL, or 127.0.0.1:8787 while the gateway restarts).
        approved = CliRunner().invoke(
            app,
            ["approve", held["approval_id"], "--code-stdin"],
            env={
                "ORDERGATE_HOME": str(desk.home),
                "ORDERGATE_GATEWAY_URL": f"http://127.0.0.1:{fake.port}",
            },
            input=f"{code}\n",
        )
        assert approved.exit_code == 0, approved.output
        # The gateway's answer (the fake answers "filled" to everything), its order then filled.
        assert "status    submitted" in approved.stdout
        assert "owner channel" in approved.stderr  # it says which desk it used
        assert desk.settled(held["filing_id"]) == "filled"
    assert seen == []


@pytest.mark.req("owner.channel.checked-before-sending")
def test_a_socket_in_a_directory_another_user_can_write_is_refused_before_any_code_is_sent(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o777)  # anyone could have put a socket here
    path = folder / "owner.sock"
    received: list[bytes] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(path))
        listener.listen(4)
        listener.settimeout(BOUND_S)

        def serve() -> None:  # reads all the command's one connection sends until it closes
            try:
                peer, _ = listener.accept()
            except OSError:
                return
            with peer:
                peer.settimeout(BOUND_S)
                while chunk := peer.recv(4096):
                    received.append(chunk)

        reader = threading.Thread(target=serve, daemon=True)
        reader.start()
        refused = CliRunner().invoke(
            app,
            ["approve", "some-approval", "--code-stdin", "--owner-socket", str(path)],
            env={"ORDERGATE_HOME": str(tmp_path / "home")},
            input="123456\n",
        )
        reader.join(BOUND_S)
    assert refused.exit_code == 2, refused.output
    assert f"{folder} is writable by group or others (mode 0777)" in refused.stderr
    assert "nothing was sent" in refused.stderr
    assert b"".join(received) == b""


@pytest.mark.req("owner.code.not-in-argv")
def test_no_owner_command_takes_a_code_on_its_command_line() -> None:
    for command_line in (
        ["approve", "some-approval"],
        ["resume"],
        ["policy", "apply", "policy.toml"],
        ["token", "mint", "--caller", "nightly", "--profile", "trader"],
        ["owner", "init"],
    ):
        refused = CliRunner().invoke(app, [*command_line, "--code", "123456"])
        assert refused.exit_code == 2, command_line
        assert "No such option: --code" in refused.stderr, refused.stderr


@pytest.mark.req("owner.code.not-in-argv")
def test_the_code_comes_from_standard_input_with_code_stdin_and_is_never_echoed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch, passphrase=None) as desk:
        assert desk.command("pause", "--reason", "lunch").exit_code == 0
        code = desk.codes.next()
        resumed = desk.command("resume", code=code)
        assert resumed.exit_code == 0, resumed.output
        assert "resume: new orders are accepted again" in resumed.stderr  # what it authorised
        assert code not in resumed.output
        empty = desk.command("pause", "--reason", "again")
        assert empty.exit_code == 0
        nothing = desk.command("resume", code="")
        assert nothing.exit_code == 2 and "--code-stdin read no owner code" in nothing.stderr


def test_a_registered_name_is_listed_inert_never_as_terminal_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        desk.connected_client("Claude\n\x1b[2Jforged  owner  live")
        listed = desk.command("connections", "list").stdout
    assert "\x1b" not in listed
    assert len(listed.splitlines()) == 2
