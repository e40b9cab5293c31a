"""The ledger: filings with their reservations, filed atomically against rolling caps.

``file_and_reserve`` is the wall's one write that matters: in a single transaction holding
its account's lock it reads the account's rolling 24 h spend and order count, appends the
filing to the account's hash chain (accepted, or refused with the cap's reason code) and,
when accepted, reserves its notional and one order (``_filing``). Any number of processes
(SQLite) or replicas (Postgres) filing for one account at once are therefore serialised at
that lock: none can reserve past a cap, and every attempt is on file. Filings for different
accounts do not wait for each other on Postgres (SQLite has one write lock for everything).

Each account's filings form one chain; ``head`` digests every account's last link into one
checkpoint. Anything that moves an account's reservations (``reprice``, ``release``,
``correct``) takes the account's lock too. Later facts about a filing (status changes,
releases, corrections) are appended to a second chain, ``filing_events``, under its own lock;
the filing row itself is never updated.

What is open is kept, not computed: an accepted filing gets its row in ``open_filings`` in the
transaction that files it, and each status event updates or deletes that row in its own
transaction (``_track_status``). So the reads the order path and the reconciler make
(``open_filings``, ``open_count``, ``filing``, ``filings_of``) cost what is open or what was
asked for, each by the index named beside it, never the history.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from decimal import Decimal
from types import TracebackType
from typing import Any
from uuid import UUID

from sqlalchemy import (
    BigInteger,
    Connection,
    Engine,
    Integer,
    bindparam,
    delete,
    func,
    insert,
    literal_column,
    select,
    update,
)

from ordergate.core import Clock, SecurityClock, to_us, to_wire
from ordergate.ledger._canonical import (
    GENESIS,
    canonical_json,
    chain_hash,
    event_body,
    from_units,
    heads_digest,
    to_units,
)
from ordergate.ledger._control_chain import controls_head
from ordergate.ledger._controls import Controls
from ordergate.ledger._decision import DecisionReads, decision_reads
from ordergate.ledger._equity import EquityMarks
from ordergate.ledger._errors import (
    LedgerError,
    LedgerSchemaError,
    ReservationError,
    UnknownFilingError,
)
from ordergate.ledger._filing import WINDOW_US, file_batch, prepare, window_bounds, window_sums
from ordergate.ledger._late import LateOrders
from ordergate.ledger._models import (
    CAP_DAILY_USD,
    ChainHead,
    EventRecord,
    Filing,
    FilingRecord,
    FilingResult,
    FilingStatus,
    RollingCaps,
    Spend,
    VerifyResult,
)
from ordergate.ledger._queries import (
    EVENTS_HEAD,
    FILING,
    KEYED_FILING,
    OPEN,
    OPEN_OF,
    WITH_STATUS,
    filing_account,
)
from ordergate.ledger._records import Approvals, Journal, Orders
from ordergate.ledger._rows import event_record, filing_record
from ordergate.ledger._schema import (
    chain_heads,
    filing_events,
    filings,
    open_filings,
    reservations,
)
from ordergate.ledger._turns import AccountTurns
from ordergate.ledger._verify import verify
from ordergate.store import (
    FILINGS_GATE,
    Statement,
    StoreError,
    StoreSchemaError,
    default_url,
    engine_for,
    iso,
    lock_accounts,
    migrate,
    normalise_url,
    reading,
    step_memo,
    take_locks,
    write_transaction,
)

__all__ = ["WINDOW", "Ledger", "open_ledger"]

WINDOW = timedelta(hours=24)


def open_ledger(
    url: str | None = None,
    *,
    clock: Clock,
    create: bool = True,
    security_clock: SecurityClock | None = None,
) -> Ledger:
    """Open (creating and migrating as needed) the ledger at ``url``.

    ``url`` defaults to ``ORDERGATE_DB_URL``, else SQLite at ``$ORDERGATE_HOME/ledger.db``.
    ``postgresql://`` URLs use psycopg 3. With ``create=False`` a missing SQLite file is an
    error rather than a new ledger. ``clock`` is the record's clock: every filing, event,
    reservation window, control, equity mark and journal entry is stamped on it — in a run,
    wall time (security time), never a simulated market's (docs/architecture.md, "Time").
    Approvals' time to live runs on ``security_clock`` (without one, on ``clock``). Raises
    ``LedgerError`` for an unusable URL or file and ``LedgerSchemaError`` for a database
    written by a newer ordergate.
    """
    try:
        engine = engine_for(normalise_url(url or default_url()), create=create)
    except StoreError as error:
        raise LedgerError(str(error)) from None
    try:
        migrate(engine)
    except BaseException as error:
        engine.dispose()
        if isinstance(error, StoreSchemaError):
            raise LedgerSchemaError(str(error)) from None
        raise
    return Ledger(engine, clock=clock, security_clock=security_clock)


class Ledger:
    """The durable record. Thread-safe (each call checks out its own connection)."""

    def __init__(
        self, engine: Engine, *, clock: Clock, security_clock: SecurityClock | None = None
    ) -> None:
        self._engine = engine
        self._clock = clock
        self.controls = Controls(engine, clock)
        self.orders = Orders(engine, clock)
        # An approval's time to live is security time, not the market's.
        self.approvals = Approvals(engine, security_clock or SecurityClock(clock))
        self.journal = Journal(engine, clock)
        self.equity = EquityMarks(engine, clock)
        self.late = LateOrders(engine)
        # One order at a time per account, across processes and replicas (``AccountTurns``).
        self.turns = AccountTurns(engine)

    @property
    def engine(self) -> Engine:
        return self._engine

    def now(self) -> datetime:
        """The record's time now: what the ledger stamps and its windows count in."""
        return self._clock.now()

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._engine.dialect.name

    def close(self) -> None:
        self.turns.dispose()
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

    # -- steps together ------------------------------------------------------------------

    @contextmanager
    def transaction(
        self, account: str, *, events: bool = False, durable: bool = True
    ) -> Iterator[None]:
        """One write transaction for the steps of one act on ``account``'s filings (a filing
        and its journal entry; an order's state, fills, status and corrected reservation):
        every ledger write made inside the block, in this thread, joins it (each in a
        savepoint of its own) and they commit together, with one flush, or not at all.

        It takes ``account``'s lock and, with ``events``, then the events chain (the order
        every writer takes them in, so the steps inside never take a lock out of order);
        reads inside see what the steps before them wrote. Never hold it across an await.

        ``durable=False`` only for what follows a placement (its status, the broker's order
        and fills): see ``ordergate.store.write_transaction``."""
        with write_transaction(self._engine, durable=durable) as connection:
            lock_accounts(connection, [account])
            if events:
                take_locks(connection, "events")
            yield

    @contextmanager
    def reading(self) -> Iterator[None]:
        """The reads made inside the block, in this thread, share one connection and read
        transaction (on SQLite one snapshot): for the reads of one decision."""
        with reading(self._engine):
            yield

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
        batch = [prepare(filing, notional) for filing, notional in items]
        if not batch:
            return []
        return file_batch(self._engine, batch, caps=caps, instant=instant)

    # -- reservations --------------------------------------------------------------------

    def rolling_spend(
        self, account: str = "", *, now: datetime | None = None, kind: str | None = None
    ) -> Spend:
        """Reserved + filled notional and orders of ``account`` over the last 24 hours
        (released reservations count zero, corrected ones what actually filled); with
        ``kind``, of its filings of that kind only (an option order's premium: each
        reservation in ix_reservations_window joined to its filing by primary key)."""
        instant = now if now is not None else self._clock.now()
        with reading(self._engine) as connection:
            if kind is None:
                units, ops = _window(connection, account, to_us(instant))
            else:
                low, high = window_bounds(to_us(instant))
                row = _KIND_WINDOW_SUMS.first(
                    connection, {"account": account, "low": low, "high": high, "kind": kind}
                )
                units, ops = int(row[0]), int(row[1])
        return Spend(notional=from_units(units), orders=ops)

    def decision_reads(
        self,
        account: str,
        *,
        now: datetime | None = None,
        identity: str | None = None,
        terms: Mapping[str, Any] | None = None,
        duplicate_window: timedelta = timedelta(0),
        filer: str | None = None,
    ) -> DecisionReads:
        """What a decision on ``account`` reads of the record besides its open filings, in
        one statement: the rolling 24 h spend and orders, the high-water mark, the
        session-start equity, the pause flag (the rail's, or the connection's ``filer`` or
        ``identity`` names), and whether the account's equity curve has a mark within a
        minute of ``now``; with ``identity`` and ``terms`` (stage A) also the recent accepted
        filings the order rate and duplicate checks count (``_decision``)."""
        instant = now if now is not None else self._clock.now()
        with reading(self._engine) as connection:
            return decision_reads(
                connection,
                account,
                instant,
                identity=identity,
                terms=terms,
                duplicate_window=duplicate_window,
                filer=filer,
            )

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

    def readopt(
        self, filing_id: UUID | str, notional: Decimal, *, now: datetime | None = None
    ) -> EventRecord | None:
        """Hold ``notional`` and one order again for a filing whose reservation was released
        (declared not placed) but whose order reached the broker after all: not checked
        against the caps, since the order is at the market whatever they say. Idempotent for
        the same amount."""
        if not notional.is_finite() or notional < 0:
            raise ValueError("notional must be a finite, non-negative decimal")
        detail = {"notional": to_wire(notional)}
        return self._adjust(filing_id, "reserved", to_units(notional), 1, detail, now)

    def reprice(
        self,
        filing_id: UUID | str,
        notional: Decimal,
        *,
        caps: RollingCaps,
        now: datetime | None = None,
    ) -> str | None:
        """Make a live reservation hold ``notional`` (the reviewed terms' notional) if the
        rolling cap allows it, atomically with the cap check: ``None`` when it holds now, else
        the reason code (``max_daily_usd``) with the reservation unchanged.

        The reservation counts at its filing time, so it must fit every rolling window that
        holds it up to now: the one ending at its filing, each ending at a later reservation
        of the account, and the one ending now (windows ending later are checked by the
        filings that end them). Each is summed without this filing's own reservation, so
        repricing never counts the order twice. Raises ``UnknownFilingError``,
        ``ReservationError`` (refused, released or corrected filings hold nothing to
        reprice)."""
        if not notional.is_finite() or notional < 0:
            raise ValueError("notional must be a finite, non-negative decimal")
        key = str(filing_id)
        instant = now if now is not None else self._clock.now()
        units = to_units(notional)
        with write_transaction(self._engine) as connection:
            _lock_filing_account(connection, key)
            row = _RESERVATION.first(connection, {"b_filing": key})
            if row is None:
                raise ReservationError(f"filing {key} reserved nothing (it was refused)")
            if row.state != "reserved":
                raise ReservationError(f"filing {key}'s reservation is {row.state}")
            if row.amount_units == units:
                return None
            worst = _worst_window(connection, row.account, row.created_us, to_us(instant))
            if worst - row.amount_units + units > to_units(caps.max_daily_usd):
                return CAP_DAILY_USD
            _SET_RESERVATION.run(
                connection, {"b_filing": key, "amount_units": units, "reserved_units": units}
            )
            _append_event(connection, key, instant, "reprice", "", {"notional": to_wire(notional)})
        return None

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
        with write_transaction(self._engine) as connection:
            _lock_filing_account(connection, key)
            row = _RESERVATION.first(connection, {"b_filing": key})
            if row is None:
                raise ReservationError(f"filing {key} reserved nothing (it was refused)")
            if (row.state, row.amount_units, row.ops) == (state, units, ops):
                return None
            _SET_RESERVATION.run(
                connection, {"b_filing": key, "state": state, "amount_units": units, "ops": ops}
            )
            kind = _ADJUSTMENTS[state]
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
        """Every event of a filing, oldest first (ix_filing_events_filing: filing_id, seq)."""
        with reading(self._engine) as connection:
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
        with reading(self._engine) as connection:
            # The filing by its unique id; its status from its own events, newest first
            # (ix_filing_events_filing: filing_id, seq).
            row = FILING.first(connection, {"id": key})
        if row is None:
            raise UnknownFilingError(key)
        return filing_record(row, row.current)

    def keyed_filing(self, identity: str, agent_key: UUID) -> FilingRecord | None:
        """The filing ``identity`` filed under ``agent_key`` (``Filing.agent_key``), with its
        current status; ``None`` when it filed none (agent_keys' primary key)."""
        with reading(self._engine) as connection:
            row = KEYED_FILING.first(
                connection, {"identity": identity, "agent_key": str(agent_key)}
            )
        return None if row is None else filing_record(row, row.current)

    def filing_ids_starting(self, prefix: str, *, limit: int = 2) -> list[str]:
        """Up to ``limit`` filing ids that start with ``prefix`` (lower-cased), in order: a
        range on the unique index of ``filings.id``, so the cost is ``limit`` rows."""
        start = prefix.strip().lower()
        if not start:
            return []
        # Ids are UUIDs in lower-case hex and dashes: every id with the prefix is below
        # the prefix followed by a character above them all.
        query = (
            select(filings.c.id)
            .where(filings.c.id >= start, filings.c.id < start + "~")
            .order_by(filings.c.id)
            .limit(limit)
        )
        with reading(self._engine) as connection:
            return [row.id for row in connection.execute(query)]

    def open_filings(self, account: str | None = None) -> list[FilingRecord]:
        """Accepted filings whose latest status is not terminal, oldest first: read from
        ``open_filings`` (ix_open_filings_account: account, seq), each joined to its filing by
        ``seq`` (the primary key), so the cost is the number open, never the history."""
        query, params = (OPEN, {}) if account is None else (OPEN_OF, {"account": account})
        with reading(self._engine) as connection:
            rows = query.rows(connection, params)
        return [filing_record(row, row.current) for row in rows]

    def open_count(self, account: str, identity: str | None = None) -> int:
        """How many of ``account``'s filings are open (``identity``'s only, when given);
        counted in ``open_filings`` (ix_open_filings_identity: identity, account, or
        ix_open_filings_account)."""
        query = _OPEN_COUNT if identity is None else _OPEN_COUNT_OF
        with reading(self._engine) as connection:
            params = (
                {"account": account}
                if identity is None
                else {"account": account, "identity": identity}
            )
            return int(query.scalar(connection, params))

    def filings_of(self, identity: str, *, limit: int) -> list[FilingRecord]:
        """``identity``'s latest ``limit`` filings with their current status, newest first
        (ix_filings_identity: identity, seq, read backwards; each status from
        ix_filing_events_filing)."""
        if limit < 1:
            raise ValueError("limit must be positive")
        query = (
            WITH_STATUS.where(filings.c.identity == identity)
            .order_by(filings.c.seq.desc())
            .limit(limit)
        )
        with reading(self._engine) as connection:
            return [filing_record(row, row.current) for row in connection.execute(query)]

    def recent_filings(
        self, *, limit: int, identity: str | None = None, outcome: str | None = None
    ) -> list[FilingRecord]:
        """The latest ``limit`` filings with their current status, newest first: of
        ``identity`` only, and filed ``outcome`` (accepted/refused) only, when given."""
        if limit < 1:
            raise ValueError("limit must be positive")
        query = WITH_STATUS
        if identity is not None:
            query = query.where(filings.c.identity == identity)
        if outcome is not None:
            query = query.where(filings.c.status == outcome)
        query = query.order_by(filings.c.seq.desc()).limit(limit)
        with reading(self._engine) as connection:
            return [filing_record(row, row.current) for row in connection.execute(query)]

    def head(self) -> ChainHead:
        """A checkpoint of every account's chain, to export and give back to ``verify``: the
        last ``seq`` on file and the digest of each account's last link (``heads_digest``);
        ``(0, GENESIS)`` for an empty ledger.

        On Postgres it waits until no filing is in flight (the filings gate, exclusively),
        so every filing numbered up to that ``seq`` is in it and every later one is numbered
        after it."""
        with self._engine.connect() as connection, connection.begin():
            take_locks(connection, FILINGS_GATE)  # a read snapshot is enough on SQLite
            rows = connection.execute(
                select(chain_heads.c.account, chain_heads.c.seq, chain_heads.c.hash)
            ).all()
        last = max((row.seq for row in rows), default=0)
        return ChainHead(last, heads_digest((row.account, row.hash) for row in rows))

    def event_head(self) -> ChainHead:
        """The events chain's last link."""
        with reading(self._engine) as connection:
            return ChainHead(*_events_head(connection))

    def controls_head(self) -> ChainHead:
        """The controls chain's last link (``verify``'s ``controls_since``)."""
        with reading(self._engine) as connection:
            return controls_head(connection)

    def verify(
        self,
        *,
        checkpoint: ChainHead | None = None,
        event_checkpoint: ChainHead | None = None,
        since: ChainHead | None = None,
        events_since: ChainHead | None = None,
        controls_since: ChainHead | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> VerifyResult:
        """Walk every account's chain, the events chain and the controls chain, or only what
        follows ``since``, ``events_since`` and ``controls_since`` (see
        ``ordergate.ledger.verify``)."""
        return verify(
            self, checkpoint=checkpoint, event_checkpoint=event_checkpoint, since=since,
            events_since=events_since, controls_since=controls_since, progress=progress,
        )  # fmt: skip


# An account's rolling 24 h window (ix_reservations_window: account, created_us).
_WINDOW_SUMS = Statement(
    select(
        *window_sums(
            reservations.c.account == bindparam("account"),
            reservations.c.created_us > bindparam("low", type_=BigInteger),
            reservations.c.created_us <= bindparam("high", type_=BigInteger),
        )
    )
)


# The statements of the order path's writes and reads, built once and run on the driver's
# cursor (``ordergate.store.Statement``).
_COUNT_OPEN = (
    select(func.count())
    .select_from(open_filings)
    .where(open_filings.c.account == bindparam("account"))
)
_OPEN_COUNT = Statement(_COUNT_OPEN)
_OPEN_COUNT_OF = Statement(_COUNT_OPEN.where(open_filings.c.identity == bindparam("identity")))
_BY_FILING = reservations.c.filing_id == bindparam("b_filing")
_RESERVATION = Statement(
    select(
        reservations.c.state,
        reservations.c.amount_units,
        reservations.c.ops,
        reservations.c.account,
        reservations.c.created_us,
    ).where(_BY_FILING)
)
_SET_RESERVATION = Statement(update(reservations).where(_BY_FILING))
# One kind's: each reservation in the window joined to its filing, both sums in one pass
# (two scalar subqueries would walk the window and join every filing twice).
_KIND_WINDOW_SUMS = Statement(
    select(
        func.coalesce(func.sum(reservations.c.amount_units), literal_column("0", Integer)),
        func.coalesce(func.sum(reservations.c.ops), literal_column("0", Integer)),
    )
    .select_from(reservations.join(filings, filings.c.id == reservations.c.filing_id))
    .where(
        reservations.c.account == bindparam("account"),
        reservations.c.created_us > bindparam("low", type_=BigInteger),
        reservations.c.created_us <= bindparam("high", type_=BigInteger),
        filings.c.kind == bindparam("kind"),
    )
)
_AROUND = Statement(
    select(reservations.c.created_us, reservations.c.amount_units).where(
        reservations.c.account == bindparam("account"),
        reservations.c.created_us > bindparam("low"),
        reservations.c.created_us < bindparam("high"),
    )
)
_OPEN_ROW = open_filings.c.filing_id == bindparam("b_filing")
_CLOSE = Statement(delete(open_filings).where(_OPEN_ROW))
_SET_OPEN = Statement(update(open_filings).where(_OPEN_ROW))
_ACCEPTED = Statement(
    select(filings.c.seq, filings.c.account, filings.c.identity).where(
        filings.c.id == bindparam("b_filing"), filings.c.status == FilingStatus.ACCEPTED.value
    )
)
_INSERT_OPEN = Statement(insert(open_filings))
_INSERT_EVENT = Statement(insert(filing_events))


_EVENTS_HEAD_KEY = "events_head"
# The event each reservation state is reached by (``Ledger._adjust``).
_ADJUSTMENTS = {"released": "release", "corrected": "correct", "reserved": "readopt"}


def _events_head(connection: Connection) -> tuple[int, str]:
    """The events chain's last link; inside a write transaction that appended to it, the
    link it appended last (it holds the chain's lock: nobody else appended since)."""
    memo = step_memo(connection)
    if memo is not None and _EVENTS_HEAD_KEY in memo:
        head: tuple[int, str] = memo[_EVENTS_HEAD_KEY]
        return head
    row = EVENTS_HEAD.first(connection)
    return (0, GENESIS) if row is None else (row.seq, row.hash)


def _window(connection: Connection, account: str, now_us: int) -> list[int]:
    low, high = window_bounds(now_us)
    row = _WINDOW_SUMS.first(connection, {"account": account, "low": low, "high": high})
    return [int(row[0]), int(row[1])]


def _worst_window(connection: Connection, account: str, filed_us: int, now_us: int) -> int:
    """The largest sum (in units) of ``account``'s reservations over the rolling windows that
    hold one filed at ``filed_us`` and end by ``now_us``. A window's sum changes only where a
    reservation enters it, so the windows ending at the filing, at each later reservation
    and now are all there is to check."""
    rows = _AROUND.rows(
        connection, {"account": account, "low": filed_us - WINDOW_US, "high": filed_us + WINDOW_US}
    )
    ends = {filed_us} | {int(t) for t, _ in rows if filed_us < t <= now_us}
    if filed_us <= now_us < filed_us + WINDOW_US:
        ends.add(now_us)
    return max(sum(int(units) for t, units in rows if end - WINDOW_US < t <= end) for end in ends)


def _require_filing(connection: Connection, key: str) -> str:
    """The account of filing ``key``; ``UnknownFilingError`` if there is none. Read once per
    write transaction (a filing row never changes once filed)."""
    return filing_account(connection, key)


def _lock_filing_account(connection: Connection, key: str) -> None:
    """Lock the account of filing ``key`` (its reservation moves) and then the events chain."""
    lock_accounts(connection, [_require_filing(connection, key)])
    take_locks(connection, "events")


def _track_status(connection: Connection, filing_id: str, status: FilingStatus) -> None:
    """Keep ``open_filings`` as the definition says, in the event's own transaction: a
    terminal status removes the filing, another one sets its status, and a filing that was
    not open (ended, then moved again) is open once more if it was accepted. Each statement
    finds its row by a primary or unique key."""
    key = {"b_filing": filing_id}
    if status.terminal:
        _CLOSE.run(connection, key)
        return
    if _SET_OPEN.run(connection, {**key, "status": status.value}):
        return
    row = _ACCEPTED.first(connection, key)
    if row is not None:
        _INSERT_OPEN.run(
            connection,
            {
                "filing_id": filing_id, "seq": row.seq, "account": row.account,
                "identity": row.identity, "status": status.value,
            },
        )  # fmt: skip


def _append_event(
    connection: Connection,
    filing_id: str,
    instant: datetime,
    kind: str,
    status: str,
    detail: Mapping[str, Any],
) -> EventRecord:
    seq, prev = _events_head(connection)
    seq += 1
    created_at = iso(instant)
    detail_text = canonical_json(detail)
    digest = chain_hash(prev, event_body(seq, filing_id, created_at, kind, status, detail_text))
    _INSERT_EVENT.run(
        connection,
        {
            "seq": seq, "filing_id": filing_id, "created_at": created_at, "kind": kind,
            "status": status, "detail": detail_text, "prev_hash": prev, "hash": digest,
        },
    )  # fmt: skip
    memo = step_memo(connection)
    if memo is not None:
        memo[_EVENTS_HEAD_KEY] = (seq, digest)
    if kind == "status":
        _track_status(connection, filing_id, FilingStatus(status))
    return EventRecord(
        seq=seq,
        filing_id=UUID(filing_id),
        created_at=instant,
        kind=kind,
        status=status,
        detail=json.loads(detail_text),
        hash=digest,
    )
