"""Each SQLite connection's page cache is held to 256 KiB: a gateway's pooled connections
would otherwise each fill SQLite's default 2 MiB with pages of ended orders as the ledger
grows (issue 31: its RSS grew with the account's history)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from sqlalchemy import text

from ordergate.store import engine_for, normalise_url


def test_every_pooled_sqlite_connection_caches_at_most_256_kib_of_pages(tmp_path: Path) -> None:
    engine = engine_for(normalise_url(f"sqlite:///{tmp_path / 'ledger.db'}"))
    try:
        with ExitStack() as stack:
            connections = [stack.enter_context(engine.connect()) for _ in range(3)]
            sizes = [c.execute(text("PRAGMA cache_size")).scalar() for c in connections]
        assert sizes == [-256, -256, -256]  # negative: KiB, not pages
    finally:
        engine.dispose()
