"""``OwnerAuthority``: checks the owner code for an owner act, once, and journals the act.

``authorize(code, act, digest=…)`` answers with the credential that authorised it or raises
``OwnerRefused`` with a stable reason. ``digest`` is the act as the owner was shown it
(``act_digest``: a prepared act's, or what a web page shows): a TOTP code's time step is spent
on that digest only. The same code presented again for the same digest (a retry) is accepted
again — the caller answers it with the act's first outcome, never a second run — and for any
other digest it is refused:

- ``owner_not_enrolled``: nobody has run ``ordergate owner init``;
- ``owner_code_required``: nothing was typed;
- ``owner_locked``: too many wrong codes lately, from the source the code came from
  (``_sources``: ``SOURCE_FAILURES`` lock that source, with exponential backoff) or from
  everywhere (``MAX_FAILURES`` within ``FAILURE_WINDOW`` lock owner acts from every source but
  the owner's channel for ``LOCKOUT``); each lock is journalled and announced (``on_lock``);
- ``owner_busy``: the passphrase's scrypt pool is full (``ScryptPool``);
- ``owner_code_spent``: a code of the step already spent on another act's digest, counted as
  a failure;
- ``owner_code_replayed``: a TOTP code of an earlier time step than the last one used
  (RFC 6238 §5.2: a code is single-use), counted as a failure;
- ``owner_code_wrong``: neither a current TOTP code nor the passphrase, counted as a failure.

Six digits are read as a TOTP code, anything else as the passphrase (which may therefore
never be six digits). First the locks are read (the source's and the global one: a read, no
write, no scrypt — a locked source's guesses cost nothing more). Then the code itself is
checked (HMAC, or scrypt: from async code, ``check``, on the ``ScryptPool``'s own threads)
outside any transaction; then, in one write transaction on the guard's one row (``BEGIN
IMMEDIATE`` on SQLite, ``SELECT … FOR UPDATE`` on Postgres), the locks are read again, the
step is spent on the digest or the failure counted, and the journal entry is appended, so
two replicas racing one code accept it for one digest only, and every attempt checked is on
the record with its act, its digest, its time, its source and its credential kind — never the
code. ``unlock`` lifts every lock (the
gateway's OS user, ``ordergate owner unlock``), journalled.

Security time is the wall clock (``RealtimeClock`` unless a test injects one): a simulated
market clock never moves code expiry or the lockout.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
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
    CODE_SPENT,
    CODE_WRONG,
    LOCKED,
    NOT_ENROLLED,
    OwnerRefused,
)
from ordergate.owner._passphrase import passphrase_matches
from ordergate.owner._schema import OWNER_KEY, owner_guard
from ordergate.owner._scrypt_pool import ScryptPool
from ordergate.owner._sources import (
    OWNER_CHANNEL,
    SourceLock,
    count_failure,
    current_source,
    forgive,
    source_locked,
    unlock_all,
)
from ordergate.owner._totp import looks_like_code, matching_step
from ordergate.store import blocking

__all__ = [
    "FAILURE_WINDOW",
    "LOCKOUT",
    "MAX_FAILURES",
    "OWNER_IDENTITY",
    "LockAlert",
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
class LockAlert:
    """A lock just taken after wrong codes: ``source`` (the source locked, or ``"all"``: every
    source but the owner's channel) until ``until``. Journalled as ``owner_locked``."""

    source: str
    until: datetime

    def as_json(self) -> dict[str, Any]:
        return {
            "event": "owner_locked",
            "source": self.source,
            "locked_until": self.until.isoformat(),
        }


LockHook = Callable[[LockAlert], Awaitable[None]]
_ALL = "all"
_SCRYPT = ScryptPool()


@dataclass(frozen=True, slots=True)
class _Presented:
    credential: Credential | None  # None: matched nothing
    step: int | None = None


class OwnerAuthority:
    """The owner code's checker for one enrolment file and one ledger."""

    def __init__(
        self,
        *,
        enrolment_path: Path,
        ledger: Ledger,
        clock: Clock | None = None,
        scrypt: ScryptPool | None = None,
        on_lock: LockHook | None = None,
    ):
        self._path = enrolment_path
        self._ledger = ledger
        self._clock = clock or RealtimeClock()
        self._scrypt = scrypt or _SCRYPT
        self.on_lock = on_lock
        """Told of every lock as it is taken (the gateway's webhook); failures are logged."""

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
        self,
        code: str | None,
        act: OwnerAct,
        *,
        digest: str,
        detail: Mapping[str, Any] | None = None,
    ) -> Credential:
        """Check ``code`` for ``act`` as shown (``digest``) from the current source
        (``acting_from``), scrypt on this thread (the command line's acts on the local
        ledger): the credential kind that authorised it, the act journalled with its digest;
        ``OwnerRefused`` otherwise (a refusal journalled too, but a locked source's or a
        locked gateway's, which costs no write)."""
        detail = {**(detail or {}), "digest": digest}
        source = current_source()
        enrolment = self._admit(code, act, detail, source)
        presented = _present(enrolment, code or "", now=self._clock.now(), matches=_matches)
        try:
            return self._settle(presented, act, digest, detail, source)
        except _Locking as locking:
            raise locking.refused from None

    async def check(
        self,
        code: str | None,
        act: OwnerAct,
        *,
        digest: str,
        detail: Mapping[str, Any] | None = None,
    ) -> Credential:
        """``authorize`` from async code: the ledger's reads and writes on its thread pool,
        scrypt on the ``ScryptPool`` (so a flood of passphrases never occupies the ledger's
        threads; ``owner_busy`` when that pool is full); each lock taken is announced to
        ``on_lock``. Raises ``OwnerRefused``."""
        detail = {**(detail or {}), "digest": digest}
        source = current_source()
        enrolment = await blocking(self._admit, code, act, detail, source)
        now = self._clock.now()
        if code and not looks_like_code(code) and enrolment.passphrase is not None:
            stored = enrolment.passphrase
            matched = await self._scrypt.run(lambda: passphrase_matches(code, stored))
            presented = _present(enrolment, code, now=now, matches=lambda *_: matched)
        else:
            presented = _present(enrolment, code or "", now=now, matches=_matches)
        try:
            return await blocking(self._settle, presented, act, digest, detail, source)
        except _Locking as locking:
            for alert in locking.alerts:
                await self._announce(alert)
            raise locking.refused from None

    def _admit(
        self, code: str | None, act: OwnerAct, detail: Mapping[str, Any] | None, source: str
    ) -> Enrolment:
        """The enrolment, if a code may be checked now: ``OwnerRefused`` when nobody is
        enrolled, nothing was typed, or the source (or, for all but the owner's channel, the
        gateway) is locked — those two read, never write, and run no scrypt."""
        enrolment = self.enrolment()
        if enrolment is None:
            self._journal_refusal(act, NOT_ENROLLED, detail)
            raise OwnerRefused(NOT_ENROLLED)
        if not code:
            raise OwnerRefused(CODE_MISSING)
        now = self._clock.now()
        with self._ledger.engine.connect() as connection:
            if _held(connection, _row(connection), source, now):
                raise OwnerRefused(LOCKED)
        return enrolment

    def _settle(
        self,
        presented: _Presented,
        act: OwnerAct,
        digest: str,
        detail: Mapping[str, Any] | None,
        source: str,
    ) -> Credential:
        """Spend ``presented`` on ``digest`` or count it: its credential, or ``OwnerRefused``
        (``_Locking``, carrying the alerts, when the failure took a lock)."""
        reason, alerts = self._spend(presented, act, digest, detail, source)
        for alert in alerts:
            logger.warning(
                "owner acts locked (source %s) until %s after wrong codes",
                alert.source,
                alert.until.isoformat(),
            )
        if reason is not None:
            if alerts:
                raise _Locking(OwnerRefused(reason), alerts)
            raise OwnerRefused(reason)
        assert presented.credential is not None
        return presented.credential

    async def _announce(self, alert: LockAlert) -> None:
        if self.on_lock is None:
            return
        try:
            await self.on_lock(alert)
        except Exception as error:  # the lock is on the ledger either way
            logger.warning("the owner-lock alert failed: %s", type(error).__name__)

    def unlock(self, *, by: str) -> dict[str, Any]:
        """Lift every lock — the gateway's and every source's — and forget recent failures,
        journalled as ``owner_unlocked`` naming ``by`` (the OS user who ran it)."""
        now = self._clock.now()
        with write_transaction(self._ledger.engine) as tx:
            row = _row(tx, for_update=True)
            was = _locked_until(row, now)
            tx.execute(
                update(owner_guard)
                .where(owner_guard.c.key == OWNER_KEY)
                .values(failures="[]", locked_until=None, updated_at=now.isoformat())
            )
            sources = unlock_all(tx)
            outcome: dict[str, Any] = {
                "by": by,
                "was_locked_until": was.isoformat() if was else None,
                "sources_unlocked": sources,
                "at": now.isoformat(),
            }
            self._ledger.journal.append(
                identity=OWNER_IDENTITY,
                kind="owner_unlocked",
                why=f"owner acts unlocked by {by}",
                detail=outcome,
                connection=tx,
            )
        return outcome

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
                    last_step=None,
                    last_digest=None,
                    failures="[]",
                    locked_until=None,
                    updated_at=now.isoformat(),
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

    def reset(self, *, by: str) -> dict[str, Any]:
        """Remove the enrolment (the owner lost the authenticator and has no passphrase),
        journalled first as ``owner_reset`` naming ``by`` (the OS user who ran it): only who
        can open the home and the ledger, the gateway's OS user, can. Until ``owner init``
        enrols again, no owner act can be authorised."""
        now = self._clock.now()
        outcome: dict[str, Any] = {"by": by, "at": now.isoformat()}
        with write_transaction(self._ledger.engine) as tx:
            self._ledger.journal.append(
                identity=OWNER_IDENTITY,
                kind="owner_reset",
                why=f"the owner enrolment was removed by {by}",
                detail=outcome,
                connection=tx,
            )
        self._path.unlink(missing_ok=True)
        return outcome

    def _spend(
        self,
        presented: _Presented,
        act: OwnerAct,
        digest: str,
        detail: Mapping[str, Any] | None,
        source: str,
    ) -> tuple[str | None, list[LockAlert]]:
        """In one transaction: the locks, the replay, the failure counts, the journal entry.
        The reason of a refusal (``None`` once the act is authorised) and the locks taken."""
        now = self._clock.now()
        with write_transaction(self._ledger.engine) as tx:
            row = _row(tx, for_update=True)
            if _held(tx, row, source, now):
                return LOCKED, []  # locked since this code was admitted: nothing written
            reason = None
            if presented.credential is None:
                reason = CODE_WRONG
            elif presented.step is not None and row.last_step is not None:
                if presented.step < row.last_step:
                    reason = CODE_REPLAYED
                elif presented.step == row.last_step and row.last_digest != digest:
                    reason = CODE_SPENT
            if reason is None:
                values: dict[str, Any] = {"updated_at": now.isoformat()}
                if presented.step is not None:
                    values["last_step"] = presented.step
                    values["last_digest"] = digest
                tx.execute(update(owner_guard).where(owner_guard.c.key == OWNER_KEY).values(values))
                forgive(tx, source)
                assert presented.credential is not None
                self._journal(tx, act, "authorised", None, presented.credential, detail, now)
                return None, []
            alerts: list[LockAlert] = []
            taken: SourceLock | None = count_failure(tx, source, now)
            if taken is not None:
                alerts.append(LockAlert(source, taken.until))
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
            if locked_until is not None:
                alerts.append(LockAlert(_ALL, now + LOCKOUT))
            self._journal(tx, act, "refused", reason, None, detail, now, source=source)
            for alert in alerts:
                self._ledger.journal.append(
                    identity=OWNER_IDENTITY,
                    kind="owner_locked",
                    why=f"owner acts from {alert.source} locked until {alert.until.isoformat()} "
                    "after wrong codes",
                    detail={**alert.as_json(), "at": now.isoformat()},
                    connection=tx,
                )
            return reason, alerts

    def _journal(
        self,
        tx: Connection,
        act: OwnerAct,
        outcome: str,
        reason: str | None,
        credential: Credential | None,
        detail: Mapping[str, Any] | None,
        now: datetime,
        *,
        source: str | None = None,
    ) -> None:
        entry: dict[str, Any] = {"act": act.value, "outcome": outcome, "at": now.isoformat()}
        if source is not None:
            entry["source"] = source
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


class _Locking(Exception):
    """A refusal whose failure took a lock, carrying the alerts to announce."""

    def __init__(self, refused: OwnerRefused, alerts: list[LockAlert]) -> None:
        super().__init__(refused.reason)
        self.refused = refused
        self.alerts = alerts


def _matches(code: str, enrolment: Enrolment) -> bool:
    return enrolment.passphrase is not None and passphrase_matches(code, enrolment.passphrase)


def _present(
    enrolment: Enrolment,
    code: str,
    *,
    now: datetime,
    matches: Callable[[str, Enrolment], bool],
) -> _Presented:
    """What ``code`` proves against ``enrolment`` (no state read or written); ``matches``
    says whether a code that is not six digits is the passphrase."""
    if len(code) > _MAX_CODE:
        return _Presented(None)
    if looks_like_code(code):
        step = matching_step(enrolment.totp_secret, code, now=now)
        return _Presented(Credential.TOTP, step) if step is not None else _Presented(None)
    if enrolment.passphrase is not None and matches(code, enrolment):
        return _Presented(Credential.PASSPHRASE)
    return _Presented(None)


def _row(connection: Connection, *, for_update: bool = False) -> Any:
    query = select(owner_guard).where(owner_guard.c.key == OWNER_KEY)
    if for_update:
        query = query.with_for_update()
    return connection.execute(query).one()


def _held(connection: Connection, row: Any, source: str, now: datetime) -> bool:
    """Whether codes from ``source`` are refused now: by its own lock, or, for every source
    but the owner's channel, by the global one (``row``, the guard's)."""
    if source_locked(connection, source, now) is not None:
        return True
    return source != OWNER_CHANNEL and _locked_until(row, now) is not None


def _locked_until(row: Any, now: datetime) -> datetime | None:
    if row.locked_until is None:
        return None
    until = datetime.fromisoformat(row.locked_until)
    return until if until > now else None


def _recent(row: Any, now: datetime) -> list[str]:
    """The failures of ``row`` still inside the window ending ``now``."""
    times = json.loads(row.failures)
    return [t for t in times if datetime.fromisoformat(t) > now - FAILURE_WINDOW]
