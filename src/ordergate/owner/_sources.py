"""The lockout per source, in front of the global one: where wrong owner codes come from.

A **source** is where a code was typed: the address class of the client that sent it
(``loopback`` for any of 127.0.0.0/8 and ::1, else its /24 or /64: the gateway's
``address_class``), or ``OWNER_CHANNEL`` for the owner's own channel. The gateway names it for
the request being served (``acting_from``); an act nobody named a source for is
``UNATTRIBUTED``, a source of its own.

Each source has its own count of wrong codes: ``SOURCE_FAILURES`` within ``SOURCE_WINDOW``
lock that source for ``SOURCE_LOCKOUT`` times two to the power of the locks it earned in the
last day (one minute, two, four, … at most ``SOURCE_LOCKOUT_MAX``): exponential backoff, so a
day of guessing from one source buys a handful of tries, not hundreds. A right code forgives
the source. The source's lock is read **before** anything else is done with a code — no
scrypt is run and nothing is written while it holds — so a locked source's guesses cost the
gateway a read. The global lockout (``OwnerAuthority``) still counts every wrong code, but
does not hold against ``OWNER_CHANNEL``: a stranger who reaches the consent page can lock
every other source, never the owner's own channel, which only its own failures lock.

The state is one row per source in ``owner_sources`` on the ledger (shared by replicas; rows
untouched for a day are swept as failures are counted).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from ordergate.owner._schema import owner_sources

__all__ = [
    "OWNER_CHANNEL",
    "SOURCE_FAILURES",
    "SOURCE_LOCKOUT",
    "SOURCE_LOCKOUT_MAX",
    "SOURCE_WINDOW",
    "UNATTRIBUTED",
    "SourceLock",
    "acting_from",
    "count_failure",
    "current_source",
    "forgive",
    "source_locked",
]

OWNER_CHANNEL = "owner-channel"
"""The owner's own channel (the gateway's owner socket): never held by the global lockout."""
UNATTRIBUTED = "unattributed"
SOURCE_FAILURES = 3
SOURCE_WINDOW = timedelta(minutes=15)
SOURCE_LOCKOUT = timedelta(minutes=1)
SOURCE_LOCKOUT_MAX = timedelta(hours=24)
_MEMORY = timedelta(days=1)
_MAX_SOURCE = 64

_source: ContextVar[str] = ContextVar("ordergate_owner_source", default=UNATTRIBUTED)


def current_source() -> str:
    """The source owner codes are being typed from in this context."""
    return _source.get()


@contextmanager
def acting_from(source: str) -> Iterator[None]:
    """Owner codes checked inside this block come from ``source``."""
    token = _source.set(source[:_MAX_SOURCE] or UNATTRIBUTED)
    try:
        yield
    finally:
        _source.reset(token)


@dataclass(frozen=True, slots=True)
class SourceLock:
    """A source just locked: until when, and how many locks it has earned in the last day."""

    source: str
    until: datetime
    level: int


def source_locked(connection: Connection, source: str, now: datetime) -> datetime | None:
    """Until when ``source`` is locked, or ``None`` (a read only)."""
    row = connection.execute(
        select(owner_sources.c.locked_until).where(owner_sources.c.source == source)
    ).first()
    if row is None or row.locked_until is None:
        return None
    until = datetime.fromisoformat(row.locked_until)
    return until if until > now else None


def count_failure(tx: Connection, source: str, now: datetime) -> SourceLock | None:
    """Count a wrong code from ``source`` (inside ``tx``, which holds the owner's write
    lock); the lock it earned, if this failure locked it."""
    forgotten = (now - _MEMORY).isoformat()
    tx.execute(delete(owner_sources).where(owner_sources.c.updated_at < forgotten))
    row = tx.execute(select(owner_sources).where(owner_sources.c.source == source)).first()
    if row is None:
        tx.execute(
            insert(owner_sources).values(
                source=source, failures="[]", level=0, locked_until=None, updated_at=now.isoformat()
            )
        )
        failures: list[str] = []
        level = 0
    else:
        failures = _recent(row, now)
        level = int(row.level)
    failures.append(now.isoformat())
    locked: SourceLock | None = None
    values: dict[str, Any] = {"updated_at": now.isoformat()}
    if len(failures) >= SOURCE_FAILURES:
        until = now + min(SOURCE_LOCKOUT * 2**level, SOURCE_LOCKOUT_MAX)
        level += 1
        locked = SourceLock(source, until, level)
        values |= {"failures": "[]", "level": level, "locked_until": until.isoformat()}
    else:
        values["failures"] = json.dumps(failures)
    tx.execute(update(owner_sources).where(owner_sources.c.source == source).values(values))
    return locked


def forgive(tx: Connection, source: str) -> None:
    """A right code came from ``source``: its failures and backoff start afresh."""
    tx.execute(delete(owner_sources).where(owner_sources.c.source == source))


def unlock_all(tx: Connection) -> int:
    """Forget every source's failures and locks; how many sources were locked."""
    held = tx.execute(
        select(owner_sources.c.source).where(owner_sources.c.locked_until.is_not(None))
    ).all()
    tx.execute(delete(owner_sources))
    return len(held)


def _recent(row: Any, now: datetime) -> list[str]:
    times = json.loads(row.failures)
    return [t for t in times if datetime.fromisoformat(t) > now - SOURCE_WINDOW]
