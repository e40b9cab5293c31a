"""Console sessions: a random id in an HttpOnly cookie, only its SHA-256 on the ledger.

A browser that opens the sign-in page gets a session that is not signed in yet (it carries
the CSRF token of the sign-in form and any WebAuthn challenge in flight). Signing in makes a
new session (a new id, a new CSRF token: no fixation) and ends the old one. A session ends
when idle for ``IDLE`` or older than ``MAX_AGE``, by the security clock (wall time; never a
simulated market), and when the owner signs out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Row, delete, insert, select, update

from ordergate.core import Clock
from ordergate.gateway.console._tables import console_sessions
from ordergate.store import iso, parse_iso

__all__ = ["IDLE", "MAX_AGE", "ConsoleSession", "ConsoleSessions"]

IDLE = timedelta(minutes=15)
MAX_AGE = timedelta(hours=8)


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    digest: str
    csrf: str
    signed_in: bool

    def csrf_matches(self, presented: str | None) -> bool:
        return bool(presented) and hmac.compare_digest(
            self.csrf.encode(), (presented or "").encode("utf-8", "replace")
        )

    def __repr__(self) -> str:  # the CSRF token stays out of logs
        return f"ConsoleSession(signed_in={self.signed_in})"


class ConsoleSessions:
    """The console's sessions on the gateway's database, timed by the security clock."""

    def __init__(self, engine: Engine, *, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def now(self) -> datetime:
        return self._clock.now()

    def open(self, *, signed_in: bool = False) -> tuple[str, ConsoleSession]:
        """A new session: the raw id (for the cookie only) and the session."""
        raw = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = iso(self._clock.now())
        with self._engine.begin() as db:
            db.execute(
                insert(console_sessions).values(
                    id_sha256=_digest(raw),
                    csrf=csrf,
                    signed_in=signed_in,
                    created_at=now,
                    seen_at=now,
                )
            )
        return raw, ConsoleSession(_digest(raw), csrf, signed_in)

    def find(self, raw: str | None) -> ConsoleSession | None:
        """The live session the cookie names (seen now), or ``None``; an expired one ends."""
        if not raw or len(raw) > 128:
            return None
        digest = _digest(raw)
        now = self._clock.now()
        with self._engine.begin() as db:
            row = db.execute(
                select(console_sessions).where(console_sessions.c.id_sha256 == digest)
            ).first()
            if row is None:
                return None
            if _expired(row, now):
                db.execute(delete(console_sessions).where(console_sessions.c.id_sha256 == digest))
                return None
            db.execute(
                update(console_sessions)
                .where(console_sessions.c.id_sha256 == digest)
                .values(seen_at=iso(now))
            )
        return ConsoleSession(digest, row.csrf, bool(row.signed_in))

    def sign_in(self, session: ConsoleSession) -> tuple[str, ConsoleSession]:
        """End ``session`` and open a signed-in one in its place."""
        self.end(session)
        return self.open(signed_in=True)

    def end(self, session: ConsoleSession) -> None:
        with self._engine.begin() as db:
            db.execute(
                delete(console_sessions).where(console_sessions.c.id_sha256 == session.digest)
            )

    def set_challenge(self, session: ConsoleSession, challenge: str, kind: str) -> None:
        with self._engine.begin() as db:
            db.execute(
                update(console_sessions)
                .where(console_sessions.c.id_sha256 == session.digest)
                .values(challenge=challenge, challenge_kind=kind)
            )

    def take_challenge(self, session: ConsoleSession, kind: str) -> str | None:
        """The challenge of ``kind`` in flight on ``session``, spent (once only)."""
        with self._engine.begin() as db:
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


def _expired(row: Row[Any], now: datetime) -> bool:
    seen = parse_iso(row.seen_at)
    created = parse_iso(row.created_at)
    return now - seen > IDLE or now - created > MAX_AGE
