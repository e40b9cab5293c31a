"""Console sessions: a random id in an HttpOnly cookie and a second secret, the **key**, kept
by the signed-in page in its tab's ``sessionStorage``; only their SHA-256 on the ledger.

Cookies do not isolate ports: a browser signed in at ``127.0.0.1:G`` sends the console's
cookie to any page on ``127.0.0.1:A`` that asks for ``/console/…``, so an agent serving such a
page collects it. ``sessionStorage`` is per origin (port included), so the key stays with the
console's own pages, which send it as ``X-Console-Key`` on every request. A signed-in session
is the owner's only with both (``ConsoleSession.bound``, compared in constant time); the
cookie alone reads nothing and does not even keep the session alive.

Opening the sign-in page stores nothing (its form's CSRF token is a cookie of its own, see
``_web``); a session that is not signed in yet is stored only when a passkey sign-in starts
(it carries that ceremony's challenge) and is swept after ``ANONYMOUS_IDLE``. Signing in makes
a new session (a new id, key and CSRF token: no fixation) and ends the old one. A session ends
when idle for ``IDLE`` or older than ``MAX_AGE``, by the security clock (wall time; never a
simulated market), and when the owner signs out; ended ones are swept as sessions open.

On a hosted rail a person signs in to the console of their own connection: the session row
names that connection (``connection_id``, set only at sign-in, never from a request), and
such a session is never the owner's (``ConsoleSession.person``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Row, and_, delete, insert, or_, select, update

from ordergate.core import Clock
from ordergate.gateway.console._tables import console_sessions
from ordergate.store import iso, parse_iso, write_transaction

__all__ = ["ANONYMOUS_IDLE", "IDLE", "MAX_AGE", "ConsoleSession", "ConsoleSessions"]

IDLE = timedelta(minutes=15)
MAX_AGE = timedelta(hours=8)
ANONYMOUS_IDLE = timedelta(minutes=5)
_MAX_RAW = 128


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def same_secret(expected: str, presented: str | None) -> bool:
    """Whether ``presented`` is ``expected`` (constant time; nothing presented is never)."""
    return bool(presented) and hmac.compare_digest(
        expected.encode(), (presented or "").encode("utf-8", "replace")
    )


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    digest: str
    csrf: str
    signed_in: bool
    bound: bool = False
    """Signed in and presented with its key: the owner's console (else it opens nothing)."""
    connection_id: str | None = None
    """The connection of a person's session (a hosted rail's); ``None`` for the owner's."""

    @property
    def owner(self) -> bool:
        return self.signed_in and self.bound and self.connection_id is None

    @property
    def person(self) -> str | None:
        """The connection whose person this bound session is, else ``None``."""
        return self.connection_id if self.signed_in and self.bound else None

    def csrf_matches(self, presented: str | None) -> bool:
        return same_secret(self.csrf, presented)

    def __repr__(self) -> str:  # the CSRF token stays out of logs
        return (
            f"ConsoleSession(signed_in={self.signed_in}, bound={self.bound}, "
            f"person={self.connection_id is not None})"
        )


class ConsoleSessions:
    """The console's sessions on the gateway's database, timed by the security clock."""

    def __init__(self, engine: Engine, *, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def now(self) -> datetime:
        return self._clock.now()

    def open_anonymous(self, csrf: str) -> tuple[str, ConsoleSession]:
        """A session not signed in yet, its forms' CSRF token ``csrf`` (the sign-in page's):
        the raw id (for the cookie only) and the session."""
        raw = secrets.token_urlsafe(32)
        self._insert(raw, csrf=csrf, key=None)
        return raw, ConsoleSession(_digest(raw), csrf, signed_in=False)

    def sign_in(
        self, previous: ConsoleSession | None, *, connection_id: str | None = None
    ) -> tuple[str, str, ConsoleSession]:
        """End ``previous`` (if any) and open a signed-in session (the owner's, or with
        ``connection_id`` the person's of that connection): the raw id (for the cookie), the
        key (for the page's ``sessionStorage``) and the session."""
        if previous is not None:
            self.end(previous)
        raw, key, csrf = (secrets.token_urlsafe(32) for _ in range(3))
        self._insert(raw, csrf=csrf, key=key, connection_id=connection_id)
        session = ConsoleSession(_digest(raw), csrf, True, True, connection_id)
        return raw, key, session

    def _insert(
        self, raw: str, *, csrf: str, key: str | None, connection_id: str | None = None
    ) -> None:
        now = self._clock.now()
        with self._engine.begin() as db:
            self._sweep(db, now)
            db.execute(
                insert(console_sessions).values(
                    id_sha256=_digest(raw),
                    csrf=csrf,
                    signed_in=key is not None,
                    key_sha256=_digest(key) if key is not None else None,
                    connection_id=connection_id,
                    created_at=iso(now),
                    seen_at=iso(now),
                )
            )

    def find(self, raw: str | None, key: str | None) -> ConsoleSession | None:
        """The live session the cookie names, or ``None`` (an expired one ends). A signed-in
        session is ``bound`` only when ``key`` is its key; only then is it seen now."""
        if not raw or len(raw) > _MAX_RAW:
            return None
        digest = _digest(raw)
        now = self._clock.now()
        with write_transaction(self._engine) as db:
            row = db.execute(
                select(console_sessions).where(console_sessions.c.id_sha256 == digest)
            ).first()
            if row is None:
                return None
            if _expired(row, now):
                db.execute(delete(console_sessions).where(console_sessions.c.id_sha256 == digest))
                return None
            bound = bool(row.signed_in) and _key_matches(row.key_sha256, key)
            if bound or not row.signed_in:
                db.execute(
                    update(console_sessions)
                    .where(console_sessions.c.id_sha256 == digest)
                    .values(seen_at=iso(now))
                )
        return ConsoleSession(digest, row.csrf, bool(row.signed_in), bound, row.connection_id)

    def end(self, session: ConsoleSession) -> None:
        with self._engine.begin() as db:
            db.execute(
                delete(console_sessions).where(console_sessions.c.id_sha256 == session.digest)
            )

    def sweep(self) -> int:
        """End every session past its time (an anonymous one after ``ANONYMOUS_IDLE``);
        how many ended."""
        with self._engine.begin() as db:
            return self._sweep(db, self._clock.now())

    @staticmethod
    def _sweep(db: Any, now: datetime) -> int:
        ended = db.execute(
            delete(console_sessions).where(
                or_(
                    console_sessions.c.seen_at < iso(now - IDLE),
                    console_sessions.c.created_at < iso(now - MAX_AGE),
                    and_(
                        console_sessions.c.signed_in.is_(False),
                        console_sessions.c.created_at < iso(now - ANONYMOUS_IDLE),
                    ),
                )
            )
        )
        return int(ended.rowcount or 0)

    def set_challenge(self, session: ConsoleSession, challenge: str, kind: str) -> None:
        with self._engine.begin() as db:
            db.execute(
                update(console_sessions)
                .where(console_sessions.c.id_sha256 == session.digest)
                .values(challenge=challenge, challenge_kind=kind)
            )

    def take_challenge(self, session: ConsoleSession, kind: str) -> str | None:
        """The challenge of ``kind`` in flight on ``session``, spent (once only)."""
        with write_transaction(self._engine) as db:
            row = db.execute(
                select(console_sessions.c.challenge, console_sessions.c.challenge_kind).where(
                    console_sessions.c.id_sha256 == session.digest
                )
            ).first()
            db.execute(
                update(console_sessions)
                .where(console_sessions.c.id_sha256 == session.digest)
                .values(challenge=None, challenge_kind=None)
            )
        if row is None or row.challenge is None or row.challenge_kind != kind:
            return None
        return str(row.challenge)


def _key_matches(stored: str | None, key: str | None) -> bool:
    if stored is None or not key or len(key) > _MAX_RAW:
        return False
    return hmac.compare_digest(stored.encode(), _digest(key).encode())


def _expired(row: Row[Any], now: datetime) -> bool:
    seen = parse_iso(row.seen_at)
    created = parse_iso(row.created_at)
    limit = IDLE if row.signed_in else ANONYMOUS_IDLE
    return now - seen > limit or now - created > MAX_AGE
