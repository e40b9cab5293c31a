"""``AccountTurns``: one order at a time per account, across every process on one ledger.

The daily caps are atomic in the filing's own transaction (``file_and_reserve``). The caps
read before it — the policy's open orders, positions and position size, the duplicate and
order-rate reads of the account's recent filings, a caller's own count (the gateway's open
proposals per identity) — are atomic only if no other order on the account runs between
the read and the place call. The account's turn makes them so, whoever calls the guard (the
gateway, ``ordergate order``, the agent runtime, a library user) and however many processes
share the ledger:

- in process, an ``anyio.Lock`` per account, taken first: one waiter per account per
  process reaches the shared lock below, never a pool drained by waiters;
- on a SQLite file (one host), an exclusive ``flock`` on ``<database>.turn`` beside it, one
  open file of its own per turn (so two turns of one process exclude each other too), polled
  without blocking (a turn is milliseconds; the poll backs off to ``_POLL_MAX_S``). Every
  account on the file shares it across processes, as every writer shares SQLite's one write
  lock. The kernel releases it when its holder dies;
- on Postgres (replicas on several hosts), a session advisory lock (class ``ORDER_CLASS``,
  a 32-bit hash of the account) on a connection of its own from an unpooled engine, waited
  for under ``lock_timeout``; a holder that dies (SIGKILL) releases it when Postgres sees its
  connection close.

Every wait is bounded (``bound_s``, in all three): past it the turn raises
``AccountBusyError`` and the caller files nothing. A turn is reentrant in the task that holds
it (not in the tasks that task starts), so a caller that holds it around a check of its own
and the guard call it guards takes it once.

``pass_turn()`` is the reconciler's: whether this process follows the open orders now
(``pg_try_advisory_lock``, held for the pass); one replica passes at a time, the others skip
that pass. On SQLite it is the in-process lock alone.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from ordergate.ledger._errors import AccountBusyError
from ordergate.store import blocking

__all__ = ["ORDER_CLASS", "RECONCILE_KEY", "TURN_BOUND_S", "AccountTurns"]

ORDER_CLASS = 7708
RECONCILE_KEY = 7707707709
TURN_BOUND_S = 30.0
"""How long an order waits for its account's turn before it is refused (nothing filed)."""
_POLL_FIRST_S = 0.001
_POLL_MAX_S = 0.02
_LOCK_NOT_AVAILABLE = "55P03"  # Postgres: lock_timeout passed

# Who holds each turn in this process: (database, account) -> the holding task's id.
_holders: dict[tuple[str, str], int] = {}


def _key(name: str) -> int:
    digest = hashlib.blake2b(name.encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big", signed=True)


class AccountTurns:
    """The account turns and the reconcile pass of one database (see the module docstring)."""

    def __init__(self, engine: Engine, *, bound_s: float | None = None) -> None:
        """``bound_s``: how long a turn is waited for (``TURN_BOUND_S`` when not given)."""
        bound_s = TURN_BOUND_S if bound_s is None else bound_s
        if bound_s <= 0:
            raise ValueError("bound_s must be positive")
        url = engine.url
        self.bound_s = bound_s
        self._shared = engine.dialect.name == "postgresql"
        self._database = url.render_as_string(hide_password=True)
        self._url = url
        self._engine: Engine | None = None
        database = url.database if not self._shared else None
        self._file = (
            None if database in (None, "", ":memory:") else Path(f"{database}.turn").expanduser()
        )
        if self._file is None and not self._shared:
            self._database += f"#{id(self)}"  # a database without a file is this object's own
        self._local: dict[str, anyio.Lock] = {}
        self._pass = anyio.Lock()

    @property
    def shared(self) -> bool:
        """Whether the turns hold across hosts (a Postgres ledger)."""
        return self._shared

    @property
    def lock_file(self) -> Path | None:
        """The file whose lock is the turn across processes on a SQLite ledger."""
        return self._file

    def held(self, account: str) -> bool:
        """Whether the running task holds ``account``'s turn (a task it started does not)."""
        return _holders.get((self._database, account)) == anyio.get_current_task().id

    @asynccontextmanager
    async def account(self, name: str) -> AsyncIterator[None]:
        """Hold ``name``'s turn for the block. Raises ``AccountBusyError`` when it does not
        come within ``bound_s``."""
        if self.held(name):
            yield
            return
        with anyio.move_on_after(self.bound_s) as waiting:
            await self._local.setdefault(name, anyio.Lock()).acquire()
        if waiting.cancelled_caught:
            raise AccountBusyError(name, self.bound_s)
        try:
            release = await self._take(name, waiting.deadline)
            _holders[self._database, name] = anyio.get_current_task().id
            try:
                yield
            finally:
                del _holders[self._database, name]  # no other holder meanwhile: the lock
                await release()
        finally:
            self._local[name].release()

    async def _take(self, name: str, deadline: float) -> Callable[[], Awaitable[None]]:
        """Take the turn across processes; what gives it back."""
        if self._shared:
            left_ms = max(1, int((deadline - anyio.current_time()) * 1000))
            connection = await blocking(self._take_advisory, name, left_ms)

            async def unlock() -> None:
                await blocking(self._give_advisory, connection, name)

            return unlock
        if self._file is None:
            return _in_process_only
        descriptor = await self._take_file(self._file, name, deadline)

        async def close() -> None:
            os.close(descriptor)  # closing the file gives its flock back

        return close

    async def _take_file(self, path: Path, name: str, deadline: float) -> int:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        pause = _POLL_FIRST_S
        try:
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return descriptor
                except OSError as error:
                    if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                        raise
                left = deadline - anyio.current_time()
                if left <= 0:
                    raise AccountBusyError(name, self.bound_s)
                await anyio.sleep(min(pause, left))
                pause = min(pause * 2, _POLL_MAX_S)
        except BaseException:
            os.close(descriptor)
            raise

    def _lock_engine(self) -> Engine:
        if self._engine is None:
            self._engine = create_engine(self._url, poolclass=NullPool)
        return self._engine

    def _take_advisory(self, name: str, left_ms: int) -> Connection:
        connection = self._lock_engine().connect()
        try:
            connection.execute(text(f"SET lock_timeout = {int(left_ms)}"))
            connection.execute(
                text("SELECT pg_advisory_lock(:class, :key)"),
                {"class": ORDER_CLASS, "key": _key(name)},
            )
            connection.commit()
        except OperationalError as error:
            connection.close()
            if getattr(error.orig, "sqlstate", None) == _LOCK_NOT_AVAILABLE:
                raise AccountBusyError(name, self.bound_s) from None
            raise
        except BaseException:
            connection.close()
            raise
        return connection

    def _give_advisory(self, connection: Connection, name: str) -> None:
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


async def _in_process_only() -> None:
    """Nothing to give back: a database without a file has no other process."""
