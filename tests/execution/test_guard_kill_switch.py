"""The kill switch's cancels through the guard: every working order of the account ended,
each outcome journalled, on paper and against the sandbox venue as the broker; and a breaker
that trips under ``halt_cancels_open`` does the same."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from guard_kit import Desk, buy, desk, limit_buy, policy

from ordergate.execution import BREAKER, BROKER_REFUSED_CANCEL, NO_ANSWER, NOT_AT_BROKER
from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.anyio

CENT = Decimal("0.01")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _resting(d: Desk, count: int) -> list[str]:
    """``count`` limit buys about 2 % under the ask, a cent apart (none a duplicate of
    another): they rest, working, at the venue."""
    ask = Decimal(d.quote("SPY")["ask_price"])
    price = (ask * Decimal("0.98")).quantize(CENT)
    ids = []
    for n in range(count):
        outcome = await d.guard.submit(limit_buy("SPY", str(price - n * CENT)), identity="agent")
        assert outcome.status is FilingStatus.SUBMITTED, outcome
        ids.append(str(outcome.filing_id))
    return ids


def _kill_entries(d: Desk) -> dict[str, dict[str, object]]:
    return {
        str(entry.filing_id): dict(entry.detail)
        for entry in d.ledger.journal.entries(limit=500)
        if entry.kind == "cancel" and entry.why.startswith("kill switch cancel")
    }


@pytest.mark.req("controls.pause-cancels-working-orders")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_cancel_open_ends_every_working_order_and_journals_each_outcome(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live, config=policy("[limits]\nmax_open_orders = 10")) as d:
        ids = await _resting(d, 4)
        held = await d.guard_with(policy('approval = "always"')).submit(
            buy("SPY"), identity="agent"
        )
        assert held.status is FilingStatus.PENDING_APPROVAL
        reports = await d.guard.cancel_open(identity="owner", why="the owner paused")
        assert sorted(str(r.filing_id) for r in reports) == sorted([*ids, str(held.filing_id)])
        outcomes = {str(r.filing_id): r.outcome for r in reports}
        assert {outcomes[i] for i in ids} == {"cancelled"}
        assert outcomes[str(held.filing_id)] == "denied"
        assert all(r.ended for r in reports)
        assert d.ledger.open_filings(d.account) == []
        assert d.ledger.rolling_spend(d.account).notional == 0
        journalled = _kill_entries(d)
        assert {key: value["outcome"] for key, value in journalled.items()} == outcomes
        assert {value["by"] for value in journalled.values()} == {"the owner paused"}
        if live:
            orders = d.venue.data("get_equity_orders", {"account_number": d.account})["orders"]
            states = {o["ref_id"]: o["state"] for o in orders}
            assert {states[i] for i in ids} == {"cancelled"}


async def test_cancel_open_with_nothing_working_reports_nothing(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        assert await d.guard.cancel_open(identity="owner", why="x") == []


async def test_a_cancel_the_broker_does_not_answer_is_reported_as_no_answer_and_the_rest_go_on(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        first, second = await _resting(d, 2)
        real_cancel = d.executor.cancel
        calls = []

        async def cancel_dropped(account: str, order_id: str) -> None:
            calls.append(order_id)
            if len(calls) == 1:
                d.venue.admin("faults", {"drop_before": 1})
            await real_cancel(account, order_id)

        d.executor.cancel = cancel_dropped
        reports = await d.guard.cancel_open(identity="owner", why="x")
        by_id = {str(r.filing_id): r for r in reports}
        assert by_id[first].outcome == NO_ANSWER and not by_id[first].ended
        assert by_id[second].outcome == "cancelled"
        assert _kill_entries(d)[first]["outcome"] == NO_ANSWER


async def test_an_order_the_broker_never_answered_is_reported_not_at_broker(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        real_place = d.executor.place

        async def place_dropped(ticket):
            d.venue.admin("faults", {"drop_before": 1})
            return await real_place(ticket)

        d.executor.place = place_dropped
        outcome = await d.guard.submit(buy("SPY"), identity="agent")
        assert outcome.status is FilingStatus.UNANSWERED
        [report] = await d.guard.cancel_open(identity="owner", why="x")
        assert report.outcome == NOT_AT_BROKER and not report.ended


@pytest.mark.req("controls.breaker-cancels-working-orders")
@pytest.mark.parametrize("switch", [True, False], ids=["halt_cancels_open", "default"])
async def test_a_tripped_breaker_cancels_working_orders_only_under_halt_cancels_open(
    tmp_path: Path, switch: bool
) -> None:
    extra = f"[limits]\nhalt_cancels_open = {'true' if switch else 'false'}"
    async with desk(tmp_path, live=True, config=policy(extra)) as d:
        [working] = await _resting(d, 1)
        d.ledger.controls.set_high_water_mark(Decimal(10_000_000), account=d.account)
        refused = await d.guard.submit(buy("SPY"), identity="agent")
        assert "drawdown_halt" in refused.reasons
        status = d.ledger.filing(working).status
        if switch:
            assert status is FilingStatus.CANCELLED
            [entry] = [
                e for e in d.ledger.journal.entries(limit=500) if e.why.startswith("kill switch")
            ]
            assert entry.identity == BREAKER
            assert entry.detail["by"] == "breaker tripped: drawdown_halt"
        else:
            assert status is FilingStatus.SUBMITTED


async def test_a_cancel_the_broker_refuses_because_the_order_filled_is_reported_with_its_code(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        [working] = await _resting(d, 1)
        d.venue.admin("shock", {"symbol": "SPY", "pct": "-3"})
        d.step(5)  # the venue fills the order; the record has not heard yet
        [report] = await d.guard.cancel_open(identity="owner", why="x")
        assert report.outcome == BROKER_REFUSED_CANCEL and report.broker_code
        assert _kill_entries(d)[working]["broker_code"] == report.broker_code
        await d.guard.reconcile()
        assert d.ledger.filing(working).status is FilingStatus.FILLED
