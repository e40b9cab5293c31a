"""``Delays``: an owner act that loosens waits, on the ledger, before it takes effect.

An act that loosens (a looser policy, arming live, a trading caller token, a passkey, an
approval above the owner's threshold, looser delay settings) is authorised as every owner act
is, then recorded here as a ``DelayedAct`` with ``effective_at = authorised_at + delay`` (the
delay in force, ``owner_settings``) instead of being done. Until then it is only announced:
the journal says so at once (``owner_act_delayed``), and the desk tells the webhook and the
console. Any tightening, a pause, or the owner's cancel (no code: it only makes things safer)
cancels what is still pending (``owner_act_cancelled``).

When it is due, ``claim_due`` moves it ``pending → applied`` in a write transaction (``BEGIN
IMMEDIATE`` on SQLite, row locks on Postgres) and journals ``owner_act_effective`` in the same
transaction, so two replicas claiming at once apply it once; whoever claimed it then does it
(``ordergate.gateway.desk``), and marks it ``failed`` when that cannot be done. A change of
the delay settings is done in the claiming transaction itself. A trading caller token, once
applied, waits to be collected (``collect``: once, within ``COLLECT_WITHIN``), since the token
itself is never stored.

Security time (``clock``) is the wall clock, or a test's injected one.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, insert, select, update

from ordergate.core import Clock, RealtimeClock, to_wire
from ordergate.ledger import Ledger, write_transaction
from ordergate.owner._acts import OwnerAct
from ordergate.owner._authority import OWNER_IDENTITY
from ordergate.owner._enrolment import DelaySettings
from ordergate.owner._schema import OWNER_KEY, owner_delayed, owner_settings

__all__ = ["COLLECT_WITHIN", "DelayState", "DelayedAct", "Delays"]

COLLECT_WITHIN = timedelta(hours=24)
"""How long a trading caller token that has come due may still be collected."""


class DelayState(StrEnum):
    PENDING = "pending"
    APPLIED = "applied"
    CANCELLED = "cancelled"
    FAILED = "failed"
    COLLECTED = "collected"


@dataclass(frozen=True, slots=True)
class DelayedAct:
    """An authorised act that loosens, waiting for ``effective_at``."""

    id: str
    act: OwnerAct
    summary: str
    payload: Mapping[str, Any]
    state: DelayState
    authorised_at: datetime
    effective_at: datetime
    settled_at: datetime | None = None
    settled_by: str | None = None
    note: str | None = None

    def as_json(self, *, now: datetime | None = None) -> dict[str, Any]:
        """The act as announced and listed (never a secret: payloads hold none)."""
        body: dict[str, Any] = {
            "id": self.id,
            "act": self.act.value,
            "summary": self.summary,
            "state": self.state.value,
            "authorised_at": self.authorised_at.isoformat(),
            "effective_at": self.effective_at.isoformat(),
            "settled_at": self.settled_at.isoformat() if self.settled_at else None,
            "note": self.note,
        }
        if now is not None and self.state is DelayState.PENDING:
            body["seconds_left"] = max(0, int((self.effective_at - now).total_seconds()))
        return body


class Delays:
    """The delayed acts and the delay settings in force, on one ledger."""

    def __init__(self, ledger: Ledger, *, clock: Clock | None = None) -> None:
        self._ledger = ledger
        self._clock = clock or RealtimeClock()

    def now(self) -> datetime:
        return self._clock.now()

    def settings(self) -> DelaySettings:
        """The delay settings in force."""
        with self._ledger.engine.connect() as db:
            return _settings(db)

    def defer(self, act: OwnerAct, summary: str, payload: Mapping[str, Any]) -> DelayedAct | None:
        """Record ``act`` (already authorised) to take effect after the delay in force, and
        journal that it waits; ``None`` when the owner set no delay (do it now, then)."""
        now = self.now()
        with write_transaction(self._ledger.engine) as tx:
            delay = _settings(tx).loosen_delay
            if not delay:
                return None
            delayed = DelayedAct(
                id=str(uuid.uuid4()),
                act=act,
                summary=summary,
                payload=dict(payload),
                state=DelayState.PENDING,
                authorised_at=now,
                effective_at=now + delay,
            )
            tx.execute(
                insert(owner_delayed).values(
                    id=delayed.id,
                    act=act.value,
                    summary=summary,
                    payload=json.dumps(delayed.payload, sort_keys=True),
                    state=DelayState.PENDING.value,
                    authorised_at=now.isoformat(),
                    effective_at=delayed.effective_at.isoformat(),
                )
            )
            self._journal(
                tx,
                "owner_act_delayed",
                f"owner act {act.value} waits until {delayed.effective_at.isoformat()}: {summary}",
                delayed,
            )
        return delayed

    def pending(self) -> list[DelayedAct]:
        """The acts still waiting, the soonest first."""
        with self._ledger.engine.connect() as db:
            return _pending(db)

    def recent(self, limit: int = 20) -> list[DelayedAct]:
        """The latest acts, whatever their state, the newest first."""
        with self._ledger.engine.connect() as db:
            rows = db.execute(
                select(owner_delayed).order_by(owner_delayed.c.authorised_at.desc()).limit(limit)
            )
            return [_act(row) for row in rows]

    def cancel(self, act_id: str | None, *, why: str, by: str) -> list[DelayedAct]:
        """Cancel the pending act ``act_id`` (every pending act when ``None``); what was
        cancelled, each journalled."""
        now = self.now()
        cancelled = []
        with write_transaction(self._ledger.engine) as tx:
            for found in _pending(tx, for_update=True):
                if act_id is not None and found.id != act_id:
                    continue
                done = _settle(tx, found, DelayState.CANCELLED, now, by=by, note=why)
                self._journal(
                    tx,
                    "owner_act_cancelled",
                    f"owner act {found.act.value} cancelled before it took effect: {why}",
                    done,
                )
                cancelled.append(done)
        return cancelled

    def claim_due(self, acts: Collection[OwnerAct]) -> list[DelayedAct]:
        """Claim the pending acts of the kinds in ``acts`` whose time has come (applied, and
        journalled as in effect, in one write transaction: claimed once whoever else looks);
        a change of the delay settings (``OwnerAct.ENROL``) is made here too."""
        now = self.now()
        with self._ledger.engine.connect() as db:
            # A cheap read first: the write lock is taken only when something is due.
            if not any(found.effective_at <= now for found in _pending(db)):
                return []
        claimed = []
        with write_transaction(self._ledger.engine) as tx:
            for found in _pending(tx, for_update=True):
                if found.effective_at > now:
                    continue
                if found.act is OwnerAct.ENROL:
                    _store_settings(tx, DelaySettings.from_json(found.payload), now)
                elif found.act not in acts:
                    continue
                done = _settle(tx, found, DelayState.APPLIED, now, by="delay")
                self._journal(
                    tx, "owner_act_effective", f"owner act {found.act.value} in effect", done
                )
                claimed.append(done)
        return claimed

    def failed(self, claimed: DelayedAct, why: str) -> None:
        """An applied act that could not be done after all: marked and journalled."""
        now = self.now()
        with write_transaction(self._ledger.engine) as tx:
            done = _settle(tx, claimed, DelayState.FAILED, now, by="delay", note=why)
            self._journal(
                tx, "owner_act_failed", f"owner act {claimed.act.value} failed: {why}", done
            )

    def collectable(self, act: OwnerAct, payload: Mapping[str, Any]) -> bool:
        """Whether ``collect`` would find an act now (a read: nothing is collected)."""
        now = self.now()
        wanted = json.dumps(dict(payload), sort_keys=True)
        with self._ledger.engine.connect() as db:
            rows = db.execute(
                select(owner_delayed)
                .where(owner_delayed.c.state == DelayState.APPLIED.value)
                .where(owner_delayed.c.act == act.value)
                .where(owner_delayed.c.payload == wanted)
            ).all()
        return any(_act(row).effective_at + COLLECT_WITHIN >= now for row in rows)

    def collect(self, act: OwnerAct, payload: Mapping[str, Any]) -> DelayedAct | None:
        """The applied act of kind ``act`` with exactly ``payload``, not yet collected and
        in effect for less than ``COLLECT_WITHIN``, now collected; ``None`` when none is."""
        now = self.now()
        wanted = json.dumps(dict(payload), sort_keys=True)
        with write_transaction(self._ledger.engine) as tx:
            rows = tx.execute(
                select(owner_delayed)
                .where(owner_delayed.c.state == DelayState.APPLIED.value)
                .where(owner_delayed.c.act == act.value)
                .where(owner_delayed.c.payload == wanted)
                .with_for_update()
            ).all()
            for row in rows:
                found = _act(row)
                if found.effective_at + COLLECT_WITHIN < now:
                    continue
                done = _settle(tx, found, DelayState.COLLECTED, now, by=OWNER_IDENTITY)
                self._journal(tx, "owner_act_collected", f"owner act {act.value} collected", done)
                return done
        return None

    def ask(self, wanted: DelaySettings, *, first: bool = False) -> DelayedAct | None:
        """The owner asks for ``wanted`` (a new enrolment): settings as tight or tighter than
        those in force, or those of the first enrolment, take effect at once; looser ones
        wait (the delayed act, returned)."""
        now = self.now()
        with write_transaction(self._ledger.engine) as tx:
            current = _settings(tx)
            if current == wanted:
                return None
            if first or not wanted.looser_than(current):
                _store_settings(tx, wanted, now)
                self._ledger.journal.append(
                    identity=OWNER_IDENTITY,
                    kind="owner_delays_set",
                    why="the owner's delay settings tightened",
                    detail={**wanted.to_json(), "at": now.isoformat()},
                    connection=tx,
                )
                return None
        summary = (
            f"delay settings: loosen delay {_span(wanted.loosen_delay)}, approvals above "
            + (f"${to_wire(wanted.approve_above)}" if wanted.approve_above is not None else "none")
            + " wait"
        )
        return self.defer(OwnerAct.ENROL, summary, wanted.to_json())

    def _journal(self, tx: Connection, kind: str, why: str, delayed: DelayedAct) -> None:
        detail = delayed.as_json()
        detail.pop("note", None)
        if delayed.note:
            detail["note"] = delayed.note
        self._ledger.journal.append(
            identity=OWNER_IDENTITY, kind=kind, why=why, detail=detail, connection=tx
        )


def _span(delay: timedelta) -> str:
    seconds = int(delay.total_seconds())
    if seconds % 3600 == 0 and seconds:
        return f"{seconds // 3600}h"
    if seconds % 60 == 0 and seconds:
        return f"{seconds // 60}m"
    return f"{seconds}s"


def _settings(db: Connection) -> DelaySettings:
    row = db.execute(select(owner_settings).where(owner_settings.c.key == OWNER_KEY)).one()
    above = Decimal(row.approve_above) if row.approve_above is not None else None
    return DelaySettings(timedelta(seconds=row.loosen_delay_s), above)


def _store_settings(tx: Connection, wanted: DelaySettings, now: datetime) -> None:
    stored = wanted.to_json()
    tx.execute(
        update(owner_settings)
        .where(owner_settings.c.key == OWNER_KEY)
        .values(
            loosen_delay_s=stored["loosen_delay_s"],
            approve_above=stored["approve_above"],
            updated_at=now.isoformat(),
        )
    )


def _pending(db: Connection, *, for_update: bool = False) -> list[DelayedAct]:
    query = select(owner_delayed).where(owner_delayed.c.state == DelayState.PENDING.value)
    if for_update:
        query = query.with_for_update()
    return sorted((_act(row) for row in db.execute(query)), key=lambda a: a.effective_at)


def _settle(
    tx: Connection,
    found: DelayedAct,
    state: DelayState,
    now: datetime,
    *,
    by: str,
    note: str | None = None,
) -> DelayedAct:
    """``found`` moved on to ``state``; ``ValueError`` when another transaction moved it
    first (the row locks make that impossible; this keeps it so)."""
    moved = tx.execute(
        update(owner_delayed)
        .where(owner_delayed.c.id == found.id)
        .where(owner_delayed.c.state == found.state.value)
        .values(state=state.value, settled_at=now.isoformat(), settled_by=by, note=note)
    )
    if moved.rowcount != 1:
        raise ValueError(f"the delayed act {found.id} was settled elsewhere")
    return DelayedAct(
        id=found.id,
        act=found.act,
        summary=found.summary,
        payload=found.payload,
        state=state,
        authorised_at=found.authorised_at,
        effective_at=found.effective_at,
        settled_at=now,
        settled_by=by,
        note=note,
    )


def _act(row: Any) -> DelayedAct:
    return DelayedAct(
        id=row.id,
        act=OwnerAct(row.act),
        summary=row.summary,
        payload=json.loads(row.payload),
        state=DelayState(row.state),
        authorised_at=datetime.fromisoformat(row.authorised_at),
        effective_at=datetime.fromisoformat(row.effective_at),
        settled_at=datetime.fromisoformat(row.settled_at) if row.settled_at else None,
        settled_by=row.settled_by,
        note=row.note,
    )
