"""The ledger: filings with their reservations, filed atomically against rolling caps.

``file_and_reserve`` is the wall's one write that matters: in a single transaction holding
the write lock it reads the account's rolling 24 h spend and order count, appends the filing
to the hash chain (accepted, or refused with the cap's reason code) and, when accepted,
reserves its notional and one order. Any number of processes (SQLite) or replicas (Postgres)
filing at once are therefore serialised at that lock: none can reserve past a cap, and every
attempt is on file.

The chain is one total order per database, so every append (whatever the account) takes the
same lock; that lock is also what makes the cap check atomic. Later facts about a filing
(status changes, releases, corrections) are appended to a second chain, ``filing_events``;
the filing row itself is never updated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import TracebackType
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, Engine, and_, bindparam, func, insert, select, update

from ordergate.core import Clock, to_wire
from ordergate.ledger._canonical import (
    GENESIS,
    canonical_json,
    chain_hash,
    event_body,
    filing_body,
    from_units,
    has_control,
    iso,
    plain_json,
    to_units,
)
from ordergate.ledger._controls import PAUSE_KEY, Controls, paused_from
from ordergate.ledger._engine import engine_for, migrate, normalise_url, write_transaction
from ordergate.ledger._errors import ReservationError, UnknownFilingError
from ordergate.ledger._models import (
    CAP_DAILY_USD,
    CAP_ORDERS_PER_DAY,
    PAUSED,
    ChainHead,
    Decision,
    EventRecord,
    Filing,
    FilingRecord,
    FilingResult,
    FilingStatus,
    RollingCaps,
    Spend,
    VerifyResult,
)
from ordergate.ledger._records import Approvals, Journal, Orders
from ordergate.ledger._rows import event_record, filing_record, to_us
from ordergate.ledger._schema import controls, filing_events, filings, reservations
from ordergate.ledger._verify import verify

__all__ = ["WINDOW", "Ledger", "open_ledger"]

WINDOW = timedelta(hours=24)
_WINDOW_US = 24 * 3600 * 1_000_000
_MAX_TEXT = 200


def open_ledger(url: str | None = None, *, clock: Clock, create: bool = True) -> Ledger:
    """Open (creating and migrating as needed) the ledger at ``url``.

    ``url`` defaults to ``ORDERGATE_DB_URL``, else SQLite at ``$ORDERGATE_HOME/ledger.db``.
    ``postgresql://`` URLs use psycopg 3. With ``create=False`` a missing SQLite file is an
    error rather than a new ledger. Raises ``LedgerError`` for an unusable URL or file and
    ``LedgerSchemaError`` for a database written by a newer ordergate.
    """
    from ordergate.ledger._engine import default_url

    engine = engine_for(normalise_url(url or default_url()), create=create)
    try:
        migrate(engine)
    except BaseException:
        engine.dispose()
        raise
    return Ledger(engine, clock=clock)


class Ledger:
    """The durable record. Thread-safe (each call checks out its own connection)."""

    def __init__(self, engine: Engine, *, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock
        self.controls = Controls(engine, clock)
        self.orders = Orders(engine, clock)
        self.approvals = Approvals(engine, clock)
        self.journal = Journal(engine, clock)

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._engine.dialect.name

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- filing -------------------------------------------------------------------------

    def file_and_reserve(
        self,
        filing: Filing,
        *,
        notional: Decimal,
        caps: RollingCaps,
        now: datetime | None = None,
    ) -> FilingResult:
        """File ``filing`` and, if the policy accepted it and the caps and the pause flag
        allow, reserve ``notional`` and one order, all in one transaction.

        Refusals (the policy's, ``paused``, ``max_daily_usd``, ``max_orders_per_day``) are
        filed too, with nothing reserved. Raises ``ValueError`` for a negative or non-finite
        notional, ``TypeError`` for terms without a canonical form.
        """
        return self.file_many([(filing, notional)], caps=caps, now=now)[0]

    def file_many(
        self,
        items: Sequence[tuple[Filing, Decimal]],
        *,
        caps: RollingCaps,
        now: datetime | None = None,
    ) -> list[FilingResult]:
        """``file_and_reserve`` for several filings in one transaction (group commit), in
        order: each sees the reservations of the ones before it."""
        instant = now if now is not None else self._clock.now()
        created_at = iso(instant)
        created_us = to_us(instant)
        prepared = [_prepare(filing, notional) for filing, notional in items]
        cap_units = to_units(caps.max_daily_usd)
        results: list[FilingResult] = []
        first_account = prepared[0][0].account if prepared else ""
        with write_transaction(self._engine, "filings") as connection:
            # One round trip for everything the first filing needs: pause flag, chain head,
            # and its account's window. (Statements are built once, at import: building a
            # Core statement per call cost more than the fsync.)
            snapshot = connection.execute(
                _SNAPSHOT,
                {"account": first_account, "low": created_us - _WINDOW_US, "high": created_us},
            ).one()
            paused = paused_from(snapshot[0])
            seq, prev = (0, GENESIS) if snapshot[1] is None else (snapshot[1], snapshot[2])
            spent: dict[str, list[int]] = {first_account: [int(snapshot[3]), int(snapshot[4])]}
            filing_rows: list[dict[str, Any]] = []
            reservation_rows: list[dict[str, Any]] = []
            for filing, units, notional_text, terms, plain in prepared:
                reasons = list(filing.reasons)
                accepted = filing.decision is Decision.ACCEPT
                if accepted and paused:
                    accepted, reasons = False, [*reasons, PAUSED]
                if accepted:
                    window = spent.get(filing.account)
                    if window is None:
                        window = spent[filing.account] = _window(
                            connection, filing.account, created_us
                        )
                    over = []
                    if window[1] + 1 > caps.max_orders_per_day:
                        over.append(CAP_ORDERS_PER_DAY)
                    if window[0] + units > cap_units:
                        over.append(CAP_DAILY_USD)
                    if over:
                        accepted, reasons = False, [*reasons, *over]
                    else:
                        window[0] += units
                        window[1] += 1
                seq += 1
                status = FilingStatus.ACCEPTED if accepted else FilingStatus.REFUSED
                row = {
                    "seq": seq,
                    "id": str(filing.id),
                    "identity": filing.identity,
                    "account": filing.account,
                    "created_at": created_at,
                    "kind": filing.kind,
                    "status": status.value,
                    "decision": filing.decision.value,
                    "reasons": canonical_json(reasons) if reasons else "[]",
                    "terms": terms,
                    "notional": notional_text,
                    "prev_hash": prev,
                }
                link = prev
                row["hash"] = prev = chain_hash(link, _filing_body(row))
                filing_rows.append(row)
                if accepted:
                    reservation_rows.append(
                        {
                            "filing_id": row["id"],
                            "account": filing.account,
                            "created_us": created_us,
                            "reserved_units": units,
                            "amount_units": units,
                            "ops": 1,
                            "state": "reserved",
                        }
                    )
                results.append(
                    FilingResult(
                        accepted=accepted,
                        reason=None if accepted else (reasons[0] if reasons else "refused"),
                        record=FilingRecord(
                            seq=seq,
                            id=filing.id,
                            identity=filing.identity,
                            account=filing.account,
                            created_at=instant.astimezone(UTC),
                            kind=filing.kind,
                            outcome=status,
                            status=status,
                            decision=filing.decision,
                            reasons=tuple(reasons),
                            terms=plain,
                            notional=Decimal(notional_text),
                            prev_hash=link,
                            hash=prev,
                        ),
                    )
                )
            if filing_rows:
                connection.execute(_INSERT_FILINGS, filing_rows)
            if reservation_rows:
                connection.execute(_INSERT_RESERVATIONS, reservation_rows)
        return results

    # -- reservations --------------------------------------------------------------------

    def rolling_spend(self, account: str = "", *, now: datetime | None = None) -> Spend:
        """Reserved + filled notional and orders of ``account`` over the last 24 hours
        (released reservations count zero, corrected ones what actually filled)."""
        instant = now if now is not None else self._clock.now()
        with self._engine.connect() as connection:
            units, ops = _window(connection, account, to_us(instant))
        return Spend(notional=from_units(units), orders=ops)

    def release(self, filing_id: UUID | str, *, now: datetime | None = None) -> EventRecord | None:
        """Give back a filing's reservation (notional and order): the order never reached
        the market, or was cancelled with nothing filled before it was placed. Idempotent:
        ``None`` when already released. Raises ``UnknownFilingError``, ``ReservationError``
        (a refused filing reserved nothing)."""
        return self._adjust(filing_id, "released", 0, 0, {}, now)

    def correct(
        self, filing_id: UUID | str, filled_notional: Decimal, *, now: datetime | None = None
    ) -> EventRecord | None:
        """Make a reservation hold what actually filled (one order, ``filled_notional``), so
        the rolling spend converges to the fills. Idempotent for the same amount."""
        if not filled_notional.is_finite() or filled_notional < 0:
            raise ValueError("filled_notional must be a finite, non-negative decimal")
        detail = {"filled_notional": to_wire(filled_notional)}
        return self._adjust(filing_id, "corrected", to_units(filled_notional), 1, detail, now)

    def _adjust(
        self,
        filing_id: UUID | str,
        state: str,
        units: int,
        ops: int,
        detail: Mapping[str, Any],
        now: datetime | None,
    ) -> EventRecord | None:
        key = str(filing_id)
        instant = now if now is not None else self._clock.now()
        with write_transaction(self._engine, "filings", "events") as connection:
            row = connection.execute(
                select(reservations.c.state, reservations.c.amount_units, reservations.c.ops)
                .where(reservations.c.filing_id == key)
            ).first()  # fmt: skip
            if row is None:
                _require_filing(connection, key)
                raise ReservationError(f"filing {key} reserved nothing (it was refused)")
            if (row.state, row.amount_units, row.ops) == (state, units, ops):
                return None
            connection.execute(
                update(reservations)
                .where(reservations.c.filing_id == key)
                .values(state=state, amount_units=units, ops=ops)
            )
            kind = "release" if state == "released" else "correct"
            return _append_event(connection, key, instant, kind, "", detail)

    # -- status events -------------------------------------------------------------------

    def record_status(
        self,
        filing_id: UUID | str,
        status: FilingStatus,
        *,
        detail: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> EventRecord:
        """Append a status change of a filing (``submitted``, ``unanswered``, ``filled``…)."""
        key = str(filing_id)
        instant = now if now is not None else self._clock.now()
        with write_transaction(self._engine, "events") as connection:
            _require_filing(connection, key)
            return _append_event(
                connection, key, instant, "status", FilingStatus(status).value, detail or {}
            )

    def events(self, filing_id: UUID | str) -> list[EventRecord]:
        """Every event of a filing, oldest first."""
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(filing_events)
                .where(filing_events.c.filing_id == str(filing_id))
                .order_by(filing_events.c.seq)
            )
            return [event_record(row) for row in rows]

    # -- queries ---------------------------------------------------------------------------

    def filing(self, filing_id: UUID | str) -> FilingRecord:
        """The filing with this id (= the order's ``ref_id``); ``UnknownFilingError`` if none."""
        key = str(filing_id)
        with self._engine.connect() as connection:
            row = connection.execute(select(filings).where(filings.c.id == key)).first()
            if row is None:
                raise UnknownFilingError(key)
            status = connection.execute(
                select(filing_events.c.status)
                .where(filing_events.c.filing_id == key, filing_events.c.kind == "status")
                .order_by(filing_events.c.seq.desc())
                .limit(1)
            ).scalar()
        return filing_record(row, status)

    def open_filings(self, account: str | None = None) -> list[FilingRecord]:
        """Accepted filings whose latest status is not terminal, oldest first."""
        latest = (
            select(
                filing_events.c.filing_id.label("filing_id"),
                func.max(filing_events.c.seq).label("seq"),
            )
            .where(filing_events.c.kind == "status")
            .group_by(filing_events.c.filing_id)
            .subquery()
        )
        current = select(filing_events.c.filing_id, filing_events.c.status).join(
            latest, and_(latest.c.seq == filing_events.c.seq)
        ).subquery()  # fmt: skip
        query = (
            select(filings, current.c.status.label("current"))
            .outerjoin(current, current.c.filing_id == filings.c.id)
            .where(filings.c.status == FilingStatus.ACCEPTED.value)
            .order_by(filings.c.seq)
        )
        if account is not None:
            query = query.where(filings.c.account == account)
        with self._engine.connect() as connection:
            records = [filing_record(row, row.current) for row in connection.execute(query)]
        return [record for record in records if not record.status.terminal]

    def head(self) -> ChainHead:
        """The filings chain's last link; export it as a checkpoint for ``verify``."""
        with self._engine.connect() as connection:
            return ChainHead(*_head(connection, filings))

    def event_head(self) -> ChainHead:
        """The events chain's last link."""
        with self._engine.connect() as connection:
            return ChainHead(*_head(connection, filing_events))

    def verify(
        self, *, checkpoint: ChainHead | None = None, event_checkpoint: ChainHead | None = None
    ) -> VerifyResult:
        """Walk both chains (see ``ordergate.ledger.verify``)."""
        return verify(self, checkpoint=checkpoint, event_checkpoint=event_checkpoint)


def _prepare(filing: Filing, notional: Decimal) -> tuple[Filing, int, str, str, Any]:
    if not notional.is_finite() or notional < 0:
        raise ValueError("notional must be a finite, non-negative decimal")
    if not filing.identity or len(filing.identity) > _MAX_TEXT:
        raise ValueError(f"identity must be 1 to {_MAX_TEXT} characters")
    if len(filing.account) > _MAX_TEXT or not filing.kind or len(filing.kind) > 64:
        raise ValueError("account is at most 200 characters, kind 1 to 64")
    if any(has_control(text) for text in (filing.identity, filing.account, filing.kind)):
        raise ValueError("identity, account and kind must not hold control characters")
    plain = plain_json(filing.terms)
    return filing, to_units(notional), to_wire(notional), canonical_json(plain), plain


def _filing_body(row: Mapping[str, Any]) -> bytes:
    return filing_body(
        row["seq"], row["id"], row["identity"], row["account"], row["created_at"], row["kind"],
        row["status"], row["decision"], row["reasons"], row["terms"], row["notional"],
    )  # fmt: skip


def _last(table: Any) -> Any:
    return select(table.c.seq, table.c.hash).order_by(table.c.seq.desc()).limit(1)


def _in_window() -> Any:
    return (
        reservations.c.account == bindparam("account"),
        reservations.c.created_us > bindparam("low"),
        reservations.c.created_us <= bindparam("high"),
    )


_HEADS = {"filings": _last(filings), "filing_events": _last(filing_events)}
_WINDOW_SUMS = select(
    func.coalesce(func.sum(reservations.c.amount_units), 0),
    func.coalesce(func.sum(reservations.c.ops), 0),
).where(*_in_window())
_SNAPSHOT = select(
    select(controls.c.value).where(controls.c.key == PAUSE_KEY).scalar_subquery(),
    _last(filings).with_only_columns(filings.c.seq).scalar_subquery(),
    _last(filings).with_only_columns(filings.c.hash).scalar_subquery(),
    select(func.coalesce(func.sum(reservations.c.amount_units), 0))
    .where(*_in_window())
    .scalar_subquery(),
    select(func.coalesce(func.sum(reservations.c.ops), 0)).where(*_in_window()).scalar_subquery(),
)
_INSERT_FILINGS = insert(filings)
_INSERT_RESERVATIONS = insert(reservations)


def _head(connection: Connection, table: Any) -> tuple[int, str]:
    row = connection.execute(_HEADS[table.name]).first()
    return (0, GENESIS) if row is None else (row.seq, row.hash)


def _window(connection: Connection, account: str, now_us: int) -> list[int]:
    row = connection.execute(
        _WINDOW_SUMS, {"account": account, "low": now_us - _WINDOW_US, "high": now_us}
    ).one()
    return [int(row[0]), int(row[1])]


def _require_filing(connection: Connection, key: str) -> None:
    if connection.execute(select(filings.c.seq).where(filings.c.id == key)).first() is None:
        raise UnknownFilingError(key)


def _append_event(
    connection: Connection,
    filing_id: str,
    instant: datetime,
    kind: str,
    status: str,
    detail: Mapping[str, Any],
) -> EventRecord:
    seq, prev = _head(connection, filing_events)
    seq += 1
    created_at = iso(instant)
    detail_text = canonical_json(detail)
    digest = chain_hash(prev, event_body(seq, filing_id, created_at, kind, status, detail_text))
    connection.execute(
        insert(filing_events).values(
            seq=seq, filing_id=filing_id, created_at=created_at, kind=kind, status=status,
            detail=detail_text, prev_hash=prev, hash=digest,
        )
    )  # fmt: skip
    return EventRecord(
        seq=seq,
        filing_id=UUID(filing_id),
        created_at=instant,
        kind=kind,
        status=status,
        detail=json.loads(detail_text),
        hash=digest,
    )
