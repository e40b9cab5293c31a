"""``OwnerAuthority``: checks the owner code for an owner act, once, and journals the act.

``authorize(code, act)`` answers with the credential that authorised it or raises
``OwnerRefused`` with a stable reason:

- ``owner_not_enrolled``: nobody has run ``ordergate owner init``;
- ``owner_code_required``: nothing was typed;
- ``owner_locked``: too many wrong codes lately (``MAX_FAILURES`` within ``FAILURE_WINDOW``
  lock owner acts for ``LOCKOUT``; the lock itself is journalled);
- ``owner_code_replayed``: a TOTP code of a time step already used (RFC 6238 §5.2: a code
  is single-use), counted as a failure;
- ``owner_code_wrong``: neither a current TOTP code nor the passphrase, counted as a failure.

Six digits are read as a TOTP code, anything else as the passphrase (which may therefore
never be six digits). The check of the code itself (HMAC, or scrypt) runs outside any
transaction; then, in one write transaction on the guard's one row (``BEGIN IMMEDIATE`` on
SQLite, ``SELECT … FOR UPDATE`` on Postgres), the lock is read, the step is spent or the
failure counted, and the journal entry is appended, so two replicas racing one code accept it
once, and every attempt is on the record with its act, its time and its credential kind —
never the code.

Security time is the wall clock (``RealtimeClock`` unless a test injects one): a simulated
market clock never moves code expiry or the lockout.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, select, update

from ordergate.core import Clock, RealtimeClock
from ordergate.ledger import Ledger, write_transaction
from ordergate.owner._acts import Credential, OwnerAct
from ordergate.owner._enrolment import Enrolment, read_enrolment
from ordergate.owner._errors import (
    CODE_MISSING,
    CODE_REPLAYED,
    CODE_WRONG,
    LOCKED,
    NOT_ENROLLED,
    OwnerRefused,
)
from ordergate.owner._passphrase import passphrase_matches
from ordergate.owner._schema import OWNER_KEY, owner_guard
from ordergate.owner._totp import looks_like_code, matching_step

__all__ = [
    "FAILURE_WINDOW",
    "LOCKOUT",
    "MAX_FAILURES",
    "OWNER_IDENTITY",
    "OwnerAuthority",
    "OwnerStatus",
]

logger = logging.getLogger(__name__)

MAX_FAILURES = 5
FAILURE_WINDOW = timedelta(minutes=15)
LOCKOUT = timedelta(minutes=15)
OWNER_IDENTITY = "owner"
_MAX_CODE = 1024


@dataclass(frozen=True, slots=True)
class OwnerStatus:
    enrolled: bool
    passphrase: bool
    locked_until: datetime | None
    recent_failures: int

    def as_json(self) -> dict[str, Any]:
        return {
            "enrolled": self.enrolled,
            "passphrase": self.passphrase,
            "locked_until": self.locked_until.isoformat() if self.locked_until else None,
            "recent_failures": self.recent_failures,
        }


@dataclass(frozen=True, slots=True)
class _Presented:
    credential: Credential | None  # None: matched nothing
    step: int | None = None


class OwnerAuthority:
    """The owner code's checker for one enrolment file and one ledger."""

    def __init__(self, *, enrolment_path: Path, ledger: Ledger, clock: Clock | None = None):
        self._path = enrolment_path
        self._ledger = ledger
        self._clock = clock or RealtimeClock()

    @property
    def enrolment_path(self) -> Path:
        return self._path

    def enrolment(self) -> Enrolment | None:
        """The current enrolment (read afresh, so a re-enrolment takes effect at once).
        Raises ``EnrolmentError`` for a file that cannot be read."""
        return read_enrolment(self._path)

    def status(self) -> OwnerStatus:
        enrolment = self.enrolment()
        now = self._clock.now()
        with self._ledger.engine.connect() as connection:
            row = _row(connection)
        locked = _locked_until(row, now)
        return OwnerStatus(
            enrolled=enrolment is not None,
            passphrase=enrolment is not None and enrolment.passphrase is not None,
            locked_until=locked,
            recent_failures=len(_recent(row, now)),
        )

    def authorize(
        self, code: str | None, act: OwnerAct, *, detail: Mapping[str, Any] | None = None
    ) -> Credential:
        """Check ``code`` for ``act``: the credential kind that authorised it, the act
        journalled; ``OwnerRefused`` otherwise (the refusal journalled too)."""
        enrolment = self.enrolment()
        if enrolment is None:
            self._journal_refusal(act, NOT_ENROLLED, detail)
            raise OwnerRefused(NOT_ENROLLED)
        if not code:
            raise OwnerRefused(CODE_MISSING)
        presented = _present(enrolment, code, now=self._clock.now())
        reason = self._spend(presented, act, detail)
        if reason is not None:
            raise OwnerRefused(reason)
        assert presented.credential is not None
        return presented.credential

    def vouched(
        self, act: OwnerAct, credential: Credential, *, detail: Mapping[str, Any] | None = None
    ) -> Credential:
        """Journal ``act`` as authorised by ``credential``, which the caller has verified
        itself (the console's passkey assertion); refused while owner acts are locked."""
        now = self._clock.now()
        with write_transaction(self._ledger.engine) as tx:
            row = _row(tx, for_update=True)
            if _locked_until(row, now) is not None:
                self._journal(tx, act, "refused", LOCKED, None, detail, now)
                locked = True
            else:
                self._journal(tx, act, "authorised", None, credential, detail, now)
                locked = False
        if locked:
            raise OwnerRefused(LOCKED)
        return credential

    def enrolled(self, *, replaced: bool, credential: Credential | None) -> None:
        """Record a new enrolment (``replaced``: it took the place of one, on the authority of
        ``credential``): the new secret's codes start afresh, and the journal says so."""
        now = self._clock.now()
        with write_transaction(self._ledger.engine) as tx:
            _row(tx, for_update=True)
            tx.execute(
                update(owner_guard)
                .where(owner_guard.c.key == OWNER_KEY)
                .values(
                    last_step=None, failures="[]", locked_until=None, updated_at=now.isoformat()
                )
            )
            detail: dict[str, Any] = {"replaced": replaced, "at": now.isoformat()}
            if credential is not None:
                detail["credential"] = credential.value
            self._ledger.journal.append(
                identity=OWNER_IDENTITY,
                kind="owner_enrolled",
                why="the owner enrolled again" if replaced else "the owner enrolled",
                detail=detail,
                connection=tx,
            )

    def _spend(
        self, presented: _Presented, act: OwnerAct, detail: Mapping[str, Any] | None
    ) -> str | None:
        """In one transaction: the lock, the replay, the failure count, the journal entry.
        The reason of a refusal, or ``None`` once the act is authorised."""
        now = self._clock.now()
        with write_transaction(self._ledger.engine) as tx:
            row = _row(tx, for_update=True)
            if _locked_until(row, now) is not None:
                self._journal(tx, act, "refused", LOCKED, None, detail, now)
                return LOCKED
            reason = None
            if presented.credential is None:
                reason = CODE_WRONG
            elif (
                presented.step is not None
                and row.last_step is not None
                and presented.step <= row.last_step
            ):
                reason = CODE_REPLAYED
            if reason is None:
                values: dict[str, Any] = {"updated_at": now.isoformat()}
                if presented.step is not None:
                    values["last_step"] = presented.step
                tx.execute(update(owner_guard).where(owner_guard.c.key == OWNER_KEY).values(values))
                assert presented.credential is not None
                self._journal(tx, act, "authorised", None, presented.credential, detail, now)
                return None
            failures = [*_recent(row, now), now.isoformat()]
            locked_until = (now + LOCKOUT).isoformat() if len(failures) >= MAX_FAILURES else None
            tx.execute(
                update(owner_guard)
                .where(owner_guard.c.key == OWNER_KEY)
                .values(
                    failures=json.dumps([] if locked_until else failures),
                    locked_until=locked_until,
                    updated_at=now.isoformat(),
                )
            )
            self._journal(tx, act, "refused", reason, None, detail, now)
            if locked_until is not None:
                logger.warning("owner acts locked until %s after wrong codes", locked_until)
                self._ledger.journal.append(
                    identity=OWNER_IDENTITY,
                    kind="owner_locked",
                    why=f"owner acts locked until {locked_until} after {MAX_FAILURES} wrong codes",
                    detail={"locked_until": locked_until, "at": now.isoformat()},
                    connection=tx,
                )
            return reason

    def _journal(
        self,
        tx: Connection,
        act: OwnerAct,
        outcome: str,
        reason: str | None,
        credential: Credential | None,
        detail: Mapping[str, Any] | None,
        now: datetime,
    ) -> None:
        entry: dict[str, Any] = {"act": act.value, "outcome": outcome, "at": now.isoformat()}
        if credential is not None:
            entry["credential"] = credential.value
        if reason is not None:
            entry["reason"] = reason
        if detail:
            entry["detail"] = dict(detail)
        why = f"owner act {act.value} {outcome}" + (f" ({reason})" if reason else "")
        self._ledger.journal.append(
            identity=OWNER_IDENTITY, kind="owner_act", why=why, detail=entry, connection=tx
        )

    def _journal_refusal(
        self, act: OwnerAct, reason: str, detail: Mapping[str, Any] | None
    ) -> None:
        now = self._clock.now()
        with write_transaction(self._ledger.engine) as tx:
            self._journal(tx, act, "refused", reason, None, detail, now)


def _present(enrolment: Enrolment, code: str, *, now: datetime) -> _Presented:
    """What ``code`` proves against ``enrolment`` (no state read or written)."""
    if len(code) > _MAX_CODE:
        return _Presented(None)
    if looks_like_code(code):
        step = matching_step(enrolment.totp_secret, code, now=now)
        return _Presented(Credential.TOTP, step) if step is not None else _Presented(None)
    if enrolment.passphrase is not None and passphrase_matches(code, enrolment.passphrase):
        return _Presented(Credential.PASSPHRASE)
    return _Presented(None)


def _row(connection: Connection, *, for_update: bool = False) -> Any:
    query = select(owner_guard).where(owner_guard.c.key == OWNER_KEY)
    if for_update:
        query = query.with_for_update()
    return connection.execute(query).one()


def _locked_until(row: Any, now: datetime) -> datetime | None:
    if row.locked_until is None:
        return None
    until = datetime.fromisoformat(row.locked_until)
    return until if until > now else None


def _recent(row: Any, now: datetime) -> list[str]:
    """The failures of ``row`` still inside the window ending ``now``."""
    times = json.loads(row.failures)
    return [t for t in times if datetime.fromisoformat(t) > now - FAILURE_WINDOW]
