"""``Ledger.decision_reads``: what a decision reads of the record in one statement is what
the separate reads say (the rolling spend, the controls, whether a curve mark is due), on
SQLite and Postgres, through every change a decision's record goes through."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import MARK_EVERY, Filing, Ledger, RollingCaps, Spend
from ordergate.ledger._equity import marked_near
from ordergate.store import reading

pytestmark = pytest.mark.req("ledger.postgres-parity")

CAPS = RollingCaps(max_daily_usd=Decimal("1000"), max_orders_per_day=50)
TERMS = {"symbol": "AAPL", "side": "buy", "type": "market", "dollar_amount": Decimal("30.00")}


def _separately(ledger: Ledger, account: str, now: datetime) -> tuple[Any, ...]:
    controls = ledger.controls
    mark, start, pause = (
        controls.high_water_mark(),
        controls.session_start_equity(),
        controls.pause_state(),
    )
    with reading(ledger.engine) as connection:
        near = marked_near(connection, account, now)
    return ledger.rolling_spend(account, now=now), mark, start, pause, near


def _together(ledger: Ledger, account: str, now: datetime) -> tuple[Any, ...]:
    reads = ledger.decision_reads(account, now=now)
    return (
        reads.spend,
        reads.high_water_mark,
        reads.session_start,
        reads.pause,
        reads.marked_recently,
    )


def test_the_one_statement_reads_what_the_separate_reads_read(
    ledger: Ledger, clock: SteppedClock
) -> None:
    account = "acct-1"
    steps = [
        lambda: None,  # an empty ledger: nothing spent, no controls, no marks
        lambda: ledger.file_and_reserve(
            Filing(identity="a", terms=TERMS, account=account), notional=Decimal("30"), caps=CAPS
        ),
        lambda: ledger.file_and_reserve(
            Filing(identity="a", terms=TERMS, account="other"), notional=Decimal("7"), caps=CAPS
        ),
        lambda: ledger.controls.raise_high_water_mark(
            Decimal("1000.5"), account=account, source="paper", at=clock.now()
        ),
        lambda: ledger.controls.set_session_start_equity("2026-12-01", Decimal("999.25")),
        lambda: ledger.controls.pause("owner stopped it", by="owner"),
        lambda: clock.advance(MARK_EVERY + timedelta(seconds=1)),  # the mark ages out
        lambda: ledger.controls.resume(by="owner"),
        lambda: clock.advance(timedelta(hours=24)),  # the filing leaves the window
    ]
    seen = []
    for step in steps:
        step()
        together = _together(ledger, account, clock.now())
        assert together == _separately(ledger, account, clock.now())
        seen.append(together)
    assert _together(ledger, "never-seen", clock.now()) == _separately(
        ledger, "never-seen", clock.now()
    )
    # The steps moved every part (so the comparison above compared something).
    assert seen[1][0] == Spend(Decimal("30"), 1) and seen[-1][0] == Spend(Decimal(0), 0)
    assert seen[3][1] == Decimal("1000.5") and seen[3][4] is True and seen[6][4] is False
    assert seen[5][3].paused and not seen[7][3].paused
    assert seen[4][2] is not None and seen[4][2].equity == Decimal("999.25")
