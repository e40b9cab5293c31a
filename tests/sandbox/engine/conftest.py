from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_testkit import database
from sqlalchemy import Engine

from ordergate.store import engine_for, migrate, normalise_url


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A migrated database for the engine's book, on SQLite and on Postgres."""
    with database(request.param, tmp_path) as url:
        engine = engine_for(normalise_url(url))
        migrate(engine)
        try:
            yield engine
        finally:
            engine.dispose()
