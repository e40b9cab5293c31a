"""The record is stamped in wall time while a sandbox's market may be years away: the
reconciler still finds an order the broker has under a filing left in doubt, looking for it
from the filing's instant carried onto the market's clock."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from guard_kit import START, buy, desk

from ordergate.core import SteppedClock
from ordergate.ledger import FilingStatus
from ordergate.venues import NoAnswer, Ticket

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.req("clocks.security-is-wall-time")
async def test_an_order_left_in_doubt_is_adopted_when_the_market_is_years_before_the_record(
    tmp_path: Path,
) -> None:
    wall = SteppedClock(start=START + timedelta(days=3 * 365))
    async with desk(tmp_path, live=True, record_clock=wall) as d:
        real_place = d.executor.place

        async def place_then_lose_the_answer(ticket: Ticket) -> Any:
            await real_place(ticket)  # the order reaches the venue ...
            raise NoAnswer("place timed out")  # ... and its answer never comes back

        d.executor.place = place_then_lose_the_answer
        outcome = await d.guard.submit(buy("SPY"), identity="agent")
        assert outcome.status is FilingStatus.UNANSWERED
        assert d.ledger.filing(outcome.filing_id).created_at == wall.now()
        d.step(30)
        wall.advance(timedelta(seconds=30))
        report = await d.guard.reconcile()
        assert report.adopted == 1
        assert d.ledger.filing(outcome.filing_id).status is not FilingStatus.NOT_PLACED
