"""Databases to test the store against: a SQLite file per test, and a scratch Postgres
database per test when ``ORDERGATE_TEST_PG_URL`` names a server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pg_testkit import database

from ordergate.core import SteppedClock


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url
