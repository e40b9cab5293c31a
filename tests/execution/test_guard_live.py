"""The order path against the sandbox venue as the broker: what the broker answers, or does
not, and how the reconciler follows it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from guard_kit import buy, desk, limit_buy, policy

from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def venue_orders(d, ref_id: object) -> list[dict[str, object]]:
    orders = d.venue.data("get_equity_orders", {"account_number": d.account})["orders"]
    return [o for o in orders if o.get("ref_id") == str(ref_id)]


async def test_a_live_order_is_placed_under_the_filing_id_and_recorded_as_submitted_not_filled(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.status is FilingStatus.SUBMITTED and outcome.order_id
        [order] = venue_orders(d, outcome.filing_id)
        assert order["id"] == outcome.order_id
        assert d.ledger.orders.executions(outcome.filing_id) == []
        # The venue fills it as its clock runs; the reconciler books the fill.
        d.step(5)
        report = await d.guard.reconcile()
        assert report.fills_booked >= 1
        record = d.ledger.filing(outcome.filing_id)
        assert record.status is FilingStatus.FILLED
        filled = sum((f.notional for f in d.ledger.orders.executions(record.id)), Decimal(0))
        assert d.ledger.rolling_spend(d.account).notional == filled


@pytest.mark.req("wall.unanswered-looked-up")
async def test_no_answer_to_place_leaves_the_filing_unanswered_and_the_reconciler_adopts_the_order(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        real_place = d.executor.place

        async def place_dropped(ticket):
            # The venue places the order, then drops the connection before answering.
            d.venue.admin("faults", {"drop_after": 1})
            return await real_place(ticket)

        d.executor.place = place_dropped
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.uncertain and outcome.status is FilingStatus.UNANSWERED
        assert "may be live" in outcome.message
        assert d.ledger.rolling_spend(d.account).orders == 1  # still held: it may be live
        assert len(venue_orders(d, outcome.filing_id)) == 1
        report = await d.guard.reconcile()
        assert report.adopted == 1
        assert d.ledger.filing(outcome.filing_id).status in (
            FilingStatus.SUBMITTED,
            FilingStatus.FILLED,
        )
        assert len(venue_orders(d, outcome.filing_id)) == 1  # nothing was re-sent


@pytest.mark.req("wall.unanswered-looked-up")
async def test_an_unanswered_order_the_broker_never_got_is_declared_not_placed_after_the_grace(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, grace=timedelta(minutes=2)) as d:
        real_place = d.executor.place

        async def place_lost(ticket):
            d.venue.admin("faults", {"drop_before": 1})
            return await real_place(ticket)

        d.executor.place = place_lost
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.status is FilingStatus.UNANSWERED
        early = await d.guard.reconcile()
        assert (early.not_placed, early.adopted) == (0, 0)
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.UNANSWERED
        d.step(121)
        late = await d.guard.reconcile()
        assert late.not_placed == 1
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.NOT_PLACED
        assert d.ledger.rolling_spend(d.account).orders == 0
        assert venue_orders(d, outcome.filing_id) == []


@pytest.mark.req("wall.reconcile-converges")
async def test_a_broker_rejection_after_submission_ends_the_filing_and_releases_its_hold(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        d.venue.admin("faults", {"reject_orders": 1})
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.status is FilingStatus.SUBMITTED
        assert d.ledger.rolling_spend(d.account).orders == 1
        d.step(5)
        report = await d.guard.reconcile()
        assert report.moved == 1
        record = d.ledger.filing(outcome.filing_id)
        assert record.status is FilingStatus.REJECTED
        assert "reject_reason" in d.ledger.events(record.id)[-2].detail
        spend = d.ledger.rolling_spend(d.account)
        assert (spend.notional, spend.orders) == (0, 0)


async def test_a_broker_refusal_at_placement_ends_the_filing_with_the_brokers_code(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, venue={"cash": Decimal(500)}) as d:
        # The policy allows it (it is not told the broker's buying power in paper terms)
        # but the broker refuses an order beyond the account's buying power.
        real_review = d.executor.review

        async def review_ignoring_checks(ticket):
            review = await real_review(ticket)
            return type(review)(review.terms, review.quote, None, False)

        d.executor.review = review_ignoring_checks
        guard = d.guard_with(policy("[orders]\nmargin = true"))
        real_read = d.reader.read

        async def read_rich(account, symbol, *, quote=None, quote_from=None):
            view = await real_read(account, symbol, quote=quote, quote_from=quote_from)
            return type(view)(
                equity=Decimal(10**6), cash=Decimal(10**6), buying_power=Decimal(10**6),
                positions=view.positions, open_orders=view.open_orders, quote=view.quote,
                tradable=view.tradable,
            )  # fmt: skip

        d.reader.read = read_rich
        outcome = await guard.submit(buy("SPY", quantity=Decimal(2)), identity="a")
        assert outcome.refused and outcome.status is FilingStatus.REJECTED
        assert outcome.reasons == ("broker_refused",)
        assert outcome.broker_code == "INSUFFICIENT_BUYING_POWER"
        assert d.ledger.rolling_spend(d.account).orders == 0


async def test_an_order_the_broker_holds_for_the_owners_approval_is_recorded_as_such(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        d.venue.admin("approval", {"human_must_approve_trades": True})
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.status is FilingStatus.AWAITING_BROKER_APPROVAL
        assert "Robinhood app" in outcome.message
        assert d.ledger.rolling_spend(d.account).orders == 1


@pytest.mark.req("wall.reconcile-converges")
async def test_a_large_order_fills_in_parts_and_the_spend_converges_to_what_filled(
    tmp_path: Path,
) -> None:
    big = policy('[limits]\nmax_order_usd = "900000"\nmax_daily_usd = "900000"')
    async with desk(tmp_path, live=True, config=big, venue={"cash": Decimal(2_000_000)}) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        price = (ask * Decimal("1.002")).quantize(Decimal("0.01"))
        outcome = await d.guard.submit(limit_buy("SPY", str(price), "1000"), identity="a")
        assert outcome.status in (FilingStatus.SUBMITTED, FilingStatus.PARTIALLY_FILLED)
        seen = set()
        for _ in range(60):  # bounded: the venue fills a displayed size per step
            d.step(1)
            await d.guard.reconcile()
            status = d.ledger.filing(outcome.filing_id).status
            seen.add(status)
            if status is FilingStatus.FILLED:
                break
        assert FilingStatus.PARTIALLY_FILLED in seen and status is FilingStatus.FILLED
        fills = d.ledger.orders.executions(outcome.filing_id)
        assert len(fills) > 1 and sum(f.quantity for f in fills) == 1000
        assert d.ledger.rolling_spend(d.account).notional == sum(f.notional for f in fills)


@pytest.mark.req("wall.reconcile-converges")
async def test_cancelling_after_a_partial_fill_keeps_only_what_filled_on_the_spend(
    tmp_path: Path,
) -> None:
    big = policy('[limits]\nmax_order_usd = "900000"\nmax_daily_usd = "900000"')
    async with desk(tmp_path, live=True, config=big, venue={"cash": Decimal(2_000_000)}) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        price = (ask * Decimal("1.002")).quantize(Decimal("0.01"))
        outcome = await d.guard.submit(limit_buy("SPY", str(price), "1000"), identity="a")
        for _ in range(60):
            if d.ledger.orders.executions(outcome.filing_id):
                break
            d.step(1)
            await d.guard.reconcile()
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.PARTIALLY_FILLED
        cancelled = await d.guard.cancel(outcome.filing_id, identity="a")
        assert cancelled.status is FilingStatus.CANCELLED
        fills = d.ledger.orders.executions(outcome.filing_id)
        filled = sum((f.notional for f in fills), Decimal(0))
        assert 0 < filled < price * 1000
        spend = d.ledger.rolling_spend(d.account)
        assert (spend.notional, spend.orders) == (filled, 1)


async def test_an_open_order_at_the_broker_that_ordergate_did_not_place_halts_new_buys(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        d.venue.data(
            "place_equity_order",
            {
                "account_number": d.account,
                "symbol": "SPY",
                "side": "buy",
                "type": "limit",
                "quantity": "1",
                "limit_price": str((ask * Decimal("0.9")).quantize(Decimal("0.01"))),
                "ref_id": "00000000-0000-0000-0000-000000000001",
            },
        )
        outcome = await d.guard.submit(buy("SPY"), identity="a")
        assert outcome.refused and "unknown_broker_orders" in outcome.reasons
