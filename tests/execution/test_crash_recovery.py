"""A guard process SIGKILLed mid-order, and the process that restarts after it.

The child (crash_child.py) is a real Python process with a live guard on a real sandbox venue
over loopback and a real ledger (a SQLite file; a scratch Postgres database too when
``ORDERGATE_TEST_PG_URL`` names a server). It dies by SIGKILL either just before ``place``
(the filing is committed, nothing was sent) or just after ``place`` answered (the order is
live, the answer never recorded). The restarted process opens the same ledger, reconciles,
and must end with no duplicate order at the venue and no filing lost or left open.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from uuid import UUID

import pytest
from crash_kit import GRACE, SIGKILLED, kill_child, restarted, site, venue_orders
from paper_kit import BACKENDS, ledger_url_for

from ordergate.ledger import FilingStatus, Ledger, Spend, UnknownFilingError

pytestmark = pytest.mark.anyio

FILL_S = 5  # venue seconds: queued → confirmed (1 s) → filled (1 s later), with room


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=BACKENDS)
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with ledger_url_for(request.param, tmp_path) as url:
        yield url


def statuses(ledger: Ledger, filing_id: UUID) -> list[str]:
    return [event.status for event in ledger.events(filing_id) if event.kind == "status"]


@pytest.mark.req("wall.crash.no-duplicate-no-loss")
async def test_a_guard_killed_before_place_leaves_its_filing_which_the_restart_declares_not_placed(
    tmp_path: Path, ledger_url: str
) -> None:
    with site() as where:
        crash = kill_child("before_place", where, ledger_url, tmp_path)
        assert crash.returncode == SIGKILLED, str(crash)
        assert crash.ref_id is not None, str(crash)
        async with restarted(where, ledger_url, tmp_path) as r:
            # No lost filing: the restart finds the one that was in flight, accepted, with
            # nothing after it, still holding its reservation (it might be in flight).
            [record] = r.ledger.open_filings(where.account)
            assert record.id == crash.ref_id
            assert record.status is FilingStatus.ACCEPTED and statuses(r.ledger, record.id) == []
            with pytest.raises(UnknownFilingError):
                r.ledger.orders.get(record.id)
            assert r.ledger.rolling_spend(where.account).orders == 1
            assert venue_orders(where) == []

            # Before the grace has passed it might still be in flight: it stays open.
            early = await r.guard.reconcile()
            assert (early.checked, early.adopted, early.not_placed, early.unreachable) == (
                1,
                0,
                0,
                0,
            )
            assert r.ledger.filing(record.id).status is FilingStatus.ACCEPTED
            assert r.ledger.rolling_spend(where.account).orders == 1

            # Past the grace the venue still has no order under its ref_id: not placed, and
            # the reservation is given back. Nothing is re-sent.
            where.clock.advance(GRACE + timedelta(seconds=1))
            late = await r.guard.reconcile()
            assert (late.checked, late.adopted, late.not_placed, late.errors) == (1, 0, 1, [])
            assert r.ledger.filing(record.id).status is FilingStatus.NOT_PLACED
            assert statuses(r.ledger, record.id) == ["not_placed"]
            assert r.ledger.rolling_spend(where.account) == Spend(Decimal(0), 0)
            assert r.ledger.open_filings(where.account) == []
            assert venue_orders(where) == []
            assert r.ledger.head().seq == 1
            assert r.ledger.verify().ok

            # Another pass changes nothing.
            again = await r.guard.reconcile()
            assert again.checked == 0 and venue_orders(where) == []


@pytest.mark.req("wall.crash.no-duplicate-no-loss")
async def test_a_guard_killed_after_place_leaves_one_live_order_which_the_restart_adopts_and_books(
    tmp_path: Path, ledger_url: str
) -> None:
    with site() as where:
        crash = kill_child("after_place", where, ledger_url, tmp_path)
        assert crash.returncode == SIGKILLED, str(crash)
        assert crash.ref_id is not None, str(crash)
        async with restarted(where, ledger_url, tmp_path) as r:
            # The order went out; the answer was never recorded.
            [record] = r.ledger.open_filings(where.account)
            assert record.id == crash.ref_id
            assert record.status is FilingStatus.ACCEPTED and statuses(r.ledger, record.id) == []
            with pytest.raises(UnknownFilingError):
                r.ledger.orders.get(record.id)
            assert r.ledger.rolling_spend(where.account).orders == 1
            [live] = venue_orders(where, record.id)
            assert (live["symbol"], live["side"], Decimal(live["quantity"])) == (
                "SPY",
                "buy",
                Decimal(1),
            )

            # The restart finds it by ref_id and adopts it; nothing is re-sent.
            first = await r.guard.reconcile()
            assert (first.checked, first.adopted, first.not_placed, first.errors) == (1, 1, 0, [])
            assert r.ledger.filing(record.id).status is FilingStatus.SUBMITTED
            assert r.ledger.orders.get(record.id).broker_order_id == live["id"]
            assert r.ledger.events(record.id)[-1].detail == {
                "order_id": live["id"],
                "adopted": True,
            }

            # The venue fills it as its clock runs; the next pass books the fill and the
            # spend converges to it.
            where.clock.advance(timedelta(seconds=FILL_S))
            second = await r.guard.reconcile()
            assert (second.checked, second.adopted, second.fills_booked) == (1, 0, 1)
            assert r.ledger.filing(record.id).status is FilingStatus.FILLED
            assert statuses(r.ledger, record.id) == ["submitted", "filled"]
            [filled] = venue_orders(where, record.id)
            assert filled["id"] == live["id"] and filled["state"] == "filled"
            [execution] = filled["executions"]
            [booked] = r.ledger.orders.executions(record.id)
            assert (booked.id, booked.quantity, booked.price, booked.basis_source) == (
                execution["id"],
                Decimal(execution["quantity"]),
                Decimal(execution["price"]),
                "fill",
            )
            assert r.ledger.rolling_spend(where.account) == Spend(booked.notional, 1)

            # No duplicate order, exactly one filing, an intact chain.
            assert len(venue_orders(where)) == 1
            assert r.ledger.head().seq == 1
            assert r.ledger.open_filings(where.account) == []
            assert r.ledger.verify().ok
            again = await r.guard.reconcile()
            assert again.checked == 0 and len(venue_orders(where)) == 1
