"""``ReplicaLocks``: locks that hold across every gateway process on one Postgres ledger.

Several replicas on one ledger must take the same turns one process takes with an
``anyio.Lock``. Two are needed:

- ``account(name)``: one order at a time per account, from the open-filings count through
  the place call. The daily cap is already atomic in the filing transaction; this makes the
  caps read before it (the gateway's open proposals per identity, the policy's open orders)
  atomic across replicas too. It is a session advisory lock (``pg_advisory_lock``, class
  ``ORDER_CLASS`` and a 32-bit hash of the account) held on a connection of its own, so a
  process that dies holding it (SIGKILL) releases it when Postgres sees the connection
  close. Within a process, an ``anyio.Lock`` per account comes first: one waiting
  connection per account per process, never a pool drained by waiters. A wait past
  ``LOCK_TIMEOUT_MS`` raises (the order is refused, nothing filed): never unbounded.
- ``pass_turn()``: whether this process reconciles now (``pg_try_advisory_lock``, held for
  the pass): one replica follows the open orders at a time, the others skip that pass.

On SQLite (one host, one process serving) both are the in-process locks alone. The lock
connections come from an engine of their own on the ledger's URL, unpooled (each is closed
with its lock), so a held lock never takes a connection the order path needs.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.pool import NullPool

from ordergate.store import blocking

__all__ = ["LOCK_TIMEOUT_MS", "ORDER_CLASS", "RECONCILE_KEY", "ReplicaLocks"]

ORDER_CLASS = 7708
RECONCILE_KEY = 7707707709
LOCK_TIMEOUT_MS = 30_000


def _key(name: str) -> int:
    digest = hashlib.blake2b(name.encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big", signed=True)


class ReplicaLocks:
    """Locks shared by every process on ``engine``'s database (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self._shared = engine.dialect.name == "postgresql"
        self._engine: Engine | None = None
        self._url = engine.url
        self._local: dict[str, anyio.Lock] = {}
        self._pass = anyio.Lock()

    @property
    def shared(self) -> bool:
        """Whether the locks hold across processes (a Postgres ledger)."""
        return self._shared

    def _lock_engine(self) -> Engine:
        if self._engine is None:
            self._engine = create_engine(self._url, poolclass=NullPool)
        return self._engine

    @asynccontextmanager
    async def account(self, name: str) -> AsyncIterator[None]:
        """Hold the account's order lock for the block (every replica's turn, in order)."""
        async with self._local.setdefault(name, anyio.Lock()):
            if not self._shared:
                yield
                return
            held = await blocking(self._take, name)
            try:
                yield
            finally:
                await blocking(self._give, held, name)

    def _take(self, name: str) -> Connection:
        connection = self._lock_engine().connect()
        try:
            connection.execute(text(f"SET lock_timeout = {LOCK_TIMEOUT_MS}"))
            connection.execute(
                text("SELECT pg_advisory_lock(:class, :key)"),
                {"class": ORDER_CLASS, "key": _key(name)},
            )
            connection.commit()
        except BaseException:
            connection.close()
            raise
        return connection

    def _give(self, connection: Connection, name: str) -> None:
        try:
            connection.execute(
                text("SELECT pg_advisory_unlock(:class, :key)"),
                {"class": ORDER_CLASS, "key": _key(name)},
            )
            connection.commit()
        finally:
            connection.close()

    @asynccontextmanager
    async def pass_turn(self) -> AsyncIterator[bool]:
        """Whether this process has the reconciler's turn, held for the block."""
        if self._pass.locked():
            yield False
            return
        async with self._pass:
            if not self._shared:
                yield True
                return
            connection, got = await blocking(self._try_pass)
            try:
                yield got
            finally:
                await blocking(self._end_pass, connection, got)

    def _try_pass(self) -> tuple[Connection, bool]:
        connection = self._lock_engine().connect()
        try:
            got = bool(
                connection.execute(
                    text("SELECT pg_try_advisory_lock(:key)"), {"key": RECONCILE_KEY}
                ).scalar()
            )
            connection.commit()
        except BaseException:
            connection.close()
            raise
        return connection, got

    def _end_pass(self, connection: Connection, got: bool) -> None:
        try:
            if got:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": RECONCILE_KEY})
                connection.commit()
        finally:
            connection.close()

    def dispose(self) -> None:
        """Close the lock connections (each lock is released with its connection)."""
        if self._engine is not None:
            self._engine.dispose()
