"""``ordergate audit verify`` and ``ordergate audit head`` on a real ledger file."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner, Result

from ordergate.cli import app
from ordergate.core import RealtimeClock
from ordergate.ledger import Filing, RollingCaps, open_ledger

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
