"""Ledgers to test against: a SQLite file per test, and a scratch Postgres database per test
when ``ORDERGATE_TEST_PG_URL`` names a server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ordergate.bench._ledger import scratch_postgres
from ordergate.core import SteppedClock
from ordergate.ledger import Ledger, open_ledger

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
PG_ENV = "ORDERGATE_TEST_PG_URL"
PG_HOW = (
    f"Postgres tests need {PG_ENV}, e.g. "
    f"{PG_ENV}=postgresql://postgres@127.0.0.1:5432/test (a server where CREATE DATABASE works)"
)


def pg_server() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(PG_HOW)
    return url


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=START)


@pytest.fixture
def pg_url() -> Iterator[str]:
    with scratch_postgres(pg_server()) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        with scratch_postgres(pg_server()) as url:
            yield url


@pytest.fixture
def ledger(ledger_url: str, clock: SteppedClock) -> Iterator[Ledger]:
    with open_ledger(ledger_url, clock=clock) as opened:
        yield opened
