"""Owner tests run on a SQLite ledger and, when ``ORDERGATE_TEST_PG_URL`` names a server, on
a scratch Postgres one; the owner's security clock is stepped, the ledger's its own."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pg_testkit import database

from ordergate.core import SteppedClock
from ordergate.ledger import Ledger, open_ledger

NOW = datetime(2026, 12, 1, 15, 0, 7, tzinfo=UTC)


@pytest.fixture
def wall() -> SteppedClock:
    """The owner authority's (security) clock."""
    return SteppedClock(start=NOW)


@pytest.fixture(params=["sqlite", "postgres"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    with (
        database(request.param, tmp_path) as url,
        open_ledger(url, clock=SteppedClock(start=datetime(2020, 1, 6, tzinfo=UTC))) as opened,
    ):
        yield opened
