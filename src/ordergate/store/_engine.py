"""Opening ordergate's database: URL rules, SQLite pragmas, write transactions and locks.

SQLite (the default, ``$ORDERGATE_HOME/ledger.db``): WAL journal, ``synchronous=FULL`` (a
committed filing survives power loss), foreign keys on, a busy timeout so writers queue
rather than fail, each connection's page cache held to 256 KiB (``PAGE_CACHE_KIB``). The
driver's own transaction handling is switched off so that every write transaction starts
with ``BEGIN IMMEDIATE``: it takes the database's write lock first, so a read-then-append
(the cap check) cannot interleave with another process's.

A write transaction may commit at ``synchronous=NORMAL`` (``durable=False``) when it records
what happened after an order was placed (the venue's answer, its fills). In WAL
mode such a commit is written to the log but not flushed: it survives the process dying,
and may be lost with the machine's power until the next flushed commit or checkpoint. The
log is replayed only as far as its checksums chain, so what power loss takes is always the
latest commits, never one before a commit that stays: a filing (always ``FULL``, committed
before anything is sent) is never lost while what followed it is kept. What may be lost is
what the reconciler rebuilds from the broker (it looks a filing's order up by ``ref_id``).
A paper book kept in the ledger's database (``ordergate.sandbox.engine.EquityEngine``,
``durable=False``) commits its turns the same way, for the same reason: each follows a
flushed filing, and what power loss takes of it goes with what the ledger recorded after.

Postgres (``postgresql://`` or ``postgresql+psycopg://``): a write transaction takes its locks
first, in one order (the filings gate, then accounts by key, then the events chain), so two
writers never wait on each other in a cycle:

- the filings gate, a transaction-scoped advisory lock: every filer holds it *shared*
  (``lock_accounts``), so filers never wait for one another on it; ``pause``, ``resume`` and
  ``Ledger.head`` take it *exclusively* (lock name ``"filings"``), which waits until no filing
  is in flight and holds new ones back until they commit;
- one advisory lock per account (a 32-bit hash of its name: two accounts that share a key
  merely take turns): whoever reads an account's rolling window and chain head holds it, so
  the cap check is atomic per account and writers on different accounts commit in parallel,
  their flushes batched by Postgres's own group commit;
- any other lock name is a row of the ``locks`` table (``SELECT … FOR UPDATE``): ``"events"``,
  the events chain.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, make_url, text
from sqlalchemy.engine import URL

from ordergate.core import create_private
from ordergate.store._errors import StoreError
from ordergate.store._joining import joined_write, registered, savepoint

__all__ = [
    "ACCOUNT_LOCKS",
    "BUSY_TIMEOUT_MS",
    "FILINGS_GATE",
    "MIGRATION_KEY",
    "WRITE_OPTION",
    "account_lock_params",
    "default_url",
    "engine_for",
    "lock_accounts",
    "normalise_url",
    "purge_freed",
    "take_locks",
    "write_transaction",
]

BUSY_TIMEOUT_MS = 60_000
FILINGS_GATE = "filings"
# The execution option that makes a SQLite transaction start with ``BEGIN IMMEDIATE``.
WRITE_OPTION = "ordergate_write"
# The execution option that makes a SQLite write commit at ``synchronous=NORMAL``.
_UNFLUSHED_OPTION = "ordergate_unflushed"
# The advisory lock two processes migrating one fresh Postgres database take in turn.
MIGRATION_KEY = 7707707707
_GATE_KEY = 7707707708
_ACCOUNT_CLASS = 7707
# The gate shared, then each account's lock in the order of the (sorted) keys: one round trip.
ACCOUNT_LOCKS = text(
    "SELECT pg_advisory_xact_lock_shared(:gate), "
    "(SELECT count(pg_advisory_xact_lock(:account_class, k)) "
    "FROM unnest(CAST(:keys AS INTEGER[])) AS k)"
)


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
        raise StoreError(f"unsupported ledger database {parsed.get_backend_name()!r}")
    if parsed.get_backend_name() == "postgresql" and parsed.drivername != "postgresql+psycopg":
        raise StoreError("a Postgres ledger uses psycopg 3 (postgresql+psycopg://)")
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        # Each pooled connection would get its own empty database: nothing would be durable.
        raise StoreError("a SQLite ledger needs a file path")
    return parsed


def engine_for(url: URL, *, create: bool = True) -> Engine:
    """An engine with the ledger's connection rules installed."""
    if url.get_backend_name() == "postgresql":
        return create_engine(url, pool_pre_ping=True)
    path = Path(str(url.database)).expanduser()
    try:
        exists = path.exists()
        if not exists and create:
            # SQLite would create it with the process umask (0644): created 0600 here, its
            # -wal and -shm files take the same mode (SQLite copies the main file's).
            with contextlib.suppress(FileExistsError):
                create_private(path)
    except OSError as error:
        # Another OS user's ledger (its folder 0700), say: say so, never a traceback.
        raise StoreError(f"cannot open the ledger at {path} ({error.strerror})") from None
    if not exists and not create:
        raise StoreError(f"no ledger at {path}")
    engine = create_engine(url.set(database=str(path)))
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


# Each pooled connection keeps its own page cache, SQLite's default 2 MiB of it, filled with
# whatever pages it last touched: as the ledger grows past it, every connection fills its
# cache with pages of ended orders, and the gateway's RSS grew ~2.5 MB per 1,000 paper orders
# (issue 31: five connections taking ~10 MB before they plateau). At 256 KiB the growth
# between the 1,000th and the 8,000th order was 0.17 MB per 1,000 (``ordergate bench
# memory``), and a paper order on 20,000 orders of history took the same p50 as at 2 MiB
# (23.0 against 23.1 ms, the two ledgers in turn): the order path reads what is open, a few
# index pages, and the OS's own cache holds the file.
PAGE_CACHE_KIB = 256


def _sqlite_connect(dbapi_connection: Any, _record: object) -> None:
    # The driver would otherwise open transactions lazily (and only before DML).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = FULL")
    cursor.execute("PRAGMA foreign_keys = ON")
    # What a write frees (an erased connection's sealed session and data key) is zeroed in the
    # file, not left in a free page or cell for a copy of the file to carry (``purge_freed``).
    cursor.execute("PRAGMA secure_delete = ON")
    cursor.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
    cursor.close()


def purge_freed(engine: Engine) -> None:
    """After an erase: on SQLite, copy the write-ahead log into the database file and truncate
    it, so a copy of the files taken from now on holds no old version of an erased row (the
    file's freed space is zeroed: ``secure_delete``). On Postgres the old row versions stay
    until the table is vacuumed."""
    if engine.dialect.name != "sqlite":
        return
    with engine.connect() as db:
        db.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def _sqlite_begin(connection: Connection) -> None:
    options = connection.get_execution_options()
    immediate = options.get(WRITE_OPTION, False)
    # On the driver itself: SQLAlchemy's execution layer would double the cost of a BEGIN.
    driver = connection.connection.driver_connection
    assert driver is not None
    if options.get(_UNFLUSHED_OPTION, False):
        driver.execute("PRAGMA synchronous = NORMAL")  # back to FULL when it ends
    driver.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")


@contextmanager
def write_transaction(
    engine: Engine, *lock_names: str, durable: bool = True
) -> Iterator[Connection]:
    """A transaction that holds the write lock for ``lock_names`` (in the order given) from
    its first statement to its commit; rolled back on any exception. On SQLite the one write
    lock covers everything; on Postgres see the module's notes (``"filings"`` is the filings
    gate, exclusively).

    ``durable=False`` is only for a record of what followed a placement (see the module's
    notes): on SQLite it commits at ``synchronous=NORMAL``; Postgres commits as always.

    Opened while another write transaction on ``engine`` is open in this thread, it joins
    that one in a savepoint of its own and commits with it, as it commits (see
    ``_joining``)."""
    outer = joined_write(engine)
    if outer is not None:
        with savepoint(outer):
            take_locks(outer, *lock_names)
            yield outer
        return
    unflushed = not durable and engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        connection.execution_options(**{WRITE_OPTION: True, _UNFLUSHED_OPTION: unflushed})
        try:
            with connection.begin():
                take_locks(connection, *lock_names)
                with registered(engine, connection):
                    yield connection
        finally:
            if unflushed:
                driver = connection.connection.driver_connection
                assert driver is not None
                driver.execute("PRAGMA synchronous = FULL")


def take_locks(connection: Connection, *lock_names: str) -> None:
    """Take ``lock_names`` inside ``connection``'s write transaction (Postgres; SQLite's
    ``BEGIN IMMEDIATE`` already holds its one lock)."""
    if connection.dialect.name != "postgresql":
        return
    for name in lock_names:
        if name == FILINGS_GATE:
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _GATE_KEY})
        else:
            connection.execute(
                text("SELECT name FROM locks WHERE name = :name FOR UPDATE"), {"name": name}
            )


def account_lock_params(accounts: Iterable[str]) -> dict[str, Any]:
    """The parameters of ``ACCOUNT_LOCKS`` for ``accounts``: their keys sorted, once each."""
    keys = sorted(
        {
            int.from_bytes(
                hashlib.blake2b(account.encode(), digest_size=4).digest(), "big", signed=True
            )
            for account in accounts
        }
    )
    return {"gate": _GATE_KEY, "account_class": _ACCOUNT_CLASS, "keys": keys}


def lock_accounts(connection: Connection, accounts: Iterable[str]) -> None:
    """Hold the filings gate shared and the locks of ``accounts`` (Postgres): take them before
    reading anything the cap check or an account's chain depends on, in a statement of its
    own (a statement that waited for a lock still reads what it saw before waiting)."""
    if connection.dialect.name == "postgresql":
        connection.execute(ACCOUNT_LOCKS, account_lock_params(accounts))
