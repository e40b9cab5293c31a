"""Filing a batch: the cap check, the account chains' links and the reservations, in one
transaction that holds the locks of every account in the batch.

Order inside the transaction: take the locks (SQLite: its one write lock, ``BEGIN
IMMEDIATE``; Postgres: the filings gate shared, then the accounts' locks, see ``_engine``);
then, in a statement of its own so that it sees every commit made under those locks, read the
pause flag, each account's chain head (``chain_heads``) and rolling window, and number the
filings (``max(seq)`` on SQLite; the ``filings_seq`` sequence on Postgres, taken under the
account locks so that one account's filings are numbered along its chain); then write the
filings, the accepted ones' reservations and rows of ``open_filings`` (each is open until a
terminal status event removes it, see ``_ledger``), the agent keys of the filings that carry
one (``agent_keys``: its primary key refuses a key the identity filed before, and the whole
batch with it: ``AgentKeyUsedError``), the new heads, and commit.

The statements are SQLAlchemy Core, compiled once per dialect, run on the driver's cursor of
the SQLAlchemy transaction (as ``verify`` reads the chain); SQLAlchemy still opens, begins,
commits and pools. Per statement, SQLAlchemy's execution layer (result objects, events,
parameter processing) cost more CPU than SQLite's own work, and a one-filing commit runs five
(SQLite) or six (Postgres) of them: on the ledger bench's one-per-commit SQLite case the
driver's cursor gave about 1.5 times the filings per second of the same statements through
``Connection.exec_driver_sql`` (group commit, one statement per table per batch, is the same
either way).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    Engine,
    Integer,
    String,
    bindparam,
    func,
    insert,
    literal_column,
    select,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.expression import ClauseElement, ColumnElement
from sqlalchemy.sql.selectable import ScalarSelect

from ordergate.core import to_us, to_wire
from ordergate.ledger._canonical import (
    GENESIS,
    canonical_json,
    chain_hash,
    has_control,
    linked_filing_body,
    plain_json,
    to_units,
)
from ordergate.ledger._controls import PAUSE_KEY, paused_from
from ordergate.ledger._errors import AgentKeyUsedError
from ordergate.ledger._models import (
    CAP_DAILY_USD,
    CAP_ORDERS_PER_DAY,
    PAUSED,
    Decision,
    Filing,
    FilingRecord,
    FilingResult,
    FilingStatus,
    RollingCaps,
)
from ordergate.ledger._schema import (
    agent_keys,
    chain_heads,
    controls,
    filings,
    filings_seq,
    open_filings,
    reservations,
)
from ordergate.store import ACCOUNT_LOCKS, account_lock_params, iso, write_transaction

__all__ = ["WINDOW_US", "Prepared", "file_batch", "prepare", "window_bounds", "window_sums"]

WINDOW_US = 24 * 3600 * 1_000_000
_MAX_TEXT = 200


@dataclass(frozen=True, slots=True)
class Prepared:
    """A filing checked and encoded before its transaction opens."""

    filing: Filing
    units: int
    notional: str
    terms: str
    plain: Any


def prepare(filing: Filing, notional: Decimal) -> Prepared:
    """Check ``filing`` and ``notional`` and encode its terms; ``ValueError``/``TypeError``."""
    if not notional.is_finite() or notional < 0:
        raise ValueError("notional must be a finite, non-negative decimal")
    if not filing.identity or len(filing.identity) > _MAX_TEXT:
        raise ValueError(f"identity must be 1 to {_MAX_TEXT} characters")
    if len(filing.account) > _MAX_TEXT or not filing.kind or len(filing.kind) > 64:
        raise ValueError("account is at most 200 characters, kind 1 to 64")
    if any(has_control(text) for text in (filing.identity, filing.account, filing.kind)):
        raise ValueError("identity, account and kind must not hold control characters")
    plain = plain_json(filing.terms)
    return Prepared(filing, to_units(notional), to_wire(notional), canonical_json(plain), plain)


_FOREVER_US = 2**63 - 1


def window_bounds(now_us: int) -> tuple[int, int]:
    """The reservations a cap check at ``now_us`` counts: ``(now - 24 h, high]`` in
    microseconds, with no upper limit. A reservation dated after ``now`` (another process
    or replica whose clock runs ahead) counts too: every window a new filing falls in ends
    at or after ``now``, so what was filed "later" is in those windows as well."""
    return now_us - WINDOW_US, _FOREVER_US


def window_sums(*in_window: ColumnElement[bool]) -> tuple[ScalarSelect[Any], ScalarSelect[Any]]:
    """The reserved units and orders of the reservations ``in_window`` selects
    (ix_reservations_window), as two scalar subqueries of a snapshot statement."""
    zero = literal_column("0", Integer)  # a constant as SQL text: every parameter is one of ours
    return (
        select(func.coalesce(func.sum(reservations.c.amount_units), zero))
        .where(*in_window)
        .scalar_subquery(),
        select(func.coalesce(func.sum(reservations.c.ops), zero))
        .where(*in_window)
        .scalar_subquery(),
    )


def file_batch(
    engine: Engine, batch: Sequence[Prepared], *, caps: RollingCaps, instant: datetime
) -> list[FilingResult]:
    """File ``batch`` (in order, each seeing the reservations of the ones before it)."""
    sql = _statements(engine.dialect)
    filer = _Filer(batch, caps, instant)
    driver_error = engine.dialect.loaded_dbapi.Error
    try:
        return _run(engine, sql, filer)
    except engine.dialect.loaded_dbapi.IntegrityError as error:
        keyed = [p.filing.agent_key for p in batch if p.filing.agent_key is not None]
        if keyed:
            # The only key a new filing can collide on: its id is a fresh UUID.
            raise AgentKeyUsedError(keyed[0]) from None
        raise DBAPIError.instance(None, None, error, driver_error, hide_parameters=True) from None
    except driver_error as error:
        # As SQLAlchemy's own execution would raise it (IntegrityError, OperationalError…),
        # without the parameters (terms) in the message.
        raise DBAPIError.instance(None, None, error, driver_error, hide_parameters=True) from None


def _run(engine: Engine, sql: _Statements, filer: _Filer) -> list[FilingResult]:
    batch = filer.batch
    with write_transaction(engine) as connection:
        driver = connection.connection.driver_connection
        assert driver is not None
        cursor = driver.cursor()
        # Postgres: the statements go out in a pipeline, so the locks and the snapshot cost
        # one round trip and the writes one more (the server still runs them in order: the
        # snapshot statement starts after the locks are held).
        with driver.pipeline() if sql.locks is not None else nullcontext():
            if sql.locks is not None:
                cursor.execute(sql.locks, account_lock_params(p.filing.account for p in batch))

            def snapshot(account: str, count: int) -> Any:
                params = {"pause": PAUSE_KEY, "account": account, **filer.window}
                if sql.numbers_by_sequence:
                    params["n"] = count
                cursor.execute(sql.snapshot, params)
                return cursor.fetchone()

            row = snapshot(batch[0].filing.account, len(batch))
            if sql.numbers_by_sequence:
                numbers: Iterable[int] = sorted(row[5])
            else:
                numbers = range(row[5] + 1, row[5] + 1 + len(batch))
            results = filer.file(row, numbers, snapshot)
            cursor.executemany(sql.insert_filings, filer.filing_rows)
            if filer.reservation_rows:
                cursor.executemany(sql.insert_reservations, filer.reservation_rows)
                cursor.executemany(sql.insert_open, filer.open_rows)
            if filer.key_rows:
                cursor.executemany(sql.insert_keys, filer.key_rows)
            cursor.executemany(sql.upsert_heads, filer.head_rows())
        cursor.close()
    return results


class _Filer:
    """The batch's decisions, links and rows, from what the snapshot statement read."""

    def __init__(self, batch: Sequence[Prepared], caps: RollingCaps, instant: datetime) -> None:
        self.batch = batch
        self.caps = caps
        self.cap_units = to_units(caps.max_daily_usd)
        self.instant = instant.astimezone(UTC)
        self.created_at = iso(instant)
        self.created_us = to_us(instant)
        low, high = window_bounds(self.created_us)
        self.window = {"low": low, "high": high}
        self.accounts: dict[str, _Account] = {}
        self.filing_rows: list[dict[str, Any]] = []
        self.reservation_rows: list[dict[str, Any]] = []
        self.open_rows: list[dict[str, Any]] = []
        self.key_rows: list[dict[str, Any]] = []

    def file(
        self, first: Any, numbers: Iterable[int], snapshot: Callable[[str, int], Any]
    ) -> list[FilingResult]:
        """Decide and link every filing; ``first`` is the snapshot of the first filing's
        account, ``snapshot(account, 0)`` reads another account's."""
        paused = paused_from(first[0])
        self.accounts[self.batch[0].filing.account] = _Account(first)
        results = []
        for prepared, seq in zip(self.batch, numbers, strict=True):
            filing = prepared.filing
            account = self.accounts.get(filing.account)
            if account is None:
                account = self.accounts[filing.account] = _Account(snapshot(filing.account, 0))
            reasons = list(filing.reasons)
            accepted = filing.decision is Decision.ACCEPT
            if accepted and paused:
                accepted, reasons = False, [*reasons, PAUSED]
            if accepted:
                over = []
                if account.ops + 1 > self.caps.max_orders_per_day:
                    over.append(CAP_ORDERS_PER_DAY)
                if account.units + prepared.units > self.cap_units:
                    over.append(CAP_DAILY_USD)
                if over:
                    accepted, reasons = False, [*reasons, *over]
                else:
                    account.units += prepared.units
                    account.ops += 1
            results.append(self._append(prepared, seq, account, accepted, reasons))
        return results

    def _append(
        self, prepared: Prepared, seq: int, account: _Account, accepted: bool, reasons: list[str]
    ) -> FilingResult:
        filing = prepared.filing
        status = FilingStatus.ACCEPTED if accepted else FilingStatus.REFUSED
        filing_id = str(filing.id)
        reasons_text = canonical_json(reasons) if reasons else "[]"
        link = account.hash
        account.account_seq += 1
        account.seq = seq
        account.hash = chain_hash(
            link,
            linked_filing_body(
                seq, account.account_seq, filing_id, filing.identity, filing.account,
                self.created_at, filing.kind, status.value, filing.decision.value,
                reasons_text, prepared.terms, prepared.notional,
            ),
        )  # fmt: skip
        self.filing_rows.append(
            {
                "seq": seq,
                "account_seq": account.account_seq,
                "id": filing_id,
                "identity": filing.identity,
                "account": filing.account,
                "created_at": self.created_at,
                "kind": filing.kind,
                "status": status.value,
                "decision": filing.decision.value,
                "reasons": reasons_text,
                "terms": prepared.terms,
                "notional": prepared.notional,
                "prev_hash": link,
                "hash": account.hash,
            }
        )
        if filing.agent_key is not None:
            self.key_rows.append(
                {
                    "identity": filing.identity,
                    "agent_key": str(filing.agent_key),
                    "filing_id": filing_id,
                }
            )
        if accepted:
            self.reservation_rows.append(
                {
                    "filing_id": filing_id,
                    "account": filing.account,
                    "created_us": self.created_us,
                    "units": prepared.units,
                    "ops": 1,
                    "state": "reserved",
                }
            )
            self.open_rows.append(
                {
                    "filing_id": filing_id,
                    "seq": seq,
                    "account": filing.account,
                    "identity": filing.identity,
                    "status": status.value,
                }
            )
        return FilingResult(
            accepted=accepted,
            reason=None if accepted else (reasons[0] if reasons else "refused"),
            record=FilingRecord(
                seq=seq,
                id=filing.id,
                identity=filing.identity,
                account=filing.account,
                created_at=self.instant,
                kind=filing.kind,
                outcome=status,
                status=status,
                decision=filing.decision,
                reasons=tuple(reasons),
                terms=prepared.plain,
                notional=Decimal(prepared.notional),
                prev_hash=link,
                hash=account.hash,
            ),
        )

    def head_rows(self) -> list[dict[str, Any]]:
        """The new head of every account the batch filed for."""
        return [
            {"account": name, "seq": a.seq, "account_seq": a.account_seq, "hash": a.hash}
            for name, a in self.accounts.items()
        ]


class _Account:
    """One account's state inside the transaction: its window and its chain head."""

    __slots__ = ("account_seq", "hash", "ops", "seq", "units")

    def __init__(self, row: Any) -> None:
        self.units = int(row[3])
        self.ops = int(row[4])
        self.account_seq = 0 if row[1] is None else int(row[1])
        self.hash: str = GENESIS if row[2] is None else row[2]
        self.seq = 0


@dataclass(frozen=True, slots=True)
class _Statements:
    locks: str | None
    snapshot: str
    numbers_by_sequence: bool
    insert_filings: str
    insert_reservations: str
    insert_open: str
    insert_keys: str
    upsert_heads: str


_COMPILED: dict[str, _Statements] = {}
_OPEN_COLUMNS = ("filing_id", "seq", "account", "identity", "status")
_KEY_COLUMNS = ("identity", "agent_key", "filing_id")


def _statements(dialect: Dialect) -> _Statements:
    compiled = _COMPILED.get(dialect.name)
    if compiled is None:
        compiled = _COMPILED[dialect.name] = _compile(dialect)
    return compiled


def _compile(dialect: Dialect) -> _Statements:
    on_postgres = dialect.name == "postgresql"
    # Named parameters on both drivers, so every statement takes a dict.
    target = dialect if on_postgres else sqlite.dialect(paramstyle="named")

    def sql(statement: ClauseElement) -> str:
        return str(statement.compile(dialect=target))

    zero = literal_column("0", Integer)  # constants as SQL text: every parameter is one of ours
    account = bindparam("account", type_=String)
    low = bindparam("low", type_=BigInteger)
    high = bindparam("high", type_=BigInteger)
    in_window = (
        reservations.c.account == account,
        reservations.c.created_us > low,
        reservations.c.created_us <= high,
    )
    if on_postgres:
        numbering = (
            select(func.array_agg(filings_seq.next_value()))
            .select_from(func.generate_series(literal_column("1"), bindparam("n", type_=Integer)))
            .scalar_subquery()
        )
    else:
        numbering = select(func.coalesce(func.max(filings.c.seq), zero)).scalar_subquery()
    head = chain_heads.c.account == account
    snapshot = select(
        select(controls.c.value).where(controls.c.key == bindparam("pause")).scalar_subquery(),
        select(chain_heads.c.account_seq).where(head).scalar_subquery(),
        select(chain_heads.c.hash).where(head).scalar_subquery(),
        *window_sums(*in_window),
        numbering,
    )
    filing_columns = [column.name for column in filings.columns]
    units = bindparam("units", type_=BigInteger)
    if on_postgres:
        # Postgres's dialect only where it is used: importing it costs ~40 ms of every start.
        from sqlalchemy.dialects import postgresql
    upsert = (postgresql.insert if on_postgres else sqlite.insert)(chain_heads).values(
        {name: bindparam(name) for name in ("account", "seq", "account_seq", "hash")}
    )
    upsert = upsert.on_conflict_do_update(
        index_elements=[chain_heads.c.account],
        set_={name: upsert.excluded[name] for name in ("seq", "account_seq", "hash")},
    )
    return _Statements(
        locks=sql(ACCOUNT_LOCKS) if on_postgres else None,
        snapshot=sql(snapshot),
        numbers_by_sequence=on_postgres,
        insert_filings=sql(
            insert(filings).values({name: bindparam(name) for name in filing_columns})
        ),
        insert_reservations=sql(
            insert(reservations).values(
                filing_id=bindparam("filing_id"),
                account=bindparam("account"),
                created_us=bindparam("created_us"),
                reserved_units=units,
                amount_units=units,
                ops=bindparam("ops", type_=Integer),
                state=bindparam("state", type_=String),
            )
        ),
        insert_open=sql(
            insert(open_filings).values({name: bindparam(name) for name in _OPEN_COLUMNS})
        ),
        insert_keys=sql(
            insert(agent_keys).values({name: bindparam(name) for name in _KEY_COLUMNS})
        ),
        upsert_heads=sql(upsert),
    )
