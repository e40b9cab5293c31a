"""Ledgers to test against: a SQLite file per test, and a scratch Postgres database per test
when ``ORDERGATE_TEST_PG_URL`` names a server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pg_testkit import database, pg_server

from ordergate.bench._ledger import scratch_postgres
from ordergate.core import SteppedClock
from ordergate.ledger import Ledger, open_ledger

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=START)


@pytest.fixture
def pg_url() -> Iterator[str]:
    with scratch_postgres(pg_server()) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def ledger(ledger_url: str, clock: SteppedClock) -> Iterator[Ledger]:
    with open_ledger(ledger_url, clock=clock) as opened:
        yield opened
