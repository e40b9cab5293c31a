"""``PreparedAct``: an owner act as the gateway prepared it, for the owner to authorise once.

An owner act through the owner channel is two steps. ``prepare`` (no code) stores what will
be done — the act, its canonical parameters, the summary lines the owner is shown, and the
digest over all three and the state it was built on (``act_digest``) — for ``PREPARED_TTL``.
``authorize`` then sends the act's id, that digest and the owner code; the code is spent on
the digest only (``OwnerAuthority.authorize``) and the act runs exactly as prepared, once.

``PreparedActs`` keeps them in the ledger's database (``owner_prepared_acts``, every replica
sees them). ``claim`` moves a prepared act to ``running`` in one conditional update, so two
requests racing one act run it once; ``finish`` stores its answer (a refusal too), which a
retry of the same code for the same act is given again. Expired acts are swept as new ones
are prepared (the expiry index bounds the sweep).

Refusals are ``PreparedRefused`` with a stable ``reason``: ``prepared_act_unknown``,
``prepared_act_expired``, ``prepared_act_digest`` (the digest sent is not the stored one),
``prepared_act_changed`` (what it was prepared on changed since), ``prepared_act_used``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update

from ordergate.core import Clock, RealtimeClock
from ordergate.ledger import write_transaction
from ordergate.owner._acts import OwnerAct, act_digest
from ordergate.owner._errors import OwnerError
from ordergate.owner._schema import prepared_acts

__all__ = [
    "PREPARED_TTL",
    "PreparedAct",
    "PreparedActs",
    "PreparedRefused",
]

PREPARED_TTL = timedelta(minutes=5)

_SENTENCES = {
    "prepared_act_unknown": "no prepared act has that id",
    "prepared_act_expired": "that prepared act expired; prepare it again",
    "prepared_act_digest": "the digest sent is not the prepared act's; nothing was done",
    "prepared_act_changed": "what that act was prepared on changed since; prepare it again",
    "prepared_act_used": "that prepared act was already authorised",
}
_STATUS = {
    "prepared_act_unknown": 404,
    "prepared_act_expired": 410,
    "prepared_act_digest": 409,
    "prepared_act_changed": 409,
    "prepared_act_used": 409,
}


class PreparedRefused(OwnerError):
    """A prepared act cannot be authorised: ``reason`` is a stable code, ``status`` its HTTP
    status."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.code = reason
        self.status = _STATUS[reason]
        super().__init__(_SENTENCES[reason])


@dataclass(frozen=True, slots=True)
class PreparedAct:
    """One act as prepared: what runs (``act``, ``params``), what the owner was shown
    (``summary``), the digest a code is spent on, and whether it needs a code at all."""

    id: str
    act: OwnerAct
    params: Mapping[str, Any]
    summary: tuple[str, ...]
    digest: str
    needs_code: bool
    expires_at: datetime
    state: str = "prepared"
    outcome: Mapping[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "act_id": self.id,
            "act": self.act.value,
            "summary": list(self.summary),
            "digest": self.digest,
            "needs_code": self.needs_code,
            "expires_at": self.expires_at.isoformat(),
        }


class PreparedActs:
    """The prepared acts on one ledger's database."""

    def __init__(self, engine: Engine, *, clock: Clock | None = None) -> None:
        self._engine = engine
        self._clock = clock or RealtimeClock()  # security time: the wall clock

    def prepare(
        self,
        act: OwnerAct,
        params: Mapping[str, Any],
        summary: Sequence[str],
        *,
        binds: Mapping[str, Any],
        needs_code: bool,
        ttl: timedelta = PREPARED_TTL,
    ) -> PreparedAct:
        """Store ``act`` as prepared (and sweep the expired ones); its ``PreparedAct``."""
        now = self._clock.now()
        prepared = PreparedAct(
            id=str(uuid.uuid4()),
            act=act,
            params=dict(params),
            summary=tuple(summary),
            digest=act_digest(act, params, summary, binds),
            needs_code=needs_code,
            expires_at=now + ttl,
        )
        with write_transaction(self._engine) as tx:
            tx.execute(delete(prepared_acts).where(prepared_acts.c.expires_at < now.isoformat()))
            tx.execute(
                insert(prepared_acts).values(
                    id=prepared.id,
                    act=act.value,
                    params=json.dumps(prepared.params, sort_keys=True),
                    summary=json.dumps(list(prepared.summary)),
                    digest=prepared.digest,
                    needs_code=needs_code,
                    created_at=now.isoformat(),
                    expires_at=prepared.expires_at.isoformat(),
                    state="prepared",
                    outcome=None,
                )
            )
        return prepared

    def get(self, act_id: str, digest: str) -> PreparedAct:
        """The prepared act ``act_id`` if ``digest`` is its digest; ``PreparedRefused``
        otherwise (unknown, expired, another digest)."""
        with self._engine.connect() as db:
            row = db.execute(select(prepared_acts).where(prepared_acts.c.id == act_id)).first()
        if row is None:
            raise PreparedRefused("prepared_act_unknown")
        if row.digest != digest:
            raise PreparedRefused("prepared_act_digest")
        if datetime.fromisoformat(row.expires_at) <= self._clock.now() and row.state != "done":
            raise PreparedRefused("prepared_act_expired")
        return PreparedAct(
            id=row.id,
            act=OwnerAct(row.act),
            params=json.loads(row.params),
            summary=tuple(json.loads(row.summary)),
            digest=row.digest,
            needs_code=bool(row.needs_code),
            expires_at=datetime.fromisoformat(row.expires_at),
            state=row.state,
            outcome=json.loads(row.outcome) if row.outcome is not None else None,
        )

    def claim(self, act_id: str) -> bool:
        """Move ``act_id`` from prepared to running; ``False`` when another request did."""
        with write_transaction(self._engine) as tx:
            moved = tx.execute(
                update(prepared_acts)
                .where(prepared_acts.c.id == act_id, prepared_acts.c.state == "prepared")
                .values(state="running")
            )
        return bool(moved.rowcount)

    def finish(self, act_id: str, outcome: Mapping[str, Any]) -> None:
        """Keep the answer ``act_id`` ran to (a refusal's too): a retry is given it again."""
        with write_transaction(self._engine) as tx:
            tx.execute(
                update(prepared_acts)
                .where(prepared_acts.c.id == act_id)
                .values(state="done", outcome=json.dumps(dict(outcome), default=str))
            )
