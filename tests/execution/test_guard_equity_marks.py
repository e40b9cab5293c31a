"""The equity curve is marked where equity is read: by the guard for each order (at most once
a minute, in the transaction that raises the high-water mark) and by the gateway's periodic
pass; never when the equity could not be read."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import anyio
import pytest
from guard_kit import BOUND_S, buy, desk

from ordergate.gateway._equity_marks import EquityMarker
from ordergate.ledger import EquityMark

pytestmark = [pytest.mark.anyio, pytest.mark.req("console.equity-history")]

# What the live reader reads without a symbol: the portfolio, the positions, the open orders.
ACCOUNT_READS = 3


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_each_order_marks_the_paper_equity_it_was_decided_on_at_most_once_a_minute(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        first = d.clock.now()
        before = await d.reader.read(d.account, None)
        assert before.equity is not None
        await d.guard.submit(buy("SPY"), identity="agent-1")
        await d.guard.submit(buy("SPY"), identity="agent-1")  # the same minute: no mark
        assert d.ledger.equity.window(d.account) == [EquityMark(first, before.equity, "paper")]
        d.step(61)
        now = await d.reader.read(d.account, None)
        assert now.equity is not None
        await d.guard.submit(buy("SPY"), identity="agent-1")
        marks = d.ledger.equity.window(d.account)
        assert [(m.at, m.equity, m.source) for m in marks] == [
            (first, before.equity, "paper"),
            (d.clock.now(), now.equity, "paper"),
        ]
        assert d.ledger.controls.high_water_mark(d.account) == max(before.equity, now.equity)


async def test_an_order_whose_equity_cannot_be_read_marks_nothing(tmp_path: Path) -> None:
    async with desk(tmp_path, live=True) as d:
        d.venue.faults(http_errors=5)  # every part of the order's account read fails
        outcome = await d.guard.submit(buy("SPY"), identity="agent-1")
        assert outcome.refused
        assert d.ledger.equity.window(d.account) == []
        assert d.ledger.controls.high_water_mark(d.account) is None


async def test_the_periodic_pass_marks_the_broker_equity_once_an_interval_and_never_a_guess(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        marker = EquityMarker(d.guard, every=300)
        d.venue.faults(http_errors=ACCOUNT_READS)
        with anyio.fail_after(BOUND_S):
            assert not await marker.run_once()  # the equity was not read: nothing marked
        assert d.ledger.equity.window(d.account) == []
        with anyio.fail_after(BOUND_S):
            assert await marker.run_once()
            d.step(299)
            assert not await marker.run_once()  # one mark an interval
        d.step(2)
        pauses: list[float] = []

        async def pause(seconds: float) -> None:  # the injected pause: steps the clock
            pauses.append(seconds)
            if len(pauses) == 3:
                raise Stop
            d.step(seconds)

        with anyio.fail_after(BOUND_S), pytest.raises(Stop):
            await marker.run_forever(pause=pause)
        marks = d.ledger.equity.window(d.account)
        assert pauses == [300, 300, 300]
        assert [int((b.at - a.at).total_seconds()) for a, b in pairwise(marks)] == [301, 300, 300]
        assert {m.source for m in marks} == {"broker"}
        view = await d.reader.read(d.account, None)
        assert view.equity is not None and marks[-1].equity == view.equity
        assert (
            d.ledger.controls.high_water_mark(d.account) is None
        )  # the pass reads; orders raise it
        with pytest.raises(ValueError, match="every"):
            EquityMarker(d.guard, every=0)


class Stop(Exception):
    """Ends the periodic pass's loop from its injected pause."""
