"""What lives beside the filings: the broker's orders, their executions, approvals bound to
exact terms, and the decisions journal.

These rows are projections and working state, not the audit chain: an order's state moves
as the broker reports it, an approval goes from ``pending`` to a decision. Each status change
of a filing that matters for the record is also appended to the chained ``filing_events`` by
the caller (``Ledger.record_status``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any
from uuid import UUID, uuid4

from sqlalchemy import Connection, Engine, bindparam, insert, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from ordergate.core import Clock, inert, to_wire
from ordergate.ledger._canonical import canonical_json
from ordergate.ledger._errors import LedgerError, UnknownFilingError
from ordergate.ledger._queries import filing_account
from ordergate.ledger._schema import (
    approvals,
    decision_snapshots,
    decisions,
    executions,
    filings,
    orders,
)
from ordergate.store import Statement, iso, parse_iso, reading, write_transaction

__all__ = [
    "DEFAULT_APPROVAL_TTL",
    "Approval",
    "ApprovalState",
    "Approvals",
    "DecisionEntry",
    "Execution",
    "IdentityFill",
    "Journal",
    "OrderRecord",
    "Orders",
]

DEFAULT_APPROVAL_TTL = timedelta(minutes=15)


@dataclass(frozen=True, slots=True)
class OrderRecord:
    """The broker's order for a filing (``ref_id`` = the filing's id)."""

    ref_id: UUID
    broker_order_id: str | None
    state: str
    cumulative_quantity: Decimal
    average_price: Decimal | None
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Execution:
    """One fill as the broker reported it; the basis source is always ``fill``."""

    id: str
    ref_id: UUID
    broker_order_id: str
    quantity: Decimal
    price: Decimal
    executed_at: datetime
    basis_source: str = "fill"

    @property
    def notional(self) -> Decimal:
        return self.quantity * self.price


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class Approval:
    id: UUID
    filing_id: UUID
    terms_sha256: str
    created_at: datetime
    expires_at: datetime
    state: ApprovalState
    decided_at: datetime | None
    decided_by: str | None
    notional: Decimal | None = None
    """The estimate the owner is asked to approve; ``None``: the filing's own notional."""


@dataclass(frozen=True, slots=True)
class DecisionEntry:
    """One line of the decisions journal: who decided what, about which filing, and why."""

    seq: int
    created_at: datetime
    identity: str
    filing_id: UUID | None
    kind: str
    why: str
    detail: dict[str, Any]


# The order path's statements, built once and run on the driver's cursor
# (``ordergate.store.Statement``).
_ORDER_BY_REF = Statement(select(orders).where(orders.c.ref_id == bindparam("b_key")))
_ORDER_BY_BROKER_ID = Statement(
    select(orders).where(orders.c.broker_order_id == bindparam("b_key"))
)
_SET_ORDER = Statement(update(orders).where(orders.c.ref_id == bindparam("b_key")))
_INSERT_ORDER = Statement(insert(orders))
_INSERT_EXECUTION = Statement(insert(executions))
_EXECUTIONS_OF = Statement(
    select(executions)
    .where(executions.c.ref_id == bindparam("b_key"))
    .order_by(executions.c.executed_at, executions.c.id)
)
_INSERT_DECISION = Statement(insert(decisions))
# The executions of an identity's filings from a ``seq`` on (ix_filings_identity: identity,
# seq, a range; each filing's executions by ix_executions_ref_id), oldest first.
_FILLS_FROM = Statement(
    select(
        filings.c.id,
        filings.c.terms,
        executions.c.quantity,
        executions.c.price,
        executions.c.executed_at,
    )
    .select_from(filings.join(executions, executions.c.ref_id == filings.c.id))
    .where(filings.c.identity == bindparam("b_identity"), filings.c.seq >= bindparam("b_low"))
    .order_by(executions.c.executed_at, filings.c.seq, executions.c.id)
)
# An identity's filings before a ``seq``, newest first, a page at a time (ix_filings_identity
# read backwards).
_FILED_BEFORE = Statement(
    select(filings.c.seq, filings.c.created_at)
    .where(filings.c.identity == bindparam("b_identity"), filings.c.seq < bindparam("b_before"))
    .order_by(filings.c.seq.desc())
    .limit(bindparam("b_page"))
)
_PAGE = 500
_LAST_SEQ = 2**62


def _lowest_seq(
    connection: Connection, identity: str, since: datetime | None, limit: int
) -> int | None:
    """The oldest ``seq`` of ``identity``'s filings filed at or after ``since`` (every one,
    however many) and of the ``limit`` filed before them; ``None`` when it has none. Read
    backwards from the newest, a page at a time, so the cost is the window's filings and
    ``limit`` more, never the identity's history."""
    low: int | None = None
    before, earlier = _LAST_SEQ, 0
    while True:
        page = _FILED_BEFORE.rows(
            connection, {"b_identity": identity, "b_before": before, "b_page": _PAGE}
        )
        for row in page:
            low = int(row.seq)
            if earlier == 0 and since is not None and parse_iso(row.created_at) >= since:
                continue  # in the window
            earlier += 1
            if earlier >= limit:
                return low
        if len(page) < _PAGE:
            return low
        before = int(page[-1].seq)


@dataclass(frozen=True, slots=True)
class IdentityFill:
    """One execution of an identity's filing: the filing, its symbol and side, the fill."""

    ref_id: UUID
    symbol: str
    side: str
    quantity: Decimal
    price: Decimal
    executed_at: datetime


def _filing_exists(connection: Connection, key: str) -> None:
    filing_account(connection, key)  # UnknownFilingError when none


class Orders:
    """Broker orders by ``ref_id`` and their executions."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def record(
        self,
        ref_id: UUID | str,
        *,
        state: str,
        broker_order_id: str | None = None,
        cumulative_quantity: Decimal = Decimal(0),
        average_price: Decimal | None = None,
    ) -> OrderRecord:
        """Insert or update the order of filing ``ref_id`` as the broker last reported it."""
        key = str(ref_id)
        values = {
            "state": state,
            "cumulative_quantity": to_wire(cumulative_quantity),
            "average_price": None if average_price is None else to_wire(average_price),
            "updated_at": iso(self._clock.now()),
        }
        with write_transaction(self._engine) as connection:
            _filing_exists(connection, key)
            if broker_order_id is not None:
                values["broker_order_id"] = broker_order_id
            if not _SET_ORDER.run(connection, {"b_key": key, **values}):
                _INSERT_ORDER.run(connection, {"ref_id": key, **values})
        return self.get(key)

    def get(self, ref_id: UUID | str) -> OrderRecord:
        """The order of filing ``ref_id``; ``UnknownFilingError`` when none was recorded."""
        return self._one(_ORDER_BY_REF, str(ref_id))

    def by_broker_id(self, broker_order_id: str) -> OrderRecord:
        return self._one(_ORDER_BY_BROKER_ID, broker_order_id)

    def _one(self, query: Statement, key: str) -> OrderRecord:
        with reading(self._engine) as connection:
            row = query.first(connection, {"b_key": key})
        if row is None:
            raise UnknownFilingError(key)
        return OrderRecord(
            ref_id=UUID(row.ref_id),
            broker_order_id=row.broker_order_id,
            state=row.state,
            cumulative_quantity=Decimal(row.cumulative_quantity),
            average_price=None if row.average_price is None else Decimal(row.average_price),
            updated_at=parse_iso(row.updated_at),
        )

    def book_execution(self, execution: Execution) -> bool:
        """Book one fill; ``False`` when this execution id was already booked (idempotent)."""
        key = str(execution.ref_id)
        try:
            with write_transaction(self._engine) as connection:
                _filing_exists(connection, key)
                _INSERT_EXECUTION.run(
                    connection,
                    {
                        "id": execution.id, "ref_id": key,
                        "broker_order_id": execution.broker_order_id,
                        "quantity": to_wire(execution.quantity),
                        "price": to_wire(execution.price),
                        "executed_at": iso(execution.executed_at), "basis_source": "fill",
                    },
                )  # fmt: skip
        except IntegrityError:
            return False
        return True

    def fills_of(
        self, identity: str, *, limit: int, since: datetime | None = None
    ) -> list[IdentityFill]:
        """The executions of ``identity``'s filings filed at or after ``since`` (the
        ledger's time; every one, however many) and of its ``limit`` filings before them
        (without ``since``: its latest ``limit``), oldest first (at one instant, in filing
        order) (inside the decision's read when one is open). Cost: those filings and their
        executions, read by ``ix_filings_identity``."""
        if limit < 1:
            raise ValueError("limit must be positive")
        with reading(self._engine) as connection:
            low = _lowest_seq(connection, identity, since, limit)
            if low is None:
                return []
            rows = _FILLS_FROM.rows(connection, {"b_identity": identity, "b_low": low})
        fills = []
        for row in rows:
            terms = json.loads(row.terms)
            fills.append(
                IdentityFill(
                    ref_id=UUID(row.id),
                    symbol=str(terms.get("symbol", "")),
                    side=str(terms.get("side", "")),
                    quantity=Decimal(row.quantity),
                    price=Decimal(row.price),
                    executed_at=parse_iso(row.executed_at),
                )
            )
        return fills

    def executions(self, ref_id: UUID | str) -> list[Execution]:
        with reading(self._engine) as connection:
            rows = _EXECUTIONS_OF.rows(connection, {"b_key": str(ref_id)})
        return [
            Execution(
                id=row.id,
                ref_id=UUID(row.ref_id),
                broker_order_id=row.broker_order_id,
                quantity=Decimal(row.quantity),
                price=Decimal(row.price),
                executed_at=parse_iso(row.executed_at),
                basis_source=row.basis_source,
            )
            for row in rows
        ]


class Approvals:
    """Approvals bound to the SHA-256 of a filing's exact terms, with a time to live."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def now(self) -> datetime:
        """The time approvals are stamped and expire in (security time)."""
        return self._clock.now()

    def create(
        self,
        filing_id: UUID | str,
        terms_sha256: str,
        *,
        ttl: timedelta = DEFAULT_APPROVAL_TTL,
        notional: Decimal | None = None,
    ) -> Approval:
        """A pending approval of a filing's terms, asking the owner to approve ``notional``
        (``None``: the filing's own notional)."""
        if len(terms_sha256) != 64:
            raise ValueError("terms_sha256 is 64 hex digits")
        now = self._clock.now()
        approval_id = str(uuid4())
        with write_transaction(self._engine) as connection:
            _filing_exists(connection, str(filing_id))
            connection.execute(
                insert(approvals).values(
                    id=approval_id, filing_id=str(filing_id), terms_sha256=terms_sha256.lower(),
                    created_at=iso(now), expires_at=iso(now + ttl),
                    state=ApprovalState.PENDING.value,
                    notional=None if notional is None else to_wire(notional),
                )
            )  # fmt: skip
        return self.get(approval_id)

    def get(self, approval_id: UUID | str) -> Approval:
        with reading(self._engine) as connection:
            row = connection.execute(
                select(approvals).where(approvals.c.id == str(approval_id))
            ).first()
        if row is None:
            raise LedgerError(f"no approval {approval_id}")
        return _approval(row)

    def pending(self) -> list[Approval]:
        """Approvals still pending and not yet expired by the clock, oldest first
        (ix_approvals_state: state, expires_at, so the cost is what is pending)."""
        now = iso(self._clock.now())
        with reading(self._engine) as connection:
            rows = connection.execute(
                select(approvals)
                .where(
                    approvals.c.state == ApprovalState.PENDING.value,
                    approvals.c.expires_at > now,
                )
                .order_by(approvals.c.created_at, approvals.c.id)
            )
            return [_approval(row) for row in rows]

    def overdue(self, *, now: datetime | None = None) -> list[Approval]:
        """Approvals still pending whose time to live has run out, oldest first (for the
        reconciler to expire and release; ix_approvals_state: state, expires_at)."""
        instant = iso(now if now is not None else self._clock.now())
        with reading(self._engine) as connection:
            rows = connection.execute(
                select(approvals)
                .where(
                    approvals.c.state == ApprovalState.PENDING.value,
                    approvals.c.expires_at <= instant,
                )
                .order_by(approvals.c.created_at, approvals.c.id)
            )
            return [_approval(row) for row in rows]

    def hold_until(self, approval_id: UUID | str, until: datetime) -> Approval | None:
        """Keep a pending, unexpired approval open until at least ``until`` (an approval the
        owner gave that waits the owner's delay); ``None`` when it is no longer pending or
        has expired. Never shortens its time to live."""
        now = iso(self._clock.now())
        key = str(approval_id)
        with write_transaction(self._engine) as connection:
            # Unchanged when it is decided, expired, or already lasts long enough.
            connection.execute(
                update(approvals)
                .where(
                    approvals.c.id == key,
                    approvals.c.state == ApprovalState.PENDING.value,
                    approvals.c.expires_at > now,
                    approvals.c.expires_at < iso(until),
                )
                .values(expires_at=iso(until))
            )
            row = connection.execute(select(approvals).where(approvals.c.id == key)).first()
        if row is None or row.state != ApprovalState.PENDING.value or row.expires_at <= now:
            return None
        return _approval(row)

    def for_filing(self, filing_id: UUID | str) -> Approval | None:
        """The latest approval of a filing, if it ever needed one (by the index on
        ``filing_id``)."""
        with reading(self._engine) as connection:
            row = connection.execute(
                select(approvals)
                .where(approvals.c.filing_id == str(filing_id))
                .order_by(approvals.c.created_at.desc(), approvals.c.id.desc())
                .limit(1)
            ).first()
        return None if row is None else _approval(row)

    def decide(
        self, approval_id: UUID | str, *, approve: bool, terms_sha256: str, by: str
    ) -> Approval:
        """Approve or deny a pending approval, once. An expired one becomes ``expired``; terms
        whose hash differs from the bound hash are denied. Returns the approval as it stands
        (decided by this call or, if it was no longer pending, as decided before)."""
        claimed = self.claim(approval_id, approve=approve, terms_sha256=terms_sha256, by=by)
        return claimed if claimed is not None else self.get(approval_id)

    def claim(
        self, approval_id: UUID | str, *, approve: bool, terms_sha256: str, by: str
    ) -> Approval | None:
        """``decide``, but ``None`` unless this very call made the decision: of two people
        (or processes) approving at once, exactly one gets the approval back and acts on it.
        Raises ``LedgerError`` for an unknown approval."""
        now = self._clock.now()
        key = str(approval_id)
        with write_transaction(self._engine) as connection:
            row = connection.execute(select(approvals).where(approvals.c.id == key)).first()
            if row is None:
                raise LedgerError(f"no approval {key}")
            if row.state != ApprovalState.PENDING.value:
                return None
            if iso(now) >= row.expires_at:
                state = ApprovalState.EXPIRED
            elif approve and terms_sha256.lower() == row.terms_sha256:
                state = ApprovalState.APPROVED
            else:
                state = ApprovalState.DENIED
            changed = connection.execute(
                update(approvals)
                .where(approvals.c.id == key, approvals.c.state == ApprovalState.PENDING.value)
                .values(state=state.value, decided_at=iso(now), decided_by=by)
            )
            if changed.rowcount != 1:
                return None
        return self.get(key)


def _approval(row: Any) -> Approval:
    return Approval(
        id=UUID(row.id),
        filing_id=UUID(row.filing_id),
        terms_sha256=row.terms_sha256,
        created_at=parse_iso(row.created_at),
        expires_at=parse_iso(row.expires_at),
        state=ApprovalState(row.state),
        decided_at=None if row.decided_at is None else parse_iso(row.decided_at),
        decided_by=row.decided_by,
        notional=None if row.notional is None else Decimal(row.notional),
    )


class Journal:
    """The decisions journal: every decision with its "why", in order.

    Its text is often a model's (a rationale, a hold's reason, an error it caused), so every
    string of an entry is made inert (``ordergate.core.inert``: controls, newlines and
    bidirectional marks escaped) when it is appended and again when it is read: what was
    journalled before that rule comes out escaped too, and nothing read from here can forge
    a line or reach a terminal as a control sequence."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def append(
        self,
        *,
        identity: str,
        kind: str,
        why: str,
        filing_id: UUID | str | None = None,
        detail: Mapping[str, Any] | None = None,
        snapshot: Mapping[str, Any] | None = None,
        connection: Connection | None = None,
    ) -> None:
        """Append one entry; inside ``connection``'s write transaction when given (so the
        entry commits with what it records), else in a transaction of its own.

        ``snapshot`` is what the decision was made on: stored once however many entries
        name it (``decision_snapshots``, keyed by the SHA-256 of its canonical JSON), the
        entry's ``detail.snapshot_digest`` naming it (``ValueError`` when ``detail`` names
        another digest)."""
        written = _inert_values(dict(detail or {}))
        stored: dict[str, str] | None = None
        if snapshot is not None:
            body = canonical_json(snapshot)
            digest = hashlib.sha256(body.encode()).hexdigest()
            named = written.setdefault("snapshot_digest", digest)
            if named != digest:
                raise ValueError("detail.snapshot_digest: not the digest of the snapshot")
            stored = {"digest": digest, "body": body}
        values = {
            "created_at": iso(self._clock.now()),
            "identity": identity,
            "filing_id": None if filing_id is None else str(filing_id),
            "kind": kind,
            "why": inert(why),
            "detail": canonical_json(written),
        }
        if connection is not None:
            _append(connection, values, stored)
            return
        with write_transaction(self._engine) as own:
            _append(own, values, stored)

    def snapshot(self, digest: str) -> dict[str, Any] | None:
        """The snapshot stored under ``digest``, or ``None``."""
        with self._engine.connect() as connection:
            body = connection.execute(
                select(decision_snapshots.c.body).where(decision_snapshots.c.digest == digest)
            ).scalar_one_or_none()
        return None if body is None else dict(json.loads(body))

    def entries(self, *, limit: int = 100) -> list[DecisionEntry]:
        """The latest ``limit`` entries, oldest first."""
        with reading(self._engine) as connection:
            rows = list(
                connection.execute(select(decisions).order_by(decisions.c.seq.desc()).limit(limit))
            )
        return [_entry(row) for row in reversed(rows)]

    def latest_of(
        self, identity: str, *, before: int | None = None, limit: int = 500
    ) -> list[DecisionEntry]:
        """``identity``'s latest ``limit`` entries with a ``seq`` below ``before`` (all when
        ``None``), newest first: page back with the last one's ``seq``
        (ix_decisions_identity: identity, seq)."""
        query = select(decisions).where(decisions.c.identity == identity)
        if before is not None:
            query = query.where(decisions.c.seq < before)
        with reading(self._engine) as connection:
            rows = list(connection.execute(query.order_by(decisions.c.seq.desc()).limit(limit)))
        return [_entry(row) for row in rows]

    def for_filing(self, filing_id: UUID | str, *, limit: int = 100) -> list[DecisionEntry]:
        """The first ``limit`` entries about one filing, oldest first (what decided it, its
        checks, its cancellation)."""
        with reading(self._engine) as connection:
            rows = list(
                connection.execute(
                    select(decisions)
                    .where(decisions.c.filing_id == str(filing_id))
                    .order_by(decisions.c.seq)
                    .limit(limit)
                )
            )
        return [_entry(row) for row in rows]


def _append(
    connection: Connection, values: dict[str, Any], snapshot: dict[str, str] | None
) -> None:
    if snapshot is not None:
        if connection.dialect.name == "postgresql":
            # Postgres's dialect only where it is used: importing it costs ~40 ms a start.
            from sqlalchemy.dialects.postgresql import insert as postgresql_insert

            stored = postgresql_insert(decision_snapshots).values(**snapshot)
            connection.execute(stored.on_conflict_do_nothing())
        else:
            connection.execute(
                sqlite_insert(decision_snapshots).values(**snapshot).on_conflict_do_nothing()
            )
    _INSERT_DECISION.run(connection, values)


def _entry(row: Any) -> DecisionEntry:
    return DecisionEntry(
        seq=row.seq,
        created_at=parse_iso(row.created_at),
        identity=row.identity,
        filing_id=None if row.filing_id is None else UUID(row.filing_id),
        kind=row.kind,
        why=inert(row.why),
        detail=_inert_values(json.loads(row.detail)),
    )


def _inert_values(value: Any) -> Any:
    """``value`` (JSON: objects, arrays, strings, numbers) with every string made inert."""
    if isinstance(value, str):
        return inert(value)
    if isinstance(value, dict):
        return {inert(key): _inert_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_inert_values(item) for item in value]
    return value
