"""What a write frees is gone from the SQLite files: ``secure_delete`` zeroes it in the file and
``purge_freed`` empties the write-ahead log, so a copy taken afterwards does not carry it."""

from __future__ import annotations

from pathlib import Path

from pg_testkit import database
from sqlalchemy import make_url, text

from ordergate.store import engine_for, purge_freed

SECRET = "erased-row-" + "x" * 200


def _files(path: Path) -> bytes:
    return b"".join(
        Path(f"{path}{suffix}").read_bytes()
        for suffix in ("", "-wal")
        if Path(f"{path}{suffix}").exists()
    )


def test_a_deleted_row_is_in_no_file_of_the_ledger_once_purged(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    engine = engine_for(make_url(f"sqlite:///{path}"))
    try:
        with engine.begin() as db:
            assert db.execute(text("PRAGMA secure_delete")).scalar_one() == 1
            db.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))
            db.execute(text("INSERT INTO t (v) VALUES (:v), ('kept')"), {"v": SECRET})
        with engine.connect() as db:
            db.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        assert SECRET.encode() in _files(path)
        with engine.begin() as db:
            db.execute(text("DELETE FROM t WHERE v = :v"), {"v": SECRET})
        assert SECRET.encode() in _files(path)  # the log still holds the page from before
        purge_freed(engine)
        assert SECRET.encode() not in _files(path)
        assert b"kept" in _files(path)
    finally:
        engine.dispose()


def test_purging_a_postgres_engine_leaves_it_as_it_is(tmp_path: Path) -> None:
    with database("postgres", tmp_path) as url:
        engine = engine_for(make_url(url))
        try:
            purge_freed(engine)  # its old row versions go at VACUUM: nothing to do here
            with engine.connect() as db:
                assert db.execute(text("SELECT 1")).scalar_one() == 1
        finally:
            engine.dispose()
