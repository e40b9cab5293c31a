"""Opening the ledger's database: URL rules, SQLite pragmas, write transactions, migrations.

SQLite (the default, ``$ORDERGATE_HOME/ledger.db``): WAL journal, ``synchronous=FULL`` (a
committed filing survives power loss), foreign keys on, a busy timeout so writers queue
rather than fail. The driver's own transaction handling is switched off so that every write
transaction starts with ``BEGIN IMMEDIATE``: it takes the database's write lock first, so a
read-then-append (the cap check) cannot interleave with another process's.

Postgres (``postgresql://`` or ``postgresql+psycopg://``): writers serialise on a row of the
``locks`` table (``SELECT … FOR UPDATE``) for the chain they append to.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, make_url, text
from sqlalchemy.engine import URL

from ordergate.ledger._errors import LedgerError, LedgerSchemaError

__all__ = [
    "BUSY_TIMEOUT_MS",
    "default_url",
    "engine_for",
    "migrate",
    "normalise_url",
    "write_transaction",
]

BUSY_TIMEOUT_MS = 60_000
_MIGRATIONS = Path(__file__).parent / "migrations"
_WRITE = "ordergate_write"


def default_url() -> str:
    """``ORDERGATE_DB_URL``, else SQLite at ``$ORDERGATE_HOME/ledger.db`` (``~/.ordergate``)."""
    configured = os.environ.get("ORDERGATE_DB_URL")
    if configured:
        return configured
    home_text = os.environ.get("ORDERGATE_HOME")
    home = Path(home_text).expanduser() if home_text else Path.home() / ".ordergate"
    return f"sqlite:///{home / 'ledger.db'}"


def normalise_url(url: str) -> URL:
    """A SQLAlchemy URL: bare ``postgresql://``/``postgres://`` get the psycopg 3 driver."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise LedgerError(f"unsupported ledger database {parsed.get_backend_name()!r}")
    if parsed.get_backend_name() == "postgresql" and parsed.drivername != "postgresql+psycopg":
        raise LedgerError("a Postgres ledger uses psycopg 3 (postgresql+psycopg://)")
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        # Each pooled connection would get its own empty database: nothing would be durable.
        raise LedgerError("a SQLite ledger needs a file path")
    return parsed


def engine_for(url: URL, *, create: bool = True) -> Engine:
    """An engine with the ledger's connection rules installed."""
    if url.get_backend_name() == "postgresql":
        return create_engine(url, pool_pre_ping=True)
    path = Path(str(url.database)).expanduser()
    if not path.exists():
        if not create:
            raise LedgerError(f"no ledger at {path}")
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    engine = create_engine(url.set(database=str(path)))
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection: Any, _record: object) -> None:
    # The driver would otherwise open transactions lazily (and only before DML).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = FULL")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    immediate = connection.get_execution_options().get(_WRITE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


@contextmanager
def write_transaction(engine: Engine, *lock_names: str) -> Iterator[Connection]:
    """A transaction that holds the write lock for ``lock_names`` (in the order given) from
    its first statement to its commit; rolled back on any exception."""
    with engine.connect() as connection:
        connection.execution_options(**{_WRITE: True})
        with connection.begin():
            if engine.dialect.name == "postgresql":
                for name in lock_names:
                    connection.execute(
                        text("SELECT name FROM locks WHERE name = :name FOR UPDATE"),
                        {"name": name},
                    )
            yield connection


def migrate(engine: Engine) -> None:
    """Bring the schema to this code's head; refuse a database from a newer ordergate."""
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    scripts = ScriptDirectory.from_config(config)
    with engine.connect() as connection:
        connection.execution_options(**{_WRITE: True})
        with connection.begin():
            if engine.dialect.name == "postgresql":
                # Two replicas opening a fresh database must not both create the tables.
                connection.execute(text("SELECT pg_advisory_xact_lock(7707707707)"))
            current = MigrationContext.configure(connection).get_current_heads()
            for revision in current:
                try:
                    scripts.get_revision(revision)
                except CommandError:
                    raise LedgerSchemaError(
                        f"the ledger's schema revision {revision!r} is newer than this "
                        "ordergate knows; upgrade ordergate before opening it"
                    ) from None
            if set(current) != set(scripts.get_heads()):
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
