"""One transaction for the steps of one act: nested writes and reads join the one open.

A step of the order path is often several writes that belong together (a filing and the
journal entry of its decision; an order's state, its fills, its status and its corrected
reservation). Each write method opens its own ``write_transaction``; called while another
write transaction on the same engine is open in the same thread, it joins that one instead
of committing on its own:

- its statements run in the outer transaction, inside a savepoint of their own, so a step
  that fails and is caught by its caller (a fill already booked: an ``IntegrityError``)
  undoes only its own writes, and on Postgres the transaction stays usable;
- the locks it names are taken again inside the outer transaction (advisory locks and
  ``FOR UPDATE`` rows are re-entrant), so the one opening the group must take, first and
  in the global order, every lock its steps will take;
- everything commits with the outer transaction (one commit, one flush of the log) or
  rolls back with it.

A read (``reading``) inside an open write transaction runs on its connection, so it sees
what the steps before it wrote. Outside one, ``reading`` opens a read transaction that
nested reads join (one connection, one snapshot on SQLite, for the reads of one decision).

``step_memo`` keeps, for a write transaction's life, what its steps read under its locks
and need not read again (that a filing is on file, the events chain's head after the last
append); it is emptied whenever a step rolls back.

What is open is kept per thread: a transaction belongs to the thread that opened it (a
``blocking`` worker running one synchronous function, or the event loop's thread inside one
synchronous call) and never spans an ``await``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine

__all__ = ["joined_write", "reading", "registered", "savepoint", "step_memo"]


class _Open(threading.local):
    def __init__(self) -> None:
        self.writes: dict[Engine, Connection] = {}
        self.reads: dict[Engine, Connection] = {}
        self.memos: dict[int, dict[object, Any]] = {}
        self.depths: dict[int, int] = {}


_open = _Open()


def joined_write(engine: Engine) -> Connection | None:
    """The write transaction open on ``engine`` in this thread, if any."""
    return _open.writes.get(engine)


@contextmanager
def registered(engine: Engine, connection: Connection) -> Iterator[None]:
    """Make ``connection``'s write transaction the one nested steps on ``engine`` join."""
    _open.writes[engine] = connection
    _open.memos[id(connection)] = {}
    try:
        yield
    finally:
        del _open.writes[engine]
        del _open.memos[id(connection)]


def step_memo(connection: Connection) -> dict[object, Any] | None:
    """The memo of ``connection``'s open write transaction in this thread; ``None`` for any
    other connection (a read, or a write opened elsewhere)."""
    return _open.memos.get(id(connection))


@contextmanager
def savepoint(connection: Connection) -> Iterator[None]:
    """A savepoint around one joined step: released when it ends, rolled back to (and the
    error raised on) when it fails. On the driver itself, as ``BEGIN`` is (``_engine``).

    Named for its depth among the connection's open savepoints (steps nest strictly), so
    the same few statements repeat: a name drawn afresh for every step would be a new
    statement each time, and on SQLite each would take a place in the driver's cache of
    prepared statements, pushing out the order path's own (and churning the memory it
    holds)."""
    driver = connection.connection.driver_connection
    assert driver is not None
    key = id(connection)
    depth = _open.depths.get(key, 0) + 1
    _open.depths[key] = depth
    name = f"ordergate_step_{depth}"
    try:
        driver.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            memo = step_memo(connection)
            if memo is not None:
                memo.clear()  # what the step read or wrote may be undone
            driver.execute(f"ROLLBACK TO SAVEPOINT {name}")
            driver.execute(f"RELEASE SAVEPOINT {name}")
            raise
        driver.execute(f"RELEASE SAVEPOINT {name}")
    finally:
        if depth == 1:
            del _open.depths[key]
        else:
            _open.depths[key] = depth - 1


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A connection to read on: the open write transaction's, else the open read
    transaction's, else a new read transaction that nested reads join until it ends."""
    joined = _open.writes.get(engine) or _open.reads.get(engine)
    if joined is not None:
        yield joined
        return
    with engine.connect() as connection, connection.begin():
        _open.reads[engine] = connection
        try:
            yield connection
        finally:
            del _open.reads[engine]
