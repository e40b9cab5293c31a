"""The order path on paper: filing, both policy stages, placing only as filed, reconciling.

Paper is the venue's own engine: a market order is placed pending and fills once the clock
moves, as the venue's do (``Desk.settled`` steps the clock and reconciles)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from guard_kit import buy, desk, limit_buy, policy, sell

from ordergate.execution import Guard
from ordergate.ledger import Decision, FilingStatus
from ordergate.policy import ProposalError, Stage
from ordergate.venues import NoAnswer

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_allowed_market_buy_is_filed_placed_filled_and_booked_at_the_fill(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        outcome = await d.guard.submit(buy("SPY", quantity=Decimal(2)), identity="agent-1")
        assert outcome.status is FilingStatus.SUBMITTED
        assert not outcome.refused and outcome.order_id is not None
        assert await d.settled(outcome, seconds=2) is FilingStatus.FILLED
        record = d.ledger.filing(outcome.filing_id)
        assert record.decision is Decision.ACCEPT and record.identity == "agent-1"
        statuses = [e.status for e in d.ledger.events(record.id) if e.kind == "status"]
        assert statuses == ["submitted", "filled"]
        fills = d.ledger.orders.executions(record.id)
        assert [(f.quantity, f.basis_source) for f in fills] == [(Decimal(2), "fill")]
        # The reservation now holds what actually filled, not the estimate.
        spend = d.ledger.rolling_spend(d.account)
        assert spend.notional == Decimal(2) * fills[0].price and spend.orders == 1
        assert d.ledger.verify().ok


async def test_a_symbol_outside_the_allowlist_is_refused_at_stage_a_and_nothing_is_sent(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy('[symbols]\nallow = ["AAPL"]')) as d:
        outcome = await d.guard.submit(buy("SPY"), identity="agent-1")
        assert outcome.refused and outcome.stage is Stage.ESTIMATE
        assert outcome.reasons == ("symbol_not_allowed",)
        assert "Nothing was sent" in outcome.message
        record = d.ledger.filing(outcome.filing_id)
        assert record.status is FilingStatus.REFUSED and record.reasons == ("symbol_not_allowed",)
        assert d.ledger.orders.executions(record.id) == []
        assert d.ledger.rolling_spend(d.account).orders == 0


async def test_an_order_over_the_per_order_cap_is_refused_with_the_cap_code(tmp_path: Path) -> None:
    async with desk(tmp_path, config=policy('[limits]\nmax_order_usd = "50"')) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        outcome = await d.guard.submit(buy("SPY", quantity=Decimal(5)), identity="a")
        assert outcome.refused and "max_order_usd" in outcome.reasons
        # The agent's message names the order's notional and the cap, with its key.
        order = (5 * ask).quantize(Decimal("0.01"))
        assert f"max_order_usd: this order is ${order} (limits.max_order_usd = $50.00)" in (
            outcome.message
        )


async def test_the_rolling_daily_cap_counts_earlier_fills_and_refuses_the_order_that_crosses_it(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        guard = d.guard_with(policy(f'[limits]\nmax_daily_usd = "{ask * Decimal("1.5")}"'))
        first = await guard.submit(buy("SPY"), identity="a")
        assert await d.settled(first, seconds=2) is FilingStatus.FILLED
        [fill] = d.ledger.orders.executions(first.filing_id)
        second = await guard.submit(buy("SPY"), identity="a")
        assert second.refused and "max_daily_usd" in second.reasons
        cap = (ask * Decimal("1.5")).quantize(Decimal("0.01"))
        assert f"max_daily_usd: ${fill.price:.2f} spent in the last 24 h" in second.message
        assert f"(limits.max_daily_usd = ${cap})" in second.message
        # A day later the first order has left the window.
        d.step(24 * 3600 + 1)
        d.venue.admin("clock", {"advance_seconds": 0})
        assert d.ledger.rolling_spend(d.account).orders == 0


@pytest.mark.req("wall.stage-b")
async def test_a_review_whose_terms_exceed_the_cap_is_refused_at_stage_b_though_stage_a_passed(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        guard = d.guard_with(policy(f'[limits]\nmax_order_usd = "{ask * Decimal("1.02")}"'))
        real_review = d.executor.review

        async def review_after_a_jump(ticket):
            # The market jumps between the estimate and the review (and the paper market
            # reads it again: its quotes are reused for a second).
            d.venue.admin("shock", {"symbol": "SPY", "pct": "5"})
            d.step(2)
            return await real_review(ticket)

        d.executor.review = review_after_a_jump
        outcome = await guard.submit(buy("SPY"), identity="a")
        assert outcome.refused and outcome.stage is Stage.REVIEW
        assert "max_order_usd" in outcome.reasons
        # Stage B names the reviewed notional (past the jump) and the cap, as stage A would.
        cap = (ask * Decimal("1.02")).quantize(Decimal("0.01"))
        assert f"(limits.max_order_usd = ${cap})" in outcome.message
        assert "max_order_usd: this order is $" in outcome.message
        record = d.ledger.filing(outcome.filing_id)
        assert record.decision is Decision.ACCEPT  # stage A passed and was filed so
        assert record.status is FilingStatus.REFUSED
        # Nothing reached the paper book and the reservation was given back.
        assert d.ledger.rolling_spend(d.account).notional == 0
        journal = [e.kind for e in d.ledger.journal.entries() if e.filing_id == record.id]
        assert journal == ["policy_estimate", "policy_review"]


async def test_a_sell_of_shares_not_held_is_refused_as_a_short_sale(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        outcome = await d.guard.submit(sell("SPY"), identity="a")
        assert outcome.refused and "short_sell" in outcome.reasons


async def test_selling_what_is_held_reduces_the_position_and_spends_nothing(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        bought = await d.guard.submit(buy("SPY", quantity=Decimal(3)), identity="a")
        assert await d.settled(bought, seconds=2) is FilingStatus.FILLED
        spent = d.ledger.rolling_spend(d.account).notional
        sold = await d.guard.submit(sell("SPY", quantity=Decimal(2)), identity="a")
        assert await d.settled(sold, seconds=2) is FilingStatus.FILLED
        spend = d.ledger.rolling_spend(d.account)
        assert spend.notional == spent and spend.orders == 2


@pytest.mark.req("controls.pause-refuses-new-orders-everywhere")
async def test_pausing_refuses_every_new_order_and_resuming_accepts_again(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        d.ledger.controls.pause("incident")
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.refused and "paused" in outcome.reasons
        d.ledger.controls.resume()
        assert (await d.guard.submit(buy("SPY"), identity="a")).status is FilingStatus.SUBMITTED


async def test_a_limit_order_that_is_not_marketable_rests_and_the_reconciler_books_its_fill(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        price = (ask * Decimal("0.995")).quantize(Decimal("0.01"))
        outcome = await d.guard.submit(limit_buy("SPY", str(price)), identity="a")
        assert outcome.status is FilingStatus.SUBMITTED
        assert [r.id for r in d.ledger.open_filings(d.account)] == [outcome.filing_id]
        d.venue.admin("shock", {"symbol": "SPY", "pct": "-2"})
        d.step(2)
        report = await d.guard.reconcile()
        assert report.fills_booked == 1 and report.moved == 1
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        fill = d.ledger.orders.executions(outcome.filing_id)[0]
        assert fill.price <= price
        assert d.ledger.rolling_spend(d.account).notional == fill.price


async def test_cancelling_a_resting_order_releases_its_reservation(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        price = (ask * Decimal("0.98")).quantize(Decimal("0.01"))
        outcome = await d.guard.submit(limit_buy("SPY", str(price)), identity="a")
        assert d.ledger.rolling_spend(d.account).orders == 1
        cancelled = await d.guard.cancel(outcome.filing_id, identity="a")
        assert cancelled.status is FilingStatus.CANCELLED
        assert d.ledger.rolling_spend(d.account).orders == 0
        assert d.ledger.open_filings(d.account) == []


@pytest.mark.req("gateway.bypass.cancel-foreign-order")
async def test_a_guard_refuses_to_cancel_a_filing_of_another_account_and_sends_nothing(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        price = (ask * Decimal("0.98")).quantize(Decimal("0.01"))
        outcome = await d.guard.submit(limit_buy("SPY", str(price)), identity="a")
        other = Guard(
            policy=d.guard.policy, ledger=d.ledger, venue=d.port, account="5QR00000",
            clock=d.clock,
        )  # fmt: skip
        cancels_before = [e for e in d.ledger.journal.entries() if e.kind == "cancel"]
        with pytest.raises(ProposalError) as caught:
            await other.cancel(outcome.filing_id, identity="a")
        cancels_after = [e for e in d.ledger.journal.entries() if e.kind == "cancel"]
        assert caught.value.field == "filing"
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.SUBMITTED
        assert cancels_after == cancels_before


async def test_a_market_order_outside_regular_hours_is_refused_before_anything_is_sent(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        d.step(8 * 3600)  # 18:00 New York: after hours
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.refused and "outside_session" in outcome.reasons


@pytest.mark.parametrize("live", [False, True])
async def test_stage_b_reads_the_market_while_the_review_is_under_way(
    tmp_path: Path, live: bool
) -> None:
    """Stage B's view (the whole account, paper or live) is read at once with the review, not
    after it."""
    async with desk(tmp_path, live=live) as d:
        view_started = anyio.Event()
        reader: Any = d.reader
        name = "read"
        real_view, real_review = getattr(reader, name), d.executor.review

        async def view(account, symbol, **given):
            if given.get("quote_from") is not None:
                view_started.set()
            return await real_view(account, symbol, **given)

        async def review_once_the_view_is_reading(ticket):
            # Only answers if stage B's view is read at once with it, not after it.
            with anyio.fail_after(10):
                await view_started.wait()
            return await real_review(ticket)

        setattr(reader, name, view)
        d.executor.review = review_once_the_view_is_reading
        outcome = await d.guard.submit(buy("SPY", quantity=Decimal(1)), identity="a")
        assert outcome.status in (FilingStatus.FILLED, FilingStatus.SUBMITTED)
        entries = d.ledger.journal.for_filing(outcome.filing_id)
        stage_b = [e for e in entries if e.kind == "policy_review"]
        assert len(stage_b) == 1 and stage_b[0].detail["allowed"] is True


async def test_a_review_that_fails_while_the_view_is_read_ends_the_filing_as_before(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:

        async def no_answer(ticket):
            raise NoAnswer("the venue did not answer the review")

        d.executor.review = no_answer
        outcome = await d.guard.submit(buy("SPY", quantity=Decimal(1)), identity="a")
        assert outcome.status is FilingStatus.FAILED
        assert outcome.reasons == ("review_unanswered",)
        assert d.ledger.rolling_spend(d.account).orders == 0
