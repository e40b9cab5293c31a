"""Eight OS processes race one cap on one ledger: no overshoot, no lost filing."""

from __future__ import annotations

import multiprocessing
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import (
    CAP_DAILY_USD,
    CAP_ORDERS_PER_DAY,
    Filing,
    FilingStatus,
    RollingCaps,
    open_ledger,
)

WRITERS = 8
ATTEMPTS = 12
CAPS = RollingCaps(max_daily_usd=Decimal(200), max_orders_per_day=20)
NOTIONALS = (Decimal(7), Decimal(10), Decimal(13))
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
WAIT_S = 120


def _race_worker(url: str, index: int, barrier: Any, results: Any) -> None:
    clock = SteppedClock(start=START)
    seen: list[tuple[str, bool, str, str | None]] = []
    with open_ledger(url, clock=clock) as ledger:
        barrier.wait(timeout=WAIT_S)
        for attempt in range(ATTEMPTS):
            notional = NOTIONALS[(index + attempt) % len(NOTIONALS)]
            result = ledger.file_and_reserve(
                Filing(f"agent-{index}", {"attempt": attempt}, account="shared"),
                notional=notional,
                caps=CAPS,
            )
            seen.append((str(result.record.id), result.accepted, str(notional), result.reason))
    results.put(seen)


def _race(url: str) -> None:
    open_ledger(url, clock=SteppedClock(start=START)).close()  # migrated before the race
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WRITERS)
    results = context.Queue()
    processes = [
        context.Process(target=_race_worker, args=(url, index, barrier, results))
        for index in range(WRITERS)
    ]
    for process in processes:
        process.start()
    seen = [row for _ in processes for row in results.get(timeout=WAIT_S)]
    for process in processes:
        process.join(timeout=WAIT_S)
        assert process.exitcode == 0

    accepted = [row for row in seen if row[1]]
    spent = sum((Decimal(row[2]) for row in accepted), Decimal(0))
    assert len(seen) == WRITERS * ATTEMPTS
    assert spent <= CAPS.max_daily_usd
    assert len(accepted) <= CAPS.max_orders_per_day
    assert {row[3] for row in seen if not row[1]} <= {CAP_DAILY_USD, CAP_ORDERS_PER_DAY}
    # The caps were used up, not left idle: the racers filled them.
    assert len(accepted) == CAPS.max_orders_per_day or CAPS.max_daily_usd - spent < max(NOTIONALS)

    with open_ledger(url, clock=SteppedClock(start=START)) as ledger:
        assert ledger.head().seq == WRITERS * ATTEMPTS
        for filing_id, was_accepted, _notional, _reason in seen:
            on_file = ledger.filing(filing_id)
            assert on_file.accepted is was_accepted
            assert on_file.status is (
                FilingStatus.ACCEPTED if was_accepted else FilingStatus.REFUSED
            )
        spend = ledger.rolling_spend("shared")
        assert (spend.notional, spend.orders) == (spent, len(accepted))
        assert ledger.verify().ok


@pytest.mark.req("ledger.caps-hold-across-processes")
@pytest.mark.req("ledger.filing-reservation-atomic")
def test_eight_processes_racing_one_cap_on_one_sqlite_file_never_overshoot_or_lose_a_filing(
    tmp_path: Path,
) -> None:
    _race(f"sqlite:///{tmp_path / 'race.db'}")


@pytest.mark.req("ledger.caps-hold-across-processes")
@pytest.mark.req("ledger.postgres-parity")
def test_eight_processes_racing_one_cap_on_postgres_never_overshoot_or_lose_a_filing(
    pg_url: str,
) -> None:
    _race(pg_url)
