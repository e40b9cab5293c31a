"""``ordergate owner init`` and ``ordergate owner status``, as the owner runs them."""

from __future__ import annotations

import json
import stat
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest
from typer.testing import CliRunner, Result

from ordergate.cli import app
from ordergate.core import RealtimeClock
from ordergate.ledger import open_ledger
from ordergate.owner import Delays, DelaySettings, read_enrolment

PHRASE = "a long and private passphrase"


def run(home: Path, *args: str, stdin: str | None = None) -> Result:
    env = {"ORDERGATE_HOME": str(home), "ORDERGATE_DB_URL": ""}
    return CliRunner().invoke(app, ["owner", *args], env=env, input=stdin)


def _secret_of(result: Result) -> str:
    [uri] = [line for line in result.stdout.splitlines() if line.startswith("otpauth://")]
    return parse_qs(urlsplit(uri).query)["secret"][0]


@pytest.mark.req("owner.enrolment.private")
def test_init_prints_the_uri_on_a_line_of_its_own_and_keeps_the_secret_0600(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = run(home, "init")
    assert result.exit_code == 0, result.output
    secret = _secret_of(result)
    enrolment = read_enrolment(home / "owner.json")
    assert enrolment is not None and enrolment.totp_secret.reveal() == secret
    assert enrolment.passphrase is None
    assert stat.S_IMODE((home / "owner.json").stat().st_mode) == 0o600
    assert "not shown again" in result.stderr
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        assert [entry.kind for entry in ledger.journal.entries()] == ["owner_enrolled"]


def test_init_draws_a_qr_code_when_asked(tmp_path: Path) -> None:
    result = run(tmp_path / "home", "init", "--qr")
    assert result.exit_code == 0 and "█" in result.stdout


@pytest.mark.req("owner.enrolment.passphrase-hashed")
def test_init_with_a_passphrase_on_stdin_enrols_both_and_keeps_only_its_hash(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    result = run(home, "init", "--passphrase-stdin", stdin=PHRASE + "\n")
    assert result.exit_code == 0, result.output
    assert PHRASE not in (home / "owner.json").read_text()
    status = run(home, "status", "--json")
    assert json.loads(status.stdout) == {
        "enrolled": True, "locked_until": None, "passphrase": True, "recent_failures": 0,
    }  # fmt: skip
    assert "authenticator code and passphrase" in run(home, "status").stdout


def test_a_short_passphrase_is_refused_and_nothing_is_enrolled(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = run(home, "init", "--passphrase-stdin", stdin="short\n")
    assert result.exit_code == 2 and "passphrase" in result.stderr
    assert not (home / "owner.json").exists()


@pytest.mark.req("owner.code.required")
def test_enrolling_again_needs_the_current_code_and_then_replaces_the_secret(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    first = _secret_of(run(home, "init"))
    refused = run(home, "init", "--code-stdin", stdin="not the code\n")
    assert refused.exit_code == 5 and "owner_code_wrong" in refused.stderr
    assert read_enrolment(home / "owner.json").totp_secret.reveal() == first  # type: ignore[union-attr]
    again = run(home, "init", "--code-stdin", stdin=pyotp.TOTP(first).now() + "\n")
    assert again.exit_code == 0, again.output
    assert _secret_of(again) != first
    replay = run(home, "init", "--code-stdin", stdin=pyotp.TOTP(first).now() + "\n")
    assert replay.exit_code == 5  # the old secret's codes no longer count


def test_status_says_when_nobody_is_enrolled(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()).close()
    result = run(home, "status")
    assert result.exit_code == 0 and "no owner enrolled" in result.stdout


@pytest.mark.req("owner.code.lock-alert")
def test_unlock_as_the_gateways_user_lifts_every_lock_and_is_journalled(tmp_path: Path) -> None:
    import getpass

    from ordergate.owner import (
        MAX_FAILURES,
        OwnerAct,
        OwnerAuthority,
        OwnerRefused,
        act_digest,
        acting_from,
    )

    RESUME = act_digest(OwnerAct.RESUME, {})
    home = tmp_path / "home"
    secret = _secret_of(run(home, "init"))
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        authority = OwnerAuthority(enrolment_path=home / "owner.json", ledger=ledger)
        for n in range(MAX_FAILURES):
            with acting_from(f"s{n}"), pytest.raises(OwnerRefused):
                authority.authorize("not-a-code", OwnerAct.RESUME, digest=RESUME)
        assert authority.status().locked_until is not None
    result = run(home, "unlock", "--json")
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["by"] == getpass.getuser() and outcome["was_locked_until"]
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        authority = OwnerAuthority(enrolment_path=home / "owner.json", ledger=ledger)
        assert authority.status().locked_until is None
        code = pyotp.TOTP(secret).now()
        assert authority.authorize(code, OwnerAct.RESUME, digest=RESUME).value == "totp"
        [entry] = [e for e in ledger.journal.entries(limit=1000) if e.kind == "owner_unlocked"]
    assert entry.detail["by"] == getpass.getuser()


@pytest.mark.req("owner.delay.loosening-waits")
def test_init_keeps_the_owners_delays_and_enrolling_again_with_looser_ones_waits(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    first = run(home, "init", "--loosen-delay", "1h", "--approve-above", "100")
    assert first.exit_code == 0, first.output
    enrolment = read_enrolment(home / "owner.json")
    assert enrolment is not None
    wanted = DelaySettings(timedelta(hours=1), Decimal("100"))
    assert enrolment.delays == wanted
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        assert Delays(ledger).settings() == wanted  # the first enrolment's, at once
    code = pyotp.TOTP(_secret_of(first)).now()
    looser = run(home, "init", "--loosen-delay", "1m", "--code-stdin", stdin=f"{code}\n")
    assert looser.exit_code == 0, looser.output
    assert "wait until" in looser.stderr
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        assert Delays(ledger).settings() == wanted
        [waiting] = Delays(ledger).pending()
    status = run(home, "status", "--owner-socket", str(home / "no-gateway.sock"))
    assert "waits 3600 s; so does approving an order above $100" in status.stdout
    assert "1 owner act(s) wait" in status.stdout
    pending = run(home, "pending", "--owner-socket", str(home / "no-gateway.sock"))
    assert pending.exit_code == 0 and waiting.id in pending.stdout
    cancelled = run(home, "cancel", waiting.id, "--owner-socket", str(home / "no-gateway.sock"))
    assert cancelled.exit_code == 0 and f"cancelled {waiting.id}" in cancelled.stdout
    for bad in (("--loosen-delay", "soon"), ("--loosen-delay", "8d"), ("--approve-above", "x")):
        assert run(tmp_path / "other", "init", *bad).exit_code == 2


@pytest.mark.req("owner.recovery.reset")
def test_a_lost_authenticator_is_reset_by_the_gateways_user_journalled_and_enrolled_afresh(
    tmp_path: Path,
) -> None:
    import getpass

    home = tmp_path / "home"
    first = _secret_of(run(home, "init"))
    assert run(home, "reset").exit_code == 1  # asks first; no answer keeps it
    assert (home / "owner.json").exists()
    reset = run(home, "reset", "--yes")
    assert reset.exit_code == 0, reset.output
    assert "owner init" in reset.stdout
    assert not (home / "owner.json").exists()
    again = run(home, "init")
    assert again.exit_code == 0, again.output
    assert _secret_of(again) != first
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        [entry] = [e for e in ledger.journal.entries(limit=1000) if e.kind == "owner_reset"]
    assert entry.detail["by"] == getpass.getuser()
    assert run(home, "reset", "--yes").exit_code == 0  # the new enrolment, reset again
    assert run(home, "reset", "--yes").exit_code == 2  # nothing left to reset
