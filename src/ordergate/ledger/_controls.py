"""Controls shared by every process on the ledger: the pause flag (kill switch) and each
connection's own (``pause@<digest>``, ``_connection_pause``), each account's equity
high-water mark for the drawdown breaker (``high_water_mark:<account>``) and session-start
equity for the daily-loss halt (``session_start_equity:<account>``), the last
time a breaker refused an order on each account (``breaker_trip:<account>``: the cooldown
counts from it), and the policy the owner last applied.

A ledger written before the marks were kept per account holds one ledger-wide
``high_water_mark`` and ``session_start_equity``: never written now, and read as an account's
own until that account has one (fail closed: the mark it was trading under stays, and the
first raise of the account's own mark starts from it).

Each is one row of ``controls`` holding canonical JSON, and each write of one is chained
(``_control_chain``), so ``verify`` finds a row edited by hand. Pausing, resuming and applying a
policy are also written to the decisions journal, so the record says who stopped trading or
changed the rules, when and why. The applied policy is kept whole (its TOML text and its
SHA-256), so a later file can be compared with it key by key.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, insert, select, update

from ordergate.core import Clock, inert, to_wire
from ordergate.ledger._canonical import canonical_json
from ordergate.ledger._connection_pause import connection_pause_key
from ordergate.ledger._control_chain import append_control
from ordergate.ledger._equity import mark_equity, marked_near
from ordergate.ledger._schema import controls, decisions
from ordergate.store import Statement, iso, parse_iso, reading, take_locks, write_transaction

__all__ = [
    "BREAKER_TRIP_KEY",
    "HWM_KEY",
    "PAUSE_KEY",
    "SESSION_KEY",
    "AppliedPolicy",
    "Controls",
    "PauseState",
    "SessionEquity",
    "hwm_key",
    "later_trip",
    "pause_of",
    "paused_from",
    "policy_sha256",
    "read_pause",
    "session_key",
    "session_of",
    "trip_key",
    "tripped_at",
]

PAUSE_KEY = _PAUSE = "pause"
HWM_KEY = _HWM = "high_water_mark"
"""The ledger-wide mark written before marks were kept per account: read, never written."""
SESSION_KEY = _SESSION = "session_start_equity"
"""The ledger-wide session-start equity written before it was kept per account: read only."""
_POLICY = "applied_policy"
BREAKER_TRIP_KEY = _TRIP = "breaker_trip"
"""The ledger-wide trip written before trips were kept per account (ledger migration 0030):
never written now, and read as applying to every account (fail closed)."""


def hwm_key(account: str) -> str:
    """The control holding ``account``'s equity high-water mark."""
    return f"{_HWM}:{account}"


def session_key(account: str) -> str:
    """The control holding ``account``'s session-start equity."""
    return f"{_SESSION}:{account}"


def trip_key(account: str) -> str:
    """The control holding when a breaker was last found tripped on ``account``."""
    return f"{_TRIP}:{account}"


@dataclass(frozen=True, slots=True)
class PauseState:
    paused: bool
    reason: str = ""
    since: datetime | None = None


@dataclass(frozen=True, slots=True)
class SessionEquity:
    """Equity at the start of ``session`` (an exchange date such as ``2026-12-01``)."""

    session: str
    equity: Decimal


@dataclass(frozen=True, slots=True)
class AppliedPolicy:
    """The policy the owner last applied: its text, its SHA-256, when, and on what authority
    (``credential``: ``totp``, ``passphrase``, or ``none`` for a change that only tightens)."""

    sha256: str
    text: str
    applied_at: datetime
    credential: str


def policy_sha256(text: str) -> str:
    """The SHA-256 (hex) of a policy file's text, as recorded."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Built once and run on the driver's cursor (a decision reads them in ``_decision``'s one
# statement).
_VALUE = Statement(select(controls.c.value).where(controls.c.key == bindparam("b_key")))
_SET = Statement(update(controls).where(controls.c.key == bindparam("b_key")))
_INSERT = Statement(insert(controls))


def _read(connection: Connection, key: str) -> Any:
    value = _VALUE.scalar(connection, {"b_key": key})
    return None if value is None else json.loads(value)


def _read_own(connection: Connection, key: str, ledger_wide: str) -> Any:
    """An account's control (``key``), else the ledger-wide one kept from before."""
    own = _read(connection, key)
    return _read(connection, ledger_wide) if own is None else own


def _write(connection: Connection, key: str, value: object, now: datetime) -> None:
    # The controls' lock first (Postgres): two first writes of a key at once would both
    # insert its row, and the second fail.
    take_locks(connection, "controls")
    values = {"value": canonical_json(value), "updated_at": iso(now)}
    if not _SET.run(connection, {"b_key": key, **values}):
        _INSERT.run(connection, {"key": key, **values})
    # And on the controls' chain, in the same transaction (``_control_chain``).
    append_control(connection, key, values["value"], values["updated_at"])


def paused_from(stored_text: str | None) -> bool:
    """Whether the stored pause row (its JSON text, or ``None``) says paused."""
    return stored_text is not None and bool(json.loads(stored_text)["paused"])


def read_pause(connection: Connection) -> PauseState:
    """The pause flag as seen inside ``connection``'s transaction."""
    return pause_of(_read(connection, _PAUSE))


def pause_of(stored: Any) -> PauseState:
    """The pause flag its stored row's JSON (``None``: never paused) says."""
    if not stored or not stored["paused"]:
        return PauseState(False)
    return PauseState(True, stored["reason"], parse_iso(stored["since"]))


def tripped_at(stored: Any) -> datetime | None:
    """When a breaker was last found tripped, as its stored row's JSON says (``None``:
    never)."""
    return None if stored is None else parse_iso(stored["at"])


def later_trip(ledger_wide: Any, own: Any) -> datetime | None:
    """When a breaker was last found tripped on an account: its own trip's row, or the
    ledger-wide one written before trips were kept per account, whichever is later (each
    its stored JSON, ``None``: none)."""
    instants = [at for at in (tripped_at(ledger_wide), tripped_at(own)) if at is not None]
    return max(instants, default=None)


def session_of(stored: Any) -> SessionEquity | None:
    """The session-start equity its stored row's JSON (``None``: none yet) says."""
    return None if stored is None else SessionEquity(stored[0], Decimal(stored[1]))


class Controls:
    """The pause flag, each account's high-water mark, session-start equity and breaker
    trip, and the applied policy."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def pause(self, reason: str = "", *, by: str = "operator") -> PauseState:
        """Refuse every new filing from now on, in every process sharing the ledger. The reason
        is kept inert (``ordergate.core.inert``): an agent may pause, and write it."""
        reason = inert(reason)
        now = self._clock.now()
        since = iso(now)
        with write_transaction(self._engine, "filings") as connection:
            _write(connection, _PAUSE, {"paused": True, "reason": reason, "since": since}, now)
            _journal(connection, now, by, "pause", reason)
        return PauseState(True, reason, parse_iso(since))

    def resume(self, *, by: str = "operator") -> PauseState:
        now = self._clock.now()
        with write_transaction(self._engine, "filings") as connection:
            _write(connection, _PAUSE, {"paused": False}, now)
            _journal(connection, now, by, "resume", "")
        return PauseState(False)

    def pause_state(self) -> PauseState:
        with reading(self._engine) as connection:
            return read_pause(connection)

    def pause_connection(self, digest: str, reason: str = "", *, by: str) -> PauseState:
        """Refuse every new order of the connection whose digest is ``digest`` (its own and
        its bound callers' filings, ``_connection_pause``) from now on, in every process
        sharing the ledger; journalled under ``by`` like the rail-wide pause."""
        reason = inert(reason)
        now = self._clock.now()
        since = iso(now)
        stored = {"paused": True, "reason": reason, "since": since}
        with write_transaction(self._engine, "filings") as connection:
            _write(connection, connection_pause_key(digest), stored, now)
            _journal(connection, now, by, "connection_pause", reason, {"connection": digest})
        return PauseState(True, reason, parse_iso(since))

    def resume_connection(self, digest: str, *, by: str) -> PauseState:
        """Lift the pause of the connection whose digest is ``digest`` (journalled)."""
        now = self._clock.now()
        with write_transaction(self._engine, "filings") as connection:
            _write(connection, connection_pause_key(digest), {"paused": False}, now)
            _journal(connection, now, by, "connection_resume", "", {"connection": digest})
        return PauseState(False)

    def connection_pause(self, digest: str) -> PauseState:
        """The pause of the connection whose digest is ``digest`` (its own, not the rail's)."""
        with reading(self._engine) as connection:
            return pause_of(_read(connection, connection_pause_key(digest)))

    def high_water_mark(self, account: str) -> Decimal | None:
        """``account``'s equity high-water mark (``None``: none yet)."""
        with reading(self._engine) as connection:
            stored = _read_own(connection, hwm_key(account), _HWM)
        return None if stored is None else Decimal(stored)

    def set_high_water_mark(self, equity: Decimal, *, account: str) -> None:
        """``account``'s mark becomes ``equity``, up or down (another account's stays)."""
        with write_transaction(self._engine) as connection:
            _write(connection, hwm_key(account), to_wire(equity), self._clock.now())

    def raise_high_water_mark(
        self,
        equity: Decimal,
        *,
        account: str,
        source: str = "broker",
        at: datetime | None = None,
    ) -> Decimal:
        """``account``'s mark becomes ``max(mark, equity)`` atomically; returns the mark. The
        same transaction marks that account's equity curve at ``at`` (now), read from
        ``source``, unless it has a mark from the last minute (``mark_equity``).

        When the mark read is at or above ``equity`` and no curve mark is due, nothing is
        written, so no write transaction is taken (the answer is the mark as of that read, as
        the write transaction's would be as of its own): the common case, equity below its
        high and marked this minute, costs one read instead of the write lock and a commit."""
        now = self._clock.now()
        when = at or now
        key = hwm_key(account)
        with reading(self._engine) as connection:
            stored = _read_own(connection, key, _HWM)
            due = not marked_near(connection, account, when)
        if stored is not None and Decimal(stored) >= equity and not due:
            return Decimal(stored)
        with write_transaction(self._engine) as connection:
            # The controls' lock before the read: two first marks at once (no row yet) would
            # both insert it, and a mark read before another's write could lower it.
            take_locks(connection, "controls")
            own = _read(connection, key)
            stored = _read(connection, _HWM) if own is None else own
            mark = equity if stored is None else max(Decimal(stored), equity)
            if own is None or mark != Decimal(stored):
                _write(connection, key, to_wire(mark), now)
            mark_equity(connection, account, equity, source=source, at=when)
        return mark

    def breaker_tripped(self, at: datetime, reasons: Sequence[str], *, account: str) -> None:
        """A breaker refused an order on ``account`` at ``at`` (the deciding clock's
        instant) for ``reasons``: that account's cooldown after a trip counts from the latest
        such instant (another account's does not)."""
        key = trip_key(account)
        with write_transaction(self._engine) as connection:
            take_locks(connection, "controls")
            stored = _read(connection, key)
            if stored is not None and parse_iso(stored["at"]) >= at:
                return
            _write(connection, key, {"at": iso(at), "reasons": sorted(reasons)}, self._clock.now())

    def breaker_tripped_at(self, account: str) -> datetime | None:
        """When a breaker was last found tripped on ``account`` (``later_trip``)."""
        with reading(self._engine) as connection:
            return later_trip(_read(connection, _TRIP), _read(connection, trip_key(account)))

    def session_start_equity(self, account: str) -> SessionEquity | None:
        """``account``'s equity at the start of the session it last traded in."""
        with reading(self._engine) as connection:
            return session_of(_read_own(connection, session_key(account), _SESSION))

    def set_session_start_equity(self, session: str, equity: Decimal, *, account: str) -> None:
        with write_transaction(self._engine) as connection:
            _write(connection, session_key(account), [session, to_wire(equity)], self._clock.now())

    def applied_policy(self) -> AppliedPolicy | None:
        """The policy the owner last applied; ``None`` before any."""
        with reading(self._engine) as connection:
            stored = _read(connection, _POLICY)
        if stored is None:
            return None
        return AppliedPolicy(
            sha256=stored["sha256"],
            text=stored["text"],
            applied_at=parse_iso(stored["applied_at"]),
            credential=stored["credential"],
        )

    def apply_policy(
        self, text: str, *, credential: str, loosened: Sequence[str], changed: Sequence[str]
    ) -> AppliedPolicy:
        """Record ``text`` as the policy in force, with a journal entry naming the keys that
        changed and those that loosened (which an owner code authorised: ``credential``)."""
        now = self._clock.now()
        digest = policy_sha256(text)
        record = {"sha256": digest, "text": text, "applied_at": iso(now), "credential": credential}
        with write_transaction(self._engine) as connection:
            _write(connection, _POLICY, record, now)
            connection.execute(
                insert(decisions).values(
                    created_at=iso(now),
                    identity="owner",
                    filing_id=None,
                    kind="policy_applied",
                    why="the policy in force is now sha256:" + digest,
                    detail=canonical_json(
                        {
                            "sha256": digest,
                            "credential": credential,
                            "changed": sorted(changed),
                            "loosened": sorted(loosened),
                        }
                    ),
                )
            )
        return AppliedPolicy(digest, text, parse_iso(iso(now)), credential)


def _journal(
    connection: Connection,
    now: datetime,
    by: str,
    kind: str,
    why: str,
    detail: dict[str, str] | None = None,
) -> None:
    connection.execute(
        insert(decisions).values(
            created_at=iso(now),
            identity=by,
            filing_id=None,
            kind=kind,
            why=why,
            detail=canonical_json(detail or {}),
        )
    )
