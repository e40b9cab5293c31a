"""Late orders: a place call that reaches the broker after the filing was declared not placed.

The place call is delayed past the client's timeout and the reconciler's grace (the first
attempt is dropped at the venue's door, so the broker has nothing when it is looked up); the
same request then arrives at the venue over its socket, carrying the filing's ``ref_id``,
and fills. The reconciler, watching released filings for a day, must find and adopt it.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from guard_kit import BOUND_S, buy, desk, policy

from ordergate.ledger import FilingStatus
from ordergate.venues import NoAnswer, Ticket

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.req("wall.late-order-adopted")
async def test_an_order_delayed_past_the_grace_then_filled_at_the_venue_is_adopted_against_the_caps(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        alerts: list[dict[str, Any]] = []

        async def alert(body: dict[str, Any]) -> None:
            alerts.append(body)

        guard = d.guard_with(
            policy(f'[limits]\nmax_daily_usd = "{(ask * Decimal("2.6")).quantize(Decimal(1))}"'),
            alert=alert,
        )
        real_place = d.executor.place
        delayed: list[Ticket] = []

        async def place_delayed(ticket: Ticket) -> Any:
            # The request is held up on its way: the client times out; nothing has arrived.
            delayed.append(ticket)
            raise NoAnswer("place timed out")

        d.executor.place = place_delayed
        late = await guard.submit(buy("SPY"), identity="agent")
        assert late.status is FilingStatus.UNANSWERED
        d.step(121)
        report = await guard.reconcile()
        assert report.not_placed == 1
        assert d.ledger.rolling_spend(d.account).orders == 0  # released: the cap is free again
        d.executor.place = real_place
        spent = await guard.submit(buy("SPY", quantity=Decimal(2)), identity="agent")
        assert not spent.refused
        await guard.reconcile()
        # The delayed request arrives at the venue now, under the filing's ref_id, and fills.
        with anyio.fail_after(BOUND_S):
            arrived = await real_place(delayed[0])
        assert arrived.order is not None
        d.step(5)
        report = await guard.reconcile()
        assert (report.late, report.adopted) == (1, 1)
        record = d.ledger.filing(late.filing_id)
        assert record.status in (FilingStatus.SUBMITTED, FilingStatus.FILLED)
        spend = d.ledger.rolling_spend(d.account)
        assert spend.orders == 2 and spend.notional > ask * Decimal("2.6")  # counted
        if record.status is FilingStatus.FILLED:
            assert d.ledger.orders.executions(late.filing_id)
        [entry] = [e for e in d.ledger.journal.entries() if e.kind == "late_order_adopted"]
        assert entry.filing_id == late.filing_id and entry.detail["over_cap"] is True
        assert d.ledger.controls.pause_state().paused  # over the cap now: trading paused
        assert [(a["event"], a["filing_id"], a["paused"]) for a in alerts] == [
            ("late_order_adopted", str(late.filing_id), True)
        ]
        again = await guard.submit(buy("SPY"), identity="agent")
        assert again.refused


@pytest.mark.req("wall.late-order-adopted")
async def test_a_released_filing_is_looked_up_for_a_day_then_no_longer(tmp_path: Path) -> None:
    async with desk(tmp_path, live=True, grace=timedelta(minutes=2)) as d:

        async def place_delayed(ticket: Ticket) -> Any:
            raise NoAnswer("place timed out")

        d.executor.place = place_delayed
        outcome = await d.guard.submit(buy("SPY"), identity="agent")
        d.step(121)
        await d.guard.reconcile()
        assert d.ledger.late.due(d.account, now=d.clock.now(), batch=5) == [outcome.filing_id]
        d.step(24 * 3600)
        assert d.ledger.late.due(d.account, now=d.clock.now(), batch=5) == []
