"""The guard's option order path against the sandbox in live mode, by its edges: an answer
lost or never sent, a rejection, a review without an answer, an approval, a day's end, a
contract the venue does not list or lists otherwise, and paper (the venue's engine) — each
ending with the reservation at what actually happened and nothing sent twice."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway
from options_kit import near_money, option_gateway, option_policy, quote, venue_orders

from ordergate.core import OptionDirection, OptionPositionEffect, OptionType, Side
from ordergate.ledger import FilingStatus
from ordergate.policy.options import OptionContract, OptionLeg, OptionProposal

pytestmark = pytest.mark.anyio

CENT = Decimal("0.01")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _long_call(gw: Gateway, price: Decimal | None = None) -> OptionProposal:
    call = near_money(gw, "call")
    _, ask = quote(gw, call["id"])
    contract = OptionContract(
        underlying="AAPL",
        expiry=date.fromisoformat(call["expiration_date"]),
        strike=Decimal(call["strike_price"]),
        kind=OptionType.CALL,
    )
    return OptionProposal(
        legs=(OptionLeg(call["id"], contract, Side.BUY, OptionPositionEffect.OPEN),),
        quantity=1,
        direction=OptionDirection.DEBIT,
        limit_price=price if price is not None else ask,
        account=gw.account,
    )


def _fault_before(gw: Gateway, step: str, fault: dict[str, Any]) -> None:
    """Set ``fault`` at the venue right before the option lane's ``step`` call."""
    lane = gw.guard.venue.options
    assert lane is not None
    real: Callable[..., Awaitable[Any]] = getattr(lane, step)

    async def faulted(*args: Any, **kwargs: Any) -> Any:
        gw.venue.admin("faults", fault)
        return await real(*args, **kwargs)

    setattr(lane, step, faulted)


def _held(gw: Gateway) -> Decimal:
    return gw.ledger.rolling_spend(gw.account, kind="option_order").notional


async def test_an_answer_lost_after_the_venue_placed_it_is_unanswered_then_adopted_by_its_terms(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        proposal = _long_call(gw)
        assert proposal.limit_price is not None
        _fault_before(gw, "place", {"drop_after": 1})
        outcome = await gw.guard.submit_option(proposal, identity="a")
        assert outcome.status is FilingStatus.UNANSWERED
        assert _held(gw) == proposal.limit_price * 100  # still held: it may be live
        report = await gw.guard.reconcile()
        assert report.adopted == 1
        assert gw.ledger.filing(outcome.filing_id).status in (
            FilingStatus.SUBMITTED,
            FilingStatus.FILLED,
        )
        assert len(venue_orders(gw)) == 1  # nothing was sent again


async def test_a_lost_answer_matching_two_orders_of_its_terms_is_adopted_by_neither(
    tmp_path: Path,
) -> None:
    """The captured option order carries no ``ref_id``: when two orders at the venue have
    exactly a lost ticket's terms, which is its own cannot be told, so neither is taken for
    it and its premium stays held."""
    async with option_gateway(tmp_path) as gw:
        proposal = _long_call(gw)
        assert proposal.limit_price is not None
        first = await gw.guard.submit_option(proposal, identity="a")
        assert first.status is FilingStatus.SUBMITTED
        _fault_before(gw, "place", {"drop_after": 1})
        # Another identity: the same terms from one identity are a duplicate order.
        lost = await gw.guard.submit_option(proposal, identity="b")
        assert lost.status is FilingStatus.UNANSWERED, lost.reasons
        report = await gw.guard.reconcile()
        assert report.adopted == 0
        assert gw.ledger.filing(lost.filing_id).status is FilingStatus.UNANSWERED
        assert _held(gw) == 2 * proposal.limit_price * 100
        assert len(venue_orders(gw)) == 2  # nothing was sent again


async def test_a_place_that_never_reached_the_venue_is_declared_not_placed_after_the_grace(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        _fault_before(gw, "place", {"drop_before": 1})
        outcome = await gw.guard.submit_option(_long_call(gw), identity="a")
        assert outcome.status is FilingStatus.UNANSWERED
        gw.clock.advance(timedelta(seconds=121))
        report = await gw.guard.reconcile()
        assert report.not_placed == 1
        assert gw.ledger.filing(outcome.filing_id).status is FilingStatus.NOT_PLACED
        assert _held(gw) == 0
        assert venue_orders(gw) == []


async def test_a_review_without_an_answer_ends_the_filing_and_sends_nothing(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        _fault_before(gw, "review", {"drop_before": 1})
        outcome = await gw.guard.submit_option(_long_call(gw), identity="a")
        assert outcome.status is FilingStatus.FAILED
        assert outcome.reasons == ("review_unanswered",)
        assert _held(gw) == 0
        assert venue_orders(gw) == []


async def test_a_rejection_after_submission_ends_the_filing_and_releases_its_premium(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        gw.venue.admin("faults", {"reject_orders": 1})
        outcome = await gw.guard.submit_option(_long_call(gw), identity="a")
        gw.clock.advance(timedelta(seconds=3))
        await gw.guard.reconcile()
        assert gw.ledger.filing(outcome.filing_id).status is FilingStatus.REJECTED
        assert _held(gw) == 0


async def test_a_resting_order_cancelled_at_the_days_end_releases_its_premium(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        proposal = _long_call(gw)
        assert proposal.limit_price is not None
        resting = replace(
            proposal, limit_price=(proposal.limit_price * Decimal("0.55")).quantize(CENT)
        )
        outcome = await gw.guard.submit_option(resting, identity="a")
        assert outcome.status is FilingStatus.SUBMITTED
        assert _held(gw) > 0
        gw.clock.advance(timedelta(hours=6, minutes=1))  # past the regular close: it ends
        await gw.guard.reconcile()
        assert gw.ledger.filing(outcome.filing_id).status is FilingStatus.CANCELLED
        assert _held(gw) == 0


async def test_an_option_order_held_for_approval_is_sent_only_once_the_owner_approves(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path, config=option_policy(approval="always")) as gw:
        held = await gw.guard.submit_option(_long_call(gw), identity="a")
        assert held.status is FilingStatus.PENDING_APPROVAL and held.approval_id is not None
        assert venue_orders(gw) == []
        approved = await gw.guard.approve(held.approval_id, by="owner")
        assert approved.status is FilingStatus.SUBMITTED
        assert len(venue_orders(gw)) == 1


async def test_a_contract_the_venue_lists_otherwise_or_not_at_all_is_refused_and_filed(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        proposal = _long_call(gw)
        (real,) = proposal.legs
        wrong = replace(real, contract=replace(real.contract, strike=real.contract.strike + 1))
        mismatch = await gw.guard.submit_option(replace(proposal, legs=(wrong,)), identity="a")
        unlisted = replace(real, option_id="00000000-0000-4000-8000-000000000000")
        missing = await gw.guard.submit_option(replace(proposal, legs=(unlisted,)), identity="a")
        sent = venue_orders(gw)
    assert mismatch.status is FilingStatus.REFUSED
    assert mismatch.reasons[0] == "option_contract_mismatch"
    assert missing.reasons[0] == "option_not_in_chain"
    assert sent == []


async def test_on_paper_the_guard_files_an_option_order_and_the_paper_book_fills_it(
    tmp_path: Path,
) -> None:
    # Paper is the venue's own engine, options desk included (issue 24): no longer refused
    # options_not_on_paper, the order is placed on the paper book; the venue sees nothing.
    async with option_gateway(tmp_path, live=False) as gw:
        outcome = await gw.guard.submit_option(_long_call(gw), identity="a")
        await gw.settle()
        record = gw.ledger.filing(outcome.filing_id)
        sent = venue_orders(gw)
    assert outcome.status is FilingStatus.SUBMITTED
    assert outcome.reasons == ()
    assert record.kind == "option_order"
    assert record.status is FilingStatus.FILLED
    assert sent == []


async def test_a_partial_fill_at_the_venue_is_followed_and_the_hold_ends_at_what_filled(
    tmp_path: Path,
) -> None:
    """200 contracts: more than the venue's quotes display (at most 150 a side), so the first
    look fills part; the reconciler follows each fill and the hold ends at the premium the
    venue says filled."""
    config = option_policy(
        limits='max_order_usd = "500000"\nmax_daily_usd = "900000"',
        max_contracts="1000",
        max_premium_usd='"500000"',
        max_daily_premium_usd='"900000"',
        max_loss_usd='"900000"',
    )
    async with option_gateway(tmp_path, config=config) as gw:
        call = near_money(gw, "call", 2)
        _, ask = quote(gw, call["id"])
        contract = OptionContract(
            underlying="AAPL",
            expiry=date.fromisoformat(call["expiration_date"]),
            strike=Decimal(call["strike_price"]),
            kind=OptionType.CALL,
        )
        proposal = OptionProposal(
            legs=(OptionLeg(call["id"], contract, Side.BUY, OptionPositionEffect.OPEN),),
            quantity=200,
            direction=OptionDirection.DEBIT,
            limit_price=ask + CENT,
            account=gw.account,
        )
        outcome = await gw.guard.submit_option(proposal, identity="a")
        assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons
        gw.clock.advance(timedelta(seconds=2))
        await gw.guard.reconcile()
        assert gw.ledger.filing(outcome.filing_id).status is FilingStatus.PARTIALLY_FILLED
        for _ in range(20):
            if gw.ledger.filing(outcome.filing_id).status.terminal:
                break
            gw.clock.advance(timedelta(seconds=1))
            await gw.guard.reconcile()
        assert gw.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        (sent,) = venue_orders(gw)
        assert sent["processed_quantity"] == "200"
        assert len(sent["legs"][0]["executions"]) > 1
        assert _held(gw) == Decimal(sent["processed_premium"])


async def test_a_cash_secured_put_assigned_at_the_venue_is_followed_to_the_shares_it_bought(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        put = near_money(gw, "put", -1)
        bid, _ = quote(gw, put["id"])
        contract = OptionContract(
            underlying="AAPL",
            expiry=date.fromisoformat(put["expiration_date"]),
            strike=Decimal(put["strike_price"]),
            kind=OptionType.PUT,
        )
        proposal = OptionProposal(
            legs=(OptionLeg(put["id"], contract, Side.SELL, OptionPositionEffect.OPEN),),
            quantity=1,
            direction=OptionDirection.CREDIT,
            limit_price=bid - CENT,
            account=gw.account,
        )
        outcome = await gw.guard.submit_option(proposal, identity="a")
        gw.clock.advance(timedelta(seconds=3))
        await gw.guard.reconcile()
        assert gw.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        premium, filled_at = _held(gw), gw.clock.now()
        gw.venue.admin("shock", {"symbol": "AAPL", "pct": "-10"})
        gw.clock.set(datetime.combine(contract.expiry, time(21, 1), UTC))
        await gw.guard.reconcile()
        lane = gw.guard.venue.options
        assert lane is not None
        holdings = await lane.holdings(gw.account, "AAPL")
        assert holdings.contracts == {} and holdings.shares == 100  # assigned at the strike
        spent = gw.ledger.rolling_spend(gw.account, now=filled_at, kind="option_order")
        assert spent.notional == premium  # the reservation stays at the premium that filled
