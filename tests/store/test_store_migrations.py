"""Each package owns its tables and their migrations, in its own version table; a database
kept by the single chain main used until now moves to that layout without losing a row."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Boolean, Engine, MetaData, inspect, text

from ordergate.core import SteppedClock
from ordergate.ledger import LedgerSchemaError, open_ledger
from ordergate.store import StoreSchemaError, engine_for, migrate, normalise_url
from ordergate.store._migrate import LEGACY_REVISIONS, OWNERS

MAIN_0008 = Path(__file__).parent / "data" / "ledger_at_main_0008.sql"
HEADS = {
    "ledger": "0031",
    "execution": "0007",
    "gateway": "0037",
    "owner": "0019",
    "record": "0009",
    "sandbox": "0034",
}
OWNED = {
    "ledger": {"agent_keys", "approvals", "chain_heads", "control_events", "controls",
               "decision_snapshots", "decisions", "equity_marks", "executions", "filing_events",
               "filings", "late_orders", "locks", "open_filings", "orders", "reservations"},
    "execution": {"paper_fills", "paper_orders", "paper_positions"},
    "gateway": {"caller_mints", "caller_names", "connection_limits", "connections",
                "console_passkeys",
                "console_sessions", "gateway_clients", "gateway_codes", "gateway_pending",
                "gateway_tokens", "push_keys", "push_subscriptions"},
    "owner": {"owner_delayed", "owner_guard", "owner_prepared_acts", "owner_settings",
              "owner_sources"},
    "record": {"grades", "grading_cursor"},
    "sandbox": {"venue_books", "venue_closed_trades", "venue_ended_crypto_orders",
                "venue_ended_option_orders", "venue_ended_orders"},
}  # fmt: skip

pytestmark = pytest.mark.req("store.owned-migrations")


def _main_rows() -> dict[str, list[dict[str, Any]]]:
    """Every row of the ledger main wrote (``data/ledger_at_main_0008.sql``), by table."""
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.executescript(MAIN_0008.read_text())
    names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    rows = {name: [dict(row) for row in db.execute(f"SELECT * FROM {name}")] for name in names}
    db.close()
    return rows


ADDED_SINCE_0008 = {"owner_guard": {"last_digest"}}
"""Columns later migrations added to tables main had at 0008 (left out when rows are compared)."""


def _rows(engine: Engine, tables: set[str]) -> dict[str, list[dict[str, Any]]]:
    with engine.connect() as connection:
        return {
            name: [
                {k: v for k, v in row._mapping.items() if k not in ADDED_SINCE_0008.get(name, ())}
                for row in connection.execute(text(f"SELECT * FROM {name}"))
            ]
            for name in tables
        }


def _versions(engine: Engine) -> dict[str, list[str]]:
    with engine.connect() as connection:
        return {
            owner.name: list(
                connection.execute(text(f"SELECT version_num FROM {owner.version_table}")).scalars()
            )
            for owner in OWNERS
            if inspect(connection).has_table(owner.version_table)
        }


def _as_single_chain(engine: Engine, revision: str) -> None:
    """The database as main's single chain left it at ``revision``: the same tables (the
    revisions are main's, moved), their place in ``alembic_version``."""
    migrate(engine, revision)
    with engine.begin() as connection:
        for owner in OWNERS:
            connection.execute(text(f"DROP TABLE IF EXISTS {owner.version_table}"))
        connection.execute(
            text("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        )
        connection.execute(text("INSERT INTO alembic_version VALUES (:r)"), {"r": revision})


def test_a_fresh_database_gets_each_packages_tables_and_version_table_at_its_head(
    store_url: str, clock: SteppedClock
) -> None:
    with open_ledger(store_url, clock=clock) as ledger:
        names = set(inspect(ledger.engine).get_table_names())
        assert names == set().union(*OWNED.values()) | {o.version_table for o in OWNERS}
        assert _versions(ledger.engine) == {name: [head] for name, head in HEADS.items()}


def test_the_ledger_main_wrote_opens_in_the_per_package_layout_with_every_row(
    tmp_path: Path, clock: SteppedClock
) -> None:
    path = tmp_path / "ledger.db"
    with sqlite3.connect(path) as db:
        db.executescript(MAIN_0008.read_text())
    before = _main_rows()
    assert before["alembic_version"] == [{"version_num": "0008"}]
    with open_ledger(f"sqlite:///{path}", clock=clock) as ledger:
        tables = set(before) - {"alembic_version"}
        assert all(before[name] for name in tables)  # a row in every table
        assert _without_added(_rows(ledger.engine, tables)) == {
            name: before[name] for name in tables
        }
        assert "alembic_version" not in inspect(ledger.engine).get_table_names()
        assert _versions(ledger.engine) == {name: [head] for name, head in HEADS.items()}
    with open_ledger(f"sqlite:///{path}", clock=clock) as again:  # and it stays there
        assert _without_added(_rows(again.engine, tables)) == {
            name: before[name] for name in tables
        }


# Columns later revisions added, with the value they take on a row from before them.
_ADDED: dict[str, dict[str, object]] = {
    "approvals": {"notional": None},
    "connections": {
        "data_key_wrapped": None,
        "kek_id": None,
        "person_totp_sealed": None,
        "person_totp_step": None,
        "person_passkey_sealed": None,
        "person_passkey_sha256": None,
        "person_passkey_count": None,
        "approval_mode": True,  # 0038: every connection starts in approval mode
    },
}


def _without_added(rows: dict[str, list[dict[str, object]]]) -> dict[str, list[dict[str, object]]]:
    """``rows`` without the columns added since 0008, each checked to hold its value for a
    row from before it."""
    trimmed = {}
    for name, table in rows.items():
        added = _ADDED.get(name, {})
        for row in table:
            assert {column: row[column] for column in added} == added
        trimmed[name] = [
            {k: v for k, v in row.items() if k not in added}
            for row in table
            if row not in _ADDED_ROWS.get(name, [])
        ]
    return trimmed


# Rows later revisions added: the controls chain's lock (0021).
_ADDED_ROWS = {"locks": [{"name": "controls"}]}


def test_main_rows_survive_the_move_on_postgres_and_sqlite_alike(
    store_url: str, clock: SteppedClock
) -> None:
    before = _main_rows()
    engine = engine_for(normalise_url(store_url))
    try:
        _as_single_chain(engine, "0008")
        meta = MetaData()
        meta.reflect(engine)
        tables = set(before) - {"alembic_version"}
        with engine.begin() as connection:
            ordered = [table for table in meta.sorted_tables if table.name in tables]
            for table in reversed(ordered):  # the rows the migrations seed, main's instead
                connection.execute(table.delete())
            for table in ordered:
                for row in before[table.name]:
                    connection.execute(
                        table.insert(),
                        {
                            key: bool(value) if isinstance(table.c[key].type, Boolean) else value
                            for key, value in row.items()
                        },
                    )
        written = _rows(engine, tables)
    finally:
        engine.dispose()
    with open_ledger(store_url, clock=clock) as ledger:
        assert _without_added(_rows(ledger.engine, tables)) == written
        assert _versions(ledger.engine) == {name: [head] for name, head in HEADS.items()}


@pytest.mark.parametrize("revision", LEGACY_REVISIONS)
def test_a_single_chain_database_at_any_revision_goes_on_from_there_per_package(
    revision: str, tmp_path: Path, clock: SteppedClock
) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    engine = engine_for(normalise_url(url))
    try:
        _as_single_chain(engine, revision)
        with engine.connect() as connection:
            present = set(inspect(connection).get_table_names()) - {"alembic_version"}
        migrate(engine)
        assert _versions(engine) == {name: [head] for name, head in HEADS.items()}
        assert present <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_a_package_revision_newer_than_the_code_is_refused_naming_the_package(
    store_url: str, clock: SteppedClock
) -> None:
    with open_ledger(store_url, clock=clock) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version_gateway SET version_num = '9999'"))
    with pytest.raises(LedgerSchemaError, match="gateway schema revision '9999' is newer"):
        open_ledger(store_url, clock=clock)


def test_a_single_chain_revision_newer_than_main_left_it_is_refused(tmp_path: Path) -> None:
    engine = engine_for(normalise_url(f"sqlite:///{tmp_path / 'ledger.db'}"))
    try:
        _as_single_chain(engine, "0008")
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '0009'"))
        with pytest.raises(StoreSchemaError, match="'0009' is newer"):
            migrate(engine)
        assert "alembic_version" in inspect(engine).get_table_names()  # nothing changed
    finally:
        engine.dispose()


def test_each_packages_migrations_live_in_that_package_numbered_across_the_database() -> None:
    for owner in OWNERS:
        assert owner.versions.parent.parent.name == owner.name
    found = [path.name[:4] for owner in OWNERS for path in owner.versions.glob("[0-9]*.py")]
    assert len(found) == len(set(found))  # one number, one revision, whichever package
    assert set(LEGACY_REVISIONS) <= set(found)


def test_the_equity_marks_arrive_at_0011_from_the_previous_head_keeping_every_row(
    store_url: str, clock: SteppedClock
) -> None:
    engine = engine_for(normalise_url(store_url))
    try:
        migrate(engine, "0010")
        assert _versions(engine)["ledger"] == ["0006"]
        assert "equity_marks" not in inspect(engine).get_table_names()
        with engine.begin() as connection:
            connection.execute(
                text("INSERT INTO controls VALUES ('high_water_mark', '\"1250.5\"', :at)"),
                {"at": "2026-11-30T15:00:00.000000Z"},
            )
        before = _rows(
            engine,
            OWNED["ledger"]
            - {"equity_marks", "decision_snapshots", "late_orders", "control_events", "agent_keys"},
        )
        migrate(engine)
        assert _versions(engine) == {name: [head] for name, head in HEADS.items()}
        after = _rows(
            engine,
            OWNED["ledger"]
            - {"equity_marks", "decision_snapshots", "late_orders", "control_events", "agent_keys"},
        )
        assert _without_added(after) == _without_added(before)
        indexes = inspect(engine).get_indexes("equity_marks")
        assert [(ix["name"], ix["column_names"]) for ix in indexes] == [
            ("ix_equity_marks_account", ["account", "at"])
        ]
    finally:
        engine.dispose()
    with open_ledger(store_url, clock=clock) as ledger:
        # The ledger-wide mark kept from before marks were per account reads as an account's.
        assert ledger.controls.high_water_mark("acct") == Decimal("1250.5")
        assert ledger.equity.record("acct", Decimal("1200"), source="broker")
        assert [m.equity for m in ledger.equity.window("acct")] == [Decimal("1200")]
