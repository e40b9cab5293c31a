"""The guard's crypto lane on answers the sandbox never gives, through a lane that passes
every call to the real MCP lane and alters one answer: a crossed or stale quote refused at
stage A, a review that fails or prices over the cap, a place that is not answered (the
reconciler adopts the order) or is held for the person's approval, and an approved order
whose review costs more than the owner approved. Nothing is sent that the guard refused."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from client_testkit import rhs_account_number
from guard_kit import Desk, desk, policy

from ordergate.core import Side
from ordergate.execution import Guard
from ordergate.ledger import FilingStatus
from ordergate.policy import CryptoPairRules, CryptoProposal, CryptoQuote, CryptoTerms
from ordergate.venues import (
    BrokerOrder,
    BrokerRefusal,
    CryptoLanes,
    CryptoReview,
    CryptoTicket,
    CryptoView,
    NoAnswer,
    Placement,
)
from ordergate.venues.robinhood import McpCrypto, RobinhoodVenue

pytestmark = pytest.mark.anyio

D = Decimal
CRYPTO = """
[crypto]
pairs = ["BTC-USD"]
max_order_usd = "5000"
max_position_pct = "100"
price_collar_bps = 500
route = "mcp"
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Altered:
    """The real MCP lane, with one answer altered by the test."""

    def __init__(self, real: McpCrypto) -> None:
        self.real = real
        self.quote_shift: timedelta | None = None
        self.crossed = False
        self.review_error: Exception | None = None
        self.review_scale: Decimal | None = None
        self.place_then: Exception | None = None
        self.awaiting = False

    @property
    def name(self) -> str:
        return "mcp"

    def _alter(self, quote: CryptoQuote | None) -> CryptoQuote | None:
        if quote is None:
            return None
        if self.crossed:
            assert quote.bid is not None and quote.ask is not None
            quote = dataclasses.replace(quote, bid=quote.ask + 1)
        if self.quote_shift is not None and quote.at is not None:
            quote = dataclasses.replace(quote, at=quote.at - self.quote_shift)
        return quote

    async def quote(self, pair: str) -> CryptoQuote | None:
        return self._alter(await self.real.quote(pair))

    async def pairs(self) -> Mapping[str, CryptoPairRules]:
        return await self.real.pairs()

    async def review(self, ticket: CryptoTicket) -> CryptoReview:
        if self.review_error is not None:
            raise self.review_error
        review = await self.real.review(ticket)
        if self.review_scale is not None:
            terms = review.terms
            assert terms.notional is not None and terms.price is not None
            review = dataclasses.replace(
                review,
                terms=CryptoTerms(
                    price=terms.price * self.review_scale,
                    quantity=terms.quantity,
                    notional=terms.notional * self.review_scale,
                ),
            )
        return review

    async def place(self, ticket: CryptoTicket) -> Placement:
        if self.awaiting:
            return Placement(order=None, awaiting_broker_approval=True)
        placed = await self.real.place(ticket)
        if self.place_then is not None:
            raise self.place_then
        return placed

    async def lookup(self, ticket: CryptoTicket, *, since: datetime) -> BrokerOrder | None:
        return await self.real.lookup(ticket, since=since)

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        return await self.real.poll(account, order_id)

    async def cancel(self, account: str, order_id: str) -> None:
        await self.real.cancel(account, order_id)

    async def read(self, account: str, pair: str | None) -> CryptoView:
        view = await self.real.read(account, pair)
        return dataclasses.replace(view, quote=self._alter(view.quote))


def guarded(d: Desk, extra: str = "") -> tuple[Guard, Altered]:
    lane = Altered(McpCrypto(d.rh))
    assert isinstance(d.port, RobinhoodVenue)
    venue = RobinhoodVenue(d.port.equity, CryptoLanes(lane))
    guard = Guard(
        policy=policy(extra + CRYPTO), ledger=d.ledger, venue=venue, account=d.account,
        clock=d.clock,
    )  # fmt: skip
    return guard, lane


def order(d: Desk, **fields: Any) -> CryptoProposal:
    terms: dict[str, Any] = {
        "pair": "BTC-USD",
        "side": Side.BUY,
        "asset_quantity": D("0.01"),
        "account": rhs_account_number(d.venue),
    }
    terms.update(fields)
    return CryptoProposal(**terms)


def venue_orders(d: Desk) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = d.venue.data(
        "get_crypto_orders", {"rhs_account_number": rhs_account_number(d.venue)}
    )["orders"]
    return listed


@pytest.mark.parametrize(
    ("alter", "code"),
    [({"crossed": True}, "crossed_quote"), ({"quote_shift": timedelta(seconds=60)}, "stale_quote")],
)
async def test_a_crossed_or_stale_quote_is_refused_and_nothing_is_sent(
    tmp_path: Path, alter: dict[str, Any], code: str
) -> None:
    async with desk(tmp_path, live=True) as d:
        guard, lane = guarded(d)
        for name, value in alter.items():
            setattr(lane, name, value)
        outcome = await guard.submit_crypto(order(d), identity="a")
        assert outcome.status is FilingStatus.REFUSED and code in outcome.reasons
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).orders == 0


@pytest.mark.parametrize(
    ("error", "status", "reason"),
    [
        (NoAnswer("review: no answer"), FilingStatus.FAILED, "review_unanswered"),
        (BrokerRefusal("INSUFFICIENT_HOLDINGS"), FilingStatus.REJECTED, "broker_refused"),
    ],
)
async def test_a_review_that_fails_ends_the_filing_and_releases_its_hold(
    tmp_path: Path, error: Exception, status: FilingStatus, reason: str
) -> None:
    async with desk(tmp_path, live=True) as d:
        guard, lane = guarded(d)
        lane.review_error = error
        outcome = await guard.submit_crypto(order(d), identity="a")
        assert (outcome.status, outcome.reasons) == (status, (reason,))
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).orders == 0


async def test_a_review_priced_over_the_cap_is_refused_at_stage_b_naming_crypto_keys(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        guard, lane = guarded(d)
        lane.review_scale = D(10)  # $10,000 against crypto.max_order_usd of $5,000
        outcome = await guard.submit_crypto(order(d), identity="a")
        assert outcome.status is FilingStatus.REFUSED and "max_order_usd" in outcome.reasons
        assert any("crypto.max_order_usd = $5000.00" in f for f in outcome.figures)
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).orders == 0


async def test_an_unanswered_place_is_adopted_by_the_reconciler_and_never_sent_again(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        guard, lane = guarded(d)
        lane.place_then = NoAnswer("place: connection reset")
        outcome = await guard.submit_crypto(order(d), identity="a")
        assert outcome.status is FilingStatus.UNANSWERED
        report = await guard.reconcile()
        assert report.adopted == 1
        assert len(venue_orders(d)) == 1
        assert d.ledger.filing(outcome.filing_id).status is not FilingStatus.UNANSWERED


async def test_an_order_held_for_the_persons_approval_awaits_it(tmp_path: Path) -> None:
    async with desk(tmp_path, live=True) as d:
        guard, lane = guarded(d)
        lane.awaiting = True
        outcome = await guard.submit_crypto(order(d), identity="a")
        assert outcome.status is FilingStatus.AWAITING_BROKER_APPROVAL


async def test_an_approved_order_that_reviews_dearer_is_held_for_the_owner_again(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        guard, lane = guarded(d, 'approval = "always"\n')
        held = await guard.submit_crypto(order(d), identity="a")
        assert held.approval_id is not None
        lane.review_scale = D("1.04")  # within the collar, past the 2 % the owner allows
        again = await guard.approve(held.approval_id, by="owner")
        assert again.status is FilingStatus.PENDING_APPROVAL
        assert again.reasons == ("approval_exceeded",) and again.approval_id != held.approval_id
        assert venue_orders(d) == []
