"""``ordergate bench ledger``: filings per second, durable, and chain verification.

Each case beside a baseline measured in the same run on the same machine and disk:

- ``sqlite_raw_commit`` (baseline): stdlib ``sqlite3``, the ledger's pragmas (WAL,
  ``synchronous=FULL``), ``BEGIN IMMEDIATE`` + one INSERT of a filing-sized row + ``COMMIT``.
  The disk's fsync rate bounds it.
- ``sqlite_file_and_reserve``: ``Ledger.file_and_reserve``, one filing per commit (the cap
  check, the account chain's link, the filing, its reservation and the account's new head).
  Goal ≥ 2,000/s. Filings rotate over accounts so each account's rolling window holds at
  most 20 reservations, as a real ``max_orders_per_day`` of 20 would keep it (the cap check
  sums that window).
- ``sqlite_file_and_reserve_keyed``: the same, each filing carrying the agent's own key
  (``Filing.agent_key``: one more row, in ``agent_keys``, under its primary key), beside
  ``sqlite_file_and_reserve`` of the same run.
- ``sqlite_raw_group`` (baseline): the raw INSERT of a batch of rows per commit.
- ``sqlite_file_many``: ``Ledger.file_many`` (group commit), the same batch size. Goal
  ≥ 20,000/s. Figures are per filing (a batch's time divided by its size).
- ``sha256_chain`` (baseline): ``hashlib.sha256`` chained over the stored canonical bytes.
- ``verify_chain``: ``verify`` reading the chain from the database and checking every link.
  Goal ≥ 200,000 filings/s.
- With a Postgres URL (``--pg URL``, else ``ORDERGATE_TEST_PG_URL``), in a scratch database
  dropped afterwards, 8 writer processes, each figure aggregate filings over wall time (goal
  ≥ 5,000/s):

  - ``pg_raw_commit_8w`` (baseline): psycopg INSERT + COMMIT of a filing-sized row, one per
    commit. What 8 durable committers get from this server on this machine, doing nothing
    else.
  - ``pg_file_and_reserve_8w``: 8 writers filing one per commit, each for **its own account**
    (a multi-tenant gateway: 8 accounts trading at once). Each account's chain has its own
    lock, so the 8 commits proceed in parallel and Postgres's group commit batches their
    flushes.
  - ``pg_file_and_reserve_8w_one_account``: the same, but all 8 writers file for **one**
    account: they take turns at its lock, held through each commit's flush (as every writer
    did on the single ledger-wide chain before migration 0003).
  - ``pg_file_many_8w``: 8 writers, each on its own account, ``PG_BATCH`` filings per commit.

  A writer's k-th filing is dated k × 72 minutes after a fixed start, so each account's
  rolling window holds about 20 reservations per writer, as a ``max_orders_per_day`` of 20
  would keep it (the cap check sums that window; an ever-growing window would measure the sum
  instead of the filing).
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import os
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

from ordergate.bench._stats import Summary, summarise

__all__ = [
    "PG_BATCH",
    "SHARED_ACCOUNT",
    "SIZES",
    "ledger_pg_group_samples",
    "ledger_pg_samples",
    "raw_pg_samples",
    "run_ledger_bench",
    "scratch_postgres",
]

# (filings one per commit, batches, batch size, chain length, verify rounds, pg per writer)
SIZES = {"quick": (800, 10, 500, 20_000, 3, 150), "full": (4000, 40, 1000, 200_000, 3, 600)}
_WRITERS = 8
PG_BATCH = 50
SHARED_ACCOUNT = "shared"
_START = datetime(2026, 1, 5, 14, 30, tzinfo=UTC)
_STEP = timedelta(minutes=72)  # 20 a day per writer
_ROW = "x" * 300
_TERMS = {"symbol": "AAPL", "side": "buy", "type": "market", "quantity": Decimal("1.25")}


def run_ledger_bench(
    *, quick: bool, emit: Callable[[Summary], None], pg_url: str | None = None
) -> None:
    single, batches, batch, chain, rounds, per_writer = SIZES["quick" if quick else "full"]
    with tempfile.TemporaryDirectory() as home:
        root = Path(home)
        raw = _raw_commit(root / "raw.db", single)
        emit(raw)
        plain = _ledger_commit(root / "single.db", single)
        emit(plain.compared_with(raw))
        emit(_ledger_commit(root / "keyed.db", single, keyed=True).compared_with(plain))
        raw_group = _raw_group(root / "raw_group.db", batches, batch)
        emit(raw_group)
        emit(_ledger_group(root / "group.db", batches, batch).compared_with(raw_group))
        hashed, verified = _verification(root / "chain.db", chain, rounds)
        emit(hashed)
        emit(verified.compared_with(hashed))
    url = pg_url or os.environ.get("ORDERGATE_TEST_PG_URL")
    if url:
        with scratch_postgres(url) as scratch:
            raw_pg = _writers("pg_raw_commit_8w", _pg_raw_worker, scratch, per_writer)
            emit(raw_pg)
            emit(
                _writers("pg_file_and_reserve_8w", _pg_ledger_worker, scratch, per_writer)
                .compared_with(raw_pg)
            )  # fmt: skip
            emit(
                _writers(
                    "pg_file_and_reserve_8w_one_account", _pg_shared_worker, scratch, per_writer
                ).compared_with(raw_pg)
            )
            emit(
                _writers("pg_file_many_8w", _pg_group_worker, scratch, per_writer)
                .compared_with(raw_pg)
            )  # fmt: skip


def _clock() -> Any:
    from ordergate.core import RealtimeClock

    return RealtimeClock()


def _caps() -> Any:
    from ordergate.ledger import RollingCaps

    return RollingCaps(max_daily_usd=Decimal(10) ** 12, max_orders_per_day=10**9)


def _filing(account: str = "bench", *, keyed: bool = False) -> Any:
    from ordergate.ledger import Filing

    key = uuid.uuid4() if keyed else None
    return Filing(identity="bench-agent", account=account, terms=_TERMS, agent_key=key)


def _timed(call: Callable[[], object], n: int) -> list[int]:
    samples = []
    for _ in range(n):
        started = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - started)
    return samples


def _amortised(case: str, batch_ns: list[int], per_batch: int) -> Summary:
    """Per-filing figures from batches: each batch's time divided by its size."""
    per_item = [ns // per_batch for ns in batch_ns]
    summary = summarise("ledger", case, per_item)
    total_s = Decimal(sum(batch_ns)) / Decimal(1_000_000_000)
    ops = (Decimal(per_batch * len(batch_ns)) / total_s).quantize(Decimal("0.1"))
    return Summary("ledger", case, per_batch * len(batch_ns), summary.p50_us, summary.p99_us, ops)


def _raw_connection(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = FULL")
    connection.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, id TEXT, body TEXT, h TEXT)")
    return connection


def _raw_commit(path: Path, n: int) -> Summary:
    connection = _raw_connection(path)

    def one() -> None:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(
            "INSERT INTO t (id, body, h) VALUES (?, ?, ?)", (str(uuid.uuid4()), _ROW, "0" * 64)
        )
        connection.execute("COMMIT")

    _timed(one, 50)
    samples = _timed(one, n)
    connection.close()
    return summarise("ledger", "sqlite_raw_commit", samples)


def _ledger_commit(path: Path, n: int, *, keyed: bool = False) -> Summary:
    from ordergate.ledger import open_ledger

    caps = _caps()
    with open_ledger(f"sqlite:///{path}", clock=_clock()) as ledger:
        accounts = itertools.cycle([f"acct-{i}" for i in range(max(1, (n + 50) // 20))])

        def one() -> None:
            filing = _filing(next(accounts), keyed=keyed)
            ledger.file_and_reserve(filing, notional=Decimal("12.5"), caps=caps)

        _timed(one, 50)
        samples = _timed(one, n)
    case = "sqlite_file_and_reserve_keyed" if keyed else "sqlite_file_and_reserve"
    return summarise("ledger", case, samples)


def _raw_group(path: Path, batches: int, size: int) -> Summary:
    connection = _raw_connection(path)

    def one() -> None:
        rows = [(str(uuid.uuid4()), _ROW, "0" * 64) for _ in range(size)]
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany("INSERT INTO t (id, body, h) VALUES (?, ?, ?)", rows)
        connection.execute("COMMIT")

    _timed(one, 2)
    samples = _timed(one, batches)
    connection.close()
    return _amortised("sqlite_raw_group", samples, size)


def _ledger_group(path: Path, batches: int, size: int) -> Summary:
    from ordergate.ledger import open_ledger

    caps = _caps()
    with open_ledger(f"sqlite:///{path}", clock=_clock()) as ledger:
        accounts = itertools.count()

        def one() -> None:
            # A fresh account per batch: its window holds only this batch, as real caps keep
            # every account's window small (see the one-per-commit case).
            account = f"acct-{next(accounts)}"
            ledger.file_many([(_filing(account), Decimal("12.5")) for _ in range(size)], caps=caps)

        _timed(one, 2)
        samples = _timed(one, batches)
    return _amortised("sqlite_file_many", samples, size)


def _verification(path: Path, length: int, rounds: int) -> tuple[Summary, Summary]:
    from ordergate.ledger import linked_filing_body, open_ledger

    caps = _caps()
    with open_ledger(f"sqlite:///{path}", clock=_clock()) as ledger:
        for start in range(0, length, 5000):
            size = min(5000, length - start)
            ledger.file_many([(_filing(), Decimal("12.5")) for _ in range(size)], caps=caps)
        with ledger.engine.connect() as connection:
            bodies = [
                linked_filing_body(*row)
                for row in connection.exec_driver_sql(
                    "SELECT seq, account_seq, id, identity, account, created_at, kind, status, "
                    "decision, reasons, terms, notional FROM filings ORDER BY seq"
                )
            ]

        def chain() -> None:
            prev = "0" * 64
            for body in bodies:
                prev = hashlib.sha256(prev.encode("ascii") + body).hexdigest()

        def walk() -> None:
            if not ledger.verify().ok:
                raise RuntimeError("the bench chain does not verify")

        hashed = [_timed(chain, 1)[0] for _ in range(rounds)]
        walked = [_timed(walk, 1)[0] for _ in range(rounds)]
    return (
        _amortised("sha256_chain", hashed, len(bodies)),
        _amortised("verify_chain", walked, len(bodies)),
    )


@contextmanager
def scratch_postgres(url: str) -> Iterator[str]:
    """A uniquely named database on the server of ``url``, dropped on exit; yields its URL."""
    import psycopg
    from sqlalchemy import make_url

    parsed = make_url(url)
    name = f"ordergate_scratch_{uuid.uuid4().hex[:12]}"
    admin_dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield parsed.set(drivername="postgresql+psycopg", database=name).render_as_string(
            hide_password=False
        )
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _writers(
    case: str, worker: Callable[[str, int, int, Any, Any], None], url: str, per_writer: int
) -> Summary:
    if worker is not _pg_raw_worker:
        from ordergate.ledger import open_ledger

        open_ledger(url, clock=_clock()).close()  # migrate once, before the race
    else:
        import psycopg
        from sqlalchemy import make_url

        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(dsn, autocommit=True) as setup:
            setup.execute(
                "CREATE TABLE IF NOT EXISTS raw_t (seq BIGSERIAL PRIMARY KEY, id TEXT, body TEXT)"
            )
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(_WRITERS + 1)
    results = context.Queue()
    processes = [
        context.Process(target=worker, args=(url, index, per_writer, barrier, results))
        for index in range(_WRITERS)
    ]
    for process in processes:
        process.start()
    barrier.wait(timeout=120)
    started = time.perf_counter_ns()
    samples: list[int] = []
    for _ in processes:
        samples += results.get(timeout=300)
    wall_ns = time.perf_counter_ns() - started
    for process in processes:
        process.join(timeout=60)
    summary = summarise("ledger", case, samples)
    ops = (Decimal(len(samples)) * Decimal(1_000_000_000) / Decimal(wall_ns)).quantize(
        Decimal("0.1"), ROUND_HALF_EVEN
    )
    return Summary("ledger", case, len(samples), summary.p50_us, summary.p99_us, ops)


def _pg_raw_worker(url: str, index: int, n: int, barrier: Any, results: Any) -> None:
    results.put(raw_pg_samples(url, index, n, lambda: barrier.wait(timeout=120)))


def _pg_ledger_worker(url: str, index: int, n: int, barrier: Any, results: Any) -> None:
    results.put(ledger_pg_samples(url, index, n, lambda: barrier.wait(timeout=120)))


def _pg_shared_worker(url: str, index: int, n: int, barrier: Any, results: Any) -> None:
    results.put(ledger_pg_samples(url, index, n, lambda: barrier.wait(timeout=120), SHARED_ACCOUNT))


def _dated(index: int, k: int) -> datetime:
    """Writer ``index``'s ``k``-th filing time (see the module's notes)."""
    return _START + k * _STEP + timedelta(microseconds=index)


def _pg_group_worker(url: str, index: int, n: int, barrier: Any, results: Any) -> None:
    results.put(ledger_pg_group_samples(url, index, n, lambda: barrier.wait(timeout=120)))


def raw_pg_samples(url: str, index: int, n: int, ready: Callable[[], object]) -> list[int]:
    """One writer of the baseline: ``n`` psycopg INSERT + COMMIT after ``ready`` returns."""
    import psycopg
    from sqlalchemy import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as connection:

        def one() -> None:
            connection.execute(
                "INSERT INTO raw_t (id, body) VALUES (%s, %s)", (str(uuid.uuid4()), _ROW)
            )
            connection.commit()

        _timed(one, 10)
        ready()
        return _timed(one, n)


def ledger_pg_samples(
    url: str, index: int, n: int, ready: Callable[[], object], account: str | None = None
) -> list[int]:
    """One writer of the ledger case: ``n`` filings, one per commit, on ``account`` (its own,
    ``acct-INDEX``, by default)."""
    from ordergate.ledger import open_ledger

    caps = _caps()
    name = account or f"acct-{index}"
    filed = itertools.count()
    with open_ledger(url, clock=_clock()) as ledger:

        def one() -> None:
            now = _dated(index, next(filed))
            ledger.file_and_reserve(_filing(name), notional=Decimal(1), caps=caps, now=now)

        _timed(one, 10)
        ready()
        return _timed(one, n)


def ledger_pg_group_samples(url: str, index: int, n: int, ready: Callable[[], object]) -> list[int]:
    """One writer of the group-commit case: ``n`` filings in batches of ``PG_BATCH``; each
    sample is a batch's time divided by its size (per filing)."""
    from ordergate.ledger import open_ledger

    caps = _caps()
    filed = itertools.count()
    with open_ledger(url, clock=_clock()) as ledger:

        def one() -> None:
            batch = [(_filing(f"acct-{index}"), Decimal(1)) for _ in range(PG_BATCH)]
            ledger.file_many(batch, caps=caps, now=_dated(index, next(filed)))

        _timed(one, 2)
        ready()
        samples: list[int] = []
        for ns in _timed(one, max(1, n // PG_BATCH)):
            samples += [ns // PG_BATCH] * PG_BATCH
        return samples
