"""A write recording what followed a placement may commit unflushed (SQLite
``synchronous=NORMAL``); every other commit is flushed (``FULL``), before and after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, Engine, text

from ordergate.store import engine_for, normalise_url, write_transaction

pytestmark = pytest.mark.req("store.steps-commit-together")

_FULL, _NORMAL = 2, 1


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    engine = engine_for(normalise_url(store_url))
    try:
        yield engine
    finally:
        engine.dispose()


def _sync(connection: Connection) -> object:
    if connection.dialect.name == "sqlite":
        return connection.execute(text("PRAGMA synchronous")).scalar()
    return connection.execute(text("SHOW synchronous_commit")).scalar()


def test_only_a_write_marked_not_durable_commits_unflushed(engine: Engine) -> None:
    sqlite = engine.dialect.name == "sqlite"
    with write_transaction(engine) as durable:
        assert _sync(durable) == (_FULL if sqlite else "on")
    with write_transaction(engine, durable=False) as unflushed:
        # Postgres commits as always; SQLite writes the log without flushing it.
        assert _sync(unflushed) == (_NORMAL if sqlite else "on")
        with write_transaction(engine) as joined:  # a step inside commits as its outer does
            assert _sync(joined) == (_NORMAL if sqlite else "on")
    with write_transaction(engine) as after:
        assert _sync(after) == (_FULL if sqlite else "on")
    with engine.connect() as plain:
        assert _sync(plain) == (_FULL if sqlite else "on")


def test_a_failed_unflushed_write_leaves_its_connection_flushing(engine: Engine) -> None:
    with pytest.raises(RuntimeError), write_transaction(engine, durable=False):
        raise RuntimeError("the step fails")
    with write_transaction(engine) as after:
        assert _sync(after) == (2 if engine.dialect.name == "sqlite" else "on")
