"""Opening a ledger: URLs, the default location, migrations and a database newer than the code."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from ordergate.core import SteppedClock
from ordergate.ledger import LedgerError, LedgerSchemaError, open_ledger
from ordergate.ledger._engine import normalise_url

TABLES = {
    "alembic_version", "approvals", "controls", "decisions", "executions", "filing_events",
    "filings", "locks", "orders", "reservations",
}  # fmt: skip

pytestmark = pytest.mark.req("ledger.postgres-parity")


def test_a_fresh_database_gets_every_table_at_the_head_revision(
    ledger_url: str, clock: SteppedClock
) -> None:
    with open_ledger(ledger_url, clock=clock) as ledger:
        assert set(inspect(ledger.engine).get_table_names()) == TABLES
        with ledger.engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
                ("0001",)
            ]


def test_reopening_is_idempotent_and_keeps_the_record(ledger_url: str, clock: SteppedClock) -> None:
    with open_ledger(ledger_url, clock=clock) as ledger:
        ledger.controls.set_high_water_mark(Decimal("1000"))
    with open_ledger(ledger_url, clock=clock) as again:
        assert str(again.controls.high_water_mark()) == "1000"
    with open_ledger(ledger_url, clock=clock):
        pass


def test_a_database_from_a_newer_ordergate_is_refused(ledger_url: str, clock: SteppedClock) -> None:
    with open_ledger(ledger_url, clock=clock) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(LedgerSchemaError, match="newer") as raised:
        open_ledger(ledger_url, clock=clock)
    assert raised.value.code == "ledger_schema"


def test_sqlite_runs_in_wal_with_full_sync_and_foreign_keys(
    tmp_path: Path, clock: SteppedClock
) -> None:
    with open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=clock) as ledger:
        assert ledger.dialect == "sqlite"
        with ledger.engine.connect() as connection:
            pragma = connection.exec_driver_sql
            assert pragma("PRAGMA journal_mode").scalar() == "wal"
            assert pragma("PRAGMA synchronous").scalar() == 2  # FULL
            assert pragma("PRAGMA foreign_keys").scalar() == 1
            assert pragma("PRAGMA busy_timeout").scalar() == 60_000


def test_the_default_ledger_lives_in_ordergate_home(
    tmp_path: Path, clock: SteppedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ORDERGATE_DB_URL", raising=False)
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path / "home"))
    with pytest.raises(LedgerError, match="no ledger"):
        open_ledger(clock=clock, create=False)
    open_ledger(clock=clock).close()
    assert (tmp_path / "home" / "ledger.db").is_file()
    monkeypatch.setenv("ORDERGATE_DB_URL", f"sqlite:///{tmp_path / 'env.db'}")
    open_ledger(clock=clock).close()
    assert (tmp_path / "env.db").is_file()
    monkeypatch.delenv("ORDERGATE_DB_URL")
    monkeypatch.delenv("ORDERGATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    open_ledger(clock=clock).close()
    assert (tmp_path / "user" / ".ordergate" / "ledger.db").is_file()


def test_urls_are_normalised_to_psycopg_and_unusable_ones_refused() -> None:
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite:///x.db").drivername == "sqlite"
    for bad in ("mysql://u@h/db", "postgresql+psycopg2://u@h/db", "sqlite://",
                "sqlite:///:memory:"):  # fmt: skip
        with pytest.raises(LedgerError):
            normalise_url(bad)


def test_a_schema_error_closes_the_engine_it_opened(tmp_path: Path, clock: SteppedClock) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    with open_ledger(url, clock=clock) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'zzzz'"))
    for _ in range(3):
        with pytest.raises(LedgerSchemaError):
            open_ledger(url, clock=clock)
