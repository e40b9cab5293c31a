"""Opening a ledger: URLs, the default location, migrations and a database newer than the code."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from alembic import command
from sqlalchemy import inspect, text

from ordergate.core import SteppedClock
from ordergate.ledger import (
    GENESIS,
    ChainHead,
    CheckpointError,
    Filing,
    LedgerError,
    LedgerSchemaError,
    RollingCaps,
    open_ledger,
)
from ordergate.ledger._canonical import chain_hash, filing_body, heads_digest
from ordergate.store import StoreError, engine_for, migrate, normalise_url
from ordergate.store._migrate import OWNERS, alembic_config

TABLES = {
    "alembic_version_execution", "alembic_version_gateway", "alembic_version_ledger",
    "alembic_version_owner", "alembic_version_record", "alembic_version_sandbox", "agent_keys",
    "approvals",
    "caller_mints", "caller_names", "chain_heads", "connection_limits", "connections",
    "controls", "decision_snapshots", "decisions", "equity_marks", "executions",
    "filing_events", "filings", "late_orders", "control_events",
    "gateway_clients",
    "console_passkeys", "console_sessions", "gateway_codes", "grades", "grading_cursor",
    "gateway_pending", "gateway_tokens", "locks", "open_filings", "orders", "owner_delayed",
    "owner_guard", "owner_prepared_acts", "owner_settings", "owner_sources",
    "paper_fills", "paper_orders", "paper_positions", "push_keys", "push_subscriptions",
    "reservations",
    "venue_books", "venue_closed_trades", "venue_ended_crypto_orders",
    "venue_ended_option_orders", "venue_ended_orders",
}  # fmt: skip

pytestmark = pytest.mark.req("ledger.postgres-parity")


def test_a_fresh_database_gets_every_table_at_the_head_revision(
    ledger_url: str, clock: SteppedClock
) -> None:
    with open_ledger(ledger_url, clock=clock) as ledger:
        assert set(inspect(ledger.engine).get_table_names()) == TABLES
        with ledger.engine.connect() as connection:
            assert connection.execute(
                text("SELECT version_num FROM alembic_version_ledger")
            ).all() == [("0031",)]
            assert connection.execute(
                text("SELECT version_num FROM alembic_version_owner")
            ).all() == [("0019",)]
            assert connection.execute(
                text("SELECT version_num FROM alembic_version_record")
            ).all() == [("0009",)]
            assert connection.execute(
                text("SELECT version_num FROM alembic_version_gateway")
            ).all() == [("0037",)]


def test_reopening_is_idempotent_and_keeps_the_record(ledger_url: str, clock: SteppedClock) -> None:
    with open_ledger(ledger_url, clock=clock) as ledger:
        ledger.controls.set_high_water_mark(Decimal("1000"), account="acct")
    with open_ledger(ledger_url, clock=clock) as again:
        assert str(again.controls.high_water_mark("acct")) == "1000"
    with open_ledger(ledger_url, clock=clock):
        pass


def test_a_database_from_a_newer_ordergate_is_refused(ledger_url: str, clock: SteppedClock) -> None:
    with open_ledger(ledger_url, clock=clock) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version_ledger SET version_num = '9999'"))
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
        with pytest.raises(StoreError):
            normalise_url(bad)


def test_a_schema_error_closes_the_engine_it_opened(tmp_path: Path, clock: SteppedClock) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    with open_ledger(url, clock=clock) as ledger, ledger.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version_ledger SET version_num = 'zzzz'"))
    for _ in range(3):
        with pytest.raises(LedgerSchemaError):
            open_ledger(url, clock=clock)


def _legacy_ledger(url: str, accounts: list[str]) -> list[tuple[int, str, str]]:
    """A ledger at revision 0002 holding one ledger-wide chain (``ordergate.filing/1``) of
    filings for ``accounts``, in order; their (seq, account, hash)."""
    engine = engine_for(normalise_url(url))
    try:
        migrate(engine, "0002")
        prev, written = GENESIS, []
        with engine.begin() as connection:
            for seq, account in enumerate(accounts, start=1):
                row: dict[str, Any] = {
                    "seq": seq, "id": str(uuid4()), "identity": "agent", "account": account,
                    "created_at": "2026-11-30T15:00:00.000000Z", "kind": "equity_order",
                    "status": "accepted", "decision": "accept", "reasons": "[]",
                    "terms": f'{{"n":{seq}}}', "notional": "1", "prev_hash": prev,
                }  # fmt: skip
                prev = row["hash"] = chain_hash(prev, filing_body(*list(row.values())[:11]))
                connection.execute(
                    text(
                        "INSERT INTO filings VALUES (:seq, :id, :identity, :account, "
                        ":created_at, :kind, :status, :decision, :reasons, :terms, :notional, "
                        ":prev_hash, :hash)"
                    ),
                    row,
                )
                written.append((seq, account, prev))
    finally:
        engine.dispose()
    return written


@pytest.mark.req("ledger.tamper-evident")
def test_a_ledger_wide_chain_from_before_0003_still_verifies_and_accounts_go_on_from_it(
    ledger_url: str, clock: SteppedClock
) -> None:
    legacy = _legacy_ledger(ledger_url, ["a", "b", "a"])
    old_checkpoint = ChainHead(3, legacy[-1][2])  # what `audit head` printed before 0003
    with open_ledger(ledger_url, clock=clock) as ledger:
        assert ledger.verify(checkpoint=old_checkpoint).ok
        assert ledger.head() == ChainHead(3, heads_digest([("a", legacy[2][2]),
                                                           ("b", legacy[1][2])]))  # fmt: skip
        caps = RollingCaps(Decimal(100), 10)
        a = ledger.file_and_reserve(Filing("agent", {}, account="a"), notional=Decimal(1),
                                    caps=caps).record  # fmt: skip
        c = ledger.file_and_reserve(Filing("agent", {}, account="c"), notional=Decimal(1),
                                    caps=caps).record  # fmt: skip
        assert (a.seq, a.prev_hash) == (4, legacy[2][2])  # a's chain goes on from its last
        assert (c.seq, c.prev_hash) == (5, GENESIS)
        checkpoint = ledger.head()
        result = ledger.verify(checkpoint=old_checkpoint)
        assert result.ok and result.checked == 5
        assert ledger.verify(checkpoint=checkpoint).ok
        with ledger.engine.begin() as connection:
            connection.execute(text("UPDATE filings SET terms = '{}' WHERE seq = 2"))
        edited = ledger.verify()
        assert (edited.ok, edited.first_bad_seq) == (False, 2)
        assert edited.reason is not None and "edited" in edited.reason


@pytest.mark.req("ledger.verify-since")
def test_a_walk_since_a_checkpoint_goes_on_from_filings_of_the_ledger_wide_chain(
    ledger_url: str, clock: SteppedClock
) -> None:
    legacy = _legacy_ledger(ledger_url, ["a", "b", "a", "d"])  # d files nothing more
    with open_ledger(ledger_url, clock=clock) as ledger:
        since = ledger.head()  # every account's last filing is still ledger-wide
        caps = RollingCaps(Decimal(100), 10)
        for account in ("a", "b", "c", "a"):
            ledger.file_and_reserve(Filing("agent", {}, account=account), notional=Decimal(1),
                                    caps=caps)  # fmt: skip
        result = ledger.verify(since=since)
        assert (result.ok, result.checked) == (True, 4)
        with ledger.engine.begin() as connection:  # b's next filing, its place edited
            connection.execute(text("UPDATE filings SET account_seq = 3 WHERE seq = 6"))
        moved = ledger.verify(since=since)
        assert (moved.ok, moved.first_bad_seq) == (False, 6)
        # A checkpoint from before 0003 pins one filing's hash, not every account's chain.
        with pytest.raises(CheckpointError, match="before account chains"):
            ledger.verify(since=ChainHead(4, legacy[-1][2]))


def test_cutting_an_accounts_last_filing_from_before_0003_breaks_its_next_link(
    ledger_url: str, clock: SteppedClock
) -> None:
    _legacy_ledger(ledger_url, ["a", "b"])
    with open_ledger(ledger_url, clock=clock) as ledger:
        ledger.file_and_reserve(Filing("agent", {}, account="b"), notional=Decimal(1),
                                caps=RollingCaps(Decimal(100), 10))  # fmt: skip
        with ledger.engine.begin() as connection:
            connection.execute(text("DELETE FROM filings WHERE seq = 2"))
        result = ledger.verify()
        assert (result.ok, result.first_bad_seq) == (False, 3)
        assert result.reason is not None and "missing" in result.reason


def test_a_gap_or_a_late_filing_in_the_ledger_wide_chain_is_caught(
    ledger_url: str, clock: SteppedClock
) -> None:
    legacy = _legacy_ledger(ledger_url, ["a", "a", "b"])
    with open_ledger(ledger_url, clock=clock) as ledger:
        ledger.file_and_reserve(Filing("agent", {}, account="c"), notional=Decimal(1),
                                caps=RollingCaps(Decimal(100), 10))  # fmt: skip
        with ledger.engine.begin() as connection:
            # b's filing renumbered after c's, and re-hashed to match: a forged late entry.
            row = connection.execute(
                text(
                    "SELECT id, identity, account, created_at, kind, status, decision, "
                    "reasons, terms, notional FROM filings WHERE seq = 3"
                )
            ).one()
            forged = chain_hash(legacy[1][2], filing_body(9, *row))
            connection.execute(
                text("UPDATE filings SET seq = 9, hash = :hash WHERE seq = 3"), {"hash": forged}
            )
        late = ledger.verify()
        assert (late.ok, late.first_bad_seq) == (False, 9)
        assert late.reason is not None and "after account chains began" in late.reason
        with ledger.engine.begin() as connection:
            connection.execute(text("DELETE FROM filings WHERE seq = 1"))
        gap = ledger.verify()
        assert (gap.ok, gap.first_bad_seq) == (False, 1)
        assert gap.reason is not None and "missing" in gap.reason


def test_on_postgres_new_filings_are_numbered_after_the_last_one_on_file(
    pg_url: str, clock: SteppedClock
) -> None:
    _legacy_ledger(pg_url, ["a", "b", "c"])
    with open_ledger(pg_url, clock=clock) as ledger:
        filed = ledger.file_many(
            [(Filing("agent", {}, account=name), Decimal(1)) for name in ("b", "d")],
            caps=RollingCaps(Decimal(100), 10),
        )
        assert [result.record.seq for result in filed] == [4, 5]
        assert ledger.verify().ok


def test_going_back_to_0002_is_refused_once_filings_are_in_account_chains(
    tmp_path: Path, clock: SteppedClock
) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    _legacy_ledger(url, ["a"])
    open_ledger(url, clock=clock).close()
    _downgrade(url)  # nothing filed since 0003: the ledger back before it, and up again
    with open_ledger(url, clock=clock) as ledger:
        assert ledger.verify().ok
        ledger.file_and_reserve(Filing("agent", {}, account="a"), notional=Decimal(1),
                                caps=RollingCaps(Decimal(100), 10))  # fmt: skip
    with pytest.raises(RuntimeError, match="account chains"):
        _downgrade(url)


def _downgrade(url: str) -> None:
    engine = engine_for(normalise_url(url))
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(OWNERS[0], connection), "0001")
    finally:
        engine.dispose()


def test_migration_0007_keeps_the_paper_accounts_cash_and_positions_their_fills_add_up_to(
    ledger_url: str, clock: SteppedClock
) -> None:
    fills = [  # (account, symbol, side, quantity, price)
        ("p1", "AAPL", "buy", "2", "190.25"),
        ("p1", "AAPL", "sell", "0.5", "191.10"),
        ("p1", "MSFT", "buy", "0.123456", "410.01"),
        ("p1", "SPY", "buy", "1", "500"),
        ("p1", "SPY", "sell", "1", "501.5"),
        ("p2", "AAPL", "buy", "3", "189.99"),
    ]
    engine = engine_for(normalise_url(ledger_url))
    try:
        migrate(engine, "0006")
        with engine.begin() as connection:
            for index, (account, symbol, side, quantity, price) in enumerate(fills):
                order = {"order_id": f"paper-{index}", "ref_id": str(uuid4()),
                         "account": account, "symbol": symbol, "side": side,
                         "quantity": quantity, "at": "2026-11-30T15:00:00.000000Z"}  # fmt: skip
                connection.execute(
                    text(
                        "INSERT INTO paper_orders (order_id, ref_id, account, symbol, side, type, "
                        "quantity, time_in_force, market_hours, state, triggered, created_at, "
                        "updated_at) VALUES (:order_id, :ref_id, :account, :symbol, :side, "
                        "'market', :quantity, 'gfd', 'regular_hours', 'filled', false, :at, :at)"
                    ),
                    order,
                )
                connection.execute(
                    text(
                        "INSERT INTO paper_fills VALUES (:id, :order_id, :account, :symbol, "
                        ":side, :quantity, :price, :at)"
                    ),
                    {**order, "id": f"paper-{index}-1", "price": price},
                )
    finally:
        engine.dispose()
    with open_ledger(ledger_url, clock=clock) as ledger, ledger.engine.connect() as connection:
        rows = connection.execute(
            text("SELECT account, symbol, quantity, cost FROM paper_positions")
        ).all()
    held = {(a, s): Decimal(q) for a, s, q, _ in rows if Decimal(q) != 0}
    cost = {a: sum((Decimal(c) for b, _, _, c in rows if b == a), Decimal(0)) for a, *_ in rows}
    spent = Decimal(2) * Decimal("190.25") - Decimal("0.5") * Decimal("191.10")
    spent += Decimal("0.123456") * Decimal("410.01") + Decimal(500) - Decimal("501.5")
    assert cost["p1"] == spent
    assert held == {
        ("p1", "AAPL"): Decimal("1.5"),
        ("p1", "MSFT"): Decimal("0.123456"),
        ("p2", "AAPL"): Decimal(3),
    }
    assert cost["p2"] == 3 * Decimal("189.99")
