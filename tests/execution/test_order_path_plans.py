"""The order path's cost is bounded by what is open: no statement it runs reads a whole table.

The guard of ``ordergate bench history`` (paper, every order held for approval, resting orders
for the reconciler) on a ledger that already holds ended filings, on SQLite and Postgres. Every
statement of an order (file, stage A, hold, approve, review, stage B, place, settle), of a
reconciler pass, of ``gate_record``, ``gate_how``'s open count and ``read_status`` is captured
and its plan read: each must find its rows by an index.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import anyio
import pytest
from paper_kit import BACKENDS, ledger_url_for
from plan_testkit import captured, full_scans, plan

from ordergate.bench import _history
from ordergate.core import SteppedClock, to_us
from ordergate.execution import read_status
from ordergate.gateway.mcp._record import how, open_count
from ordergate.ledger import open_ledger
from ordergate.ledger._controls import PAUSE_KEY
from ordergate.ledger._filing import _statements, window_bounds

pytestmark = pytest.mark.req("ledger.cost-bounded-by-open")

HISTORY = 60


def _quiet(_line: str) -> None:
    pass


@pytest.mark.anyio
@pytest.mark.parametrize("backend", BACKENDS)
async def test_no_statement_of_an_order_a_reconciler_pass_or_gate_record_scans_a_table(
    backend: str, tmp_path: Path
) -> None:
    clock = SteppedClock(start=_history.START)
    with ledger_url_for(backend, tmp_path) as url, open_ledger(url, clock=clock) as ledger:
        with anyio.fail_after(120):
            desk = await _history.open_desk(ledger, clock, HISTORY, progress=_quiet)
            with captured(ledger.engine) as statements:
                await _history.one_order(desk)
                await _history.one_pass(desk)
                await _history.one_record(desk)
                assert open_count(ledger, _history.ACCOUNT, _history.IDENTITY) == 3
                assert how(desk.guard, _history.IDENTITY, max_open=10)["open_proposals"] == 3
                status = read_status(
                    ledger, desk.guard.policy, account=_history.ACCOUNT, mode="paper",
                    mode_note="", now=clock.now(), equity=Decimal(1_000_000),
                )  # fmt: skip
                assert len(status.open_orders) == 3
        assert len(statements) > 30
        assert full_scans(ledger.engine, statements) == []
        # The filing's own statements run on the driver's cursor, beside SQLAlchemy: the
        # snapshot (pause flag, the account's head and rolling window, the next seq).
        low, high = window_bounds(to_us(clock.now()))
        parameters = {"pause": PAUSE_KEY, "account": _history.ACCOUNT, "low": low, "high": high}
        if backend == "postgres":
            parameters["n"] = 1
        snapshot = _statements(ledger.engine.dialect).snapshot
        assert full_scans(ledger.engine, [(snapshot, parameters)]) == []
        window = plan(ledger.engine, snapshot, parameters)
        assert any("ix_reservations_window" in line for line in window)
        if backend == "sqlite":
            # The window's sums read the index alone (ledger migration 0031): no row is read
            # per reservation.
            assert any("COVERING INDEX ix_reservations_window" in line for line in window)
