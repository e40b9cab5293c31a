"""``ordergate audit verify`` and ``ordergate audit head`` on a real ledger file."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner, Result

from ordergate.cli import app
from ordergate.core import RealtimeClock
from ordergate.ledger import Filing, FilingStatus, RollingCaps, open_ledger

CAPS = RollingCaps(Decimal(1000), 100)


def audit(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, ["audit", *args], env=env)


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    with open_ledger(url, clock=RealtimeClock()) as ledger:
        for index in range(4):
            ledger.file_and_reserve(Filing("agent", {"n": index}), notional=Decimal(1), caps=CAPS)
    return url


@pytest.mark.req("ledger.tamper-evident")
def test_verify_exits_0_on_an_intact_ledger(db: str) -> None:
    result = audit("verify", "--db", db)
    assert result.exit_code == 0, result.output
    assert "intact: 4 records" in result.output


@pytest.mark.req("ledger.tamper-evident")
def test_verify_exits_1_naming_the_first_edited_filing(db: str) -> None:
    with open_ledger(db, clock=RealtimeClock()) as ledger:
        victim = ledger.open_filings()[1]
        with ledger.engine.begin() as connection:
            connection.execute(text("UPDATE filings SET terms = '{}' WHERE seq = 2"))
    result = audit("verify", "--db", db)
    assert result.exit_code == 1
    assert f"filings 2 (id {victim.id})" in result.output


def test_head_prints_a_checkpoint_that_verify_accepts_until_the_tail_is_cut(db: str) -> None:
    head = audit("head", "--db", db)
    assert head.exit_code == 0
    lines = dict(line.split(" ", 1) for line in head.output.splitlines())
    assert lines["filings"].startswith("4:") and lines["events"].startswith("0:")
    pinned = ["--checkpoint", lines["filings"], "--events-checkpoint", lines["events"]]
    assert audit("verify", "--db", db, *pinned).exit_code == 0
    with open_ledger(db, clock=RealtimeClock()) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("DELETE FROM reservations WHERE filing_id = "
                                "(SELECT id FROM filings WHERE seq = 4)"))  # fmt: skip
        connection.execute(text("DELETE FROM open_filings WHERE seq = 4"))
        connection.execute(text("DELETE FROM filings WHERE seq = 4"))
    careless = audit("verify", "--db", db)
    assert careless.exit_code == 1 and "truncated" in careless.output
    with open_ledger(db, clock=RealtimeClock()) as ledger, ledger.engine.begin() as connection:
        # A careful forger also points the account's head back at the filing before.
        connection.execute(text("UPDATE chain_heads SET seq = 3, account_seq = 3, "
                                "hash = (SELECT hash FROM filings WHERE seq = 3)"))  # fmt: skip
    assert audit("verify", "--db", db).exit_code == 0
    cut = audit("verify", "--db", db, *pinned)
    assert cut.exit_code == 1 and "truncated" in cut.output


def test_the_filings_checkpoint_covers_every_accounts_chain(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'accounts.db'}"
    with open_ledger(url, clock=RealtimeClock()) as ledger:
        for account in ("a", "b", "a"):
            ledger.file_and_reserve(Filing("agent", {}, account=account), notional=Decimal(1),
                                    caps=CAPS)  # fmt: skip
    pin = audit("head", "--db", url).output.splitlines()[0].split(" ", 1)[1]
    with open_ledger(url, clock=RealtimeClock()) as ledger, ledger.engine.begin() as connection:
        # b's only filing, not the ledger's last, goes with its head.
        connection.execute(text("DELETE FROM reservations WHERE filing_id = "
                                "(SELECT id FROM filings WHERE seq = 2)"))  # fmt: skip
        connection.execute(text("DELETE FROM open_filings WHERE seq = 2"))
        connection.execute(text("DELETE FROM filings WHERE seq = 2"))
        connection.execute(text("DELETE FROM chain_heads WHERE account = 'b'"))
    assert audit("verify", "--db", url).exit_code == 0
    cut = audit("verify", "--db", url, "--checkpoint", pin)
    assert cut.exit_code == 1 and "cut off" in cut.output


def test_a_malformed_checkpoint_is_a_usage_error(db: str) -> None:
    result = audit("verify", "--db", db, "--checkpoint", "nonsense")
    assert result.exit_code == 2


def test_a_missing_ledger_exits_2_without_creating_one(tmp_path: Path) -> None:
    result = audit("head", env={"ORDERGATE_HOME": str(tmp_path), "ORDERGATE_DB_URL": ""})
    assert result.exit_code == 2
    assert "no ledger" in result.output
    assert not (tmp_path / "ledger.db").exists()


def _heads(db: str) -> tuple[str, str]:
    lines = dict(line.split(" ", 1) for line in audit("head", "--db", db).output.splitlines())
    return lines["filings"], lines["events"]


@pytest.mark.req("ledger.verify-since")
def test_verify_since_the_printed_head_checks_only_what_followed_and_names_a_later_edit(
    db: str,
) -> None:
    filings_head, events_head = _heads(db)
    since = ["--since", filings_head, "--events-since", events_head]
    assert audit("verify", "--db", db, *since).output.strip() == (
        "intact: 0 records after the checkpoint"
    )
    with open_ledger(db, clock=RealtimeClock()) as ledger:
        later = ledger.file_and_reserve(Filing("agent", {"n": 9}), notional=Decimal(1),
                                        caps=CAPS).record  # fmt: skip
        ledger.record_status(later.id, FilingStatus.SUBMITTED)
    result = audit("verify", "--db", db, *since)
    assert result.exit_code == 0 and "intact: 2 records after the checkpoint" in result.output
    with open_ledger(db, clock=RealtimeClock()) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("UPDATE filings SET identity = 'mallory' WHERE seq = 5"))
    tampered = audit("verify", "--db", db, *since)
    assert tampered.exit_code == 1
    assert f"tampered: filings 5 (id {later.id})" in tampered.output


@pytest.mark.req("ledger.verify-since")
def test_verify_since_a_checkpoint_the_ledger_does_not_match_exits_1_or_2_saying_why(
    db: str, tmp_path: Path
) -> None:
    other = f"sqlite:///{tmp_path / 'other.db'}"
    with open_ledger(other, clock=RealtimeClock()) as ledger:
        ledger.file_and_reserve(Filing("agent", {}), notional=Decimal(1), caps=CAPS)
    foreign, _ = _heads(other)
    refused = audit("verify", "--db", db, "--since", foreign)
    assert refused.exit_code == 1
    assert "differ from the --since checkpoint" in refused.output
    malformed = audit("verify", "--db", db, "--since", "4:nothex")
    assert malformed.exit_code == 2 and "--since" in malformed.output
    filings_head, _ = _heads(db)
    older = audit("verify", "--db", db, "--since", filings_head, "--checkpoint", foreign)
    assert older.exit_code == 2 and "older than --since" in older.output


@pytest.mark.req("ledger.verify-since")
def test_verify_reports_its_progress_on_stderr(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from ordergate.ledger import _walk

    monkeypatch.setattr(_walk, "PROGRESS_EVERY", 2)
    result = audit("verify", "--db", db)
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "audit verify: filings: 2 checked",
        "audit verify: filings: 4 checked",
        "audit verify: open filings: 4 checked",
    ]
    assert result.stdout.strip() == "intact: 4 records"


@pytest.mark.req("ledger.reservations-and-controls-verified")
def test_a_zeroed_reservation_fails_verify_with_exit_1_naming_the_reservation(db: str) -> None:
    with open_ledger(db, clock=RealtimeClock()) as ledger, ledger.engine.begin() as connection:
        # The same OS user frees the daily cap by hand.
        connection.execute(text("UPDATE reservations SET amount_units = 0, ops = 0"))
    result = audit("verify", "--db", db)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("tampered: reservations 1 ")


@pytest.mark.req("ledger.reservations-and-controls-verified")
def test_a_deleted_reservation_fails_verify_naming_it(db: str) -> None:
    with open_ledger(db, clock=RealtimeClock()) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("DELETE FROM reservations"))
    result = audit("verify", "--db", db)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("tampered: reservations 1 ") and "missing" in result.output


@pytest.mark.req("ledger.reservations-and-controls-verified")
def test_a_rewritten_applied_policy_fails_verify_with_exit_1_naming_the_control(db: str) -> None:
    with open_ledger(db, clock=RealtimeClock()) as ledger:
        ledger.controls.apply_policy('approval = "always"', credential="none", loosened=(),
                                     changed=())  # fmt: skip
        assert audit("verify", "--db", db).exit_code == 0
        with ledger.engine.begin() as connection:
            # Any policy put in force by hand: approval never, caps x100, every symbol.
            connection.execute(
                text("UPDATE controls SET value = :value WHERE key = 'applied_policy'"),
                {"value": '{"applied_at":"2026-12-01T15:00:00.000000Z","credential":"totp",'
                          '"sha256":"00","text":"approval = \\"never\\""}'},
            )  # fmt: skip
    result = audit("verify", "--db", db)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("tampered: controls ")
    assert "controls.applied_policy" in result.output
