"""The guard's crypto lane against the sandbox venue as the broker (the MCP's crypto tools):
filed as ``crypto_order`` naming its lane, stage A at the far side, stage B on the preview,
placed under the filing's id, followed to its end with the hold converged to the fills; and
refused before anything is sent where the policy says so."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from client_testkit import rhs_account_number
from guard_kit import Desk, desk, policy

from ordergate.core import CryptoOrderType, Side
from ordergate.execution import CRYPTO_KIND
from ordergate.ledger import FilingStatus
from ordergate.policy import CryptoProposal, ProposalError
from ordergate.runtime import approval_announcement

pytestmark = pytest.mark.anyio

CRYPTO = """
[crypto]
pairs = ["BTC-USD", "ETH-USD"]
max_order_usd = "40000"
max_position_pct = "100"
price_collar_bps = 500
"""
D = Decimal


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def rhs(d: Desk) -> str:
    return rhs_account_number(d.venue)


def crypto(d: Desk, **fields: Any) -> CryptoProposal:
    terms: dict[str, Any] = {
        "pair": "BTC-USD",
        "side": Side.BUY,
        "asset_quantity": D("0.01"),
        "account": rhs(d),
    }
    terms.update(fields)
    return CryptoProposal(**terms)


def venue_orders(d: Desk) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = d.venue.data(
        "get_crypto_orders", {"rhs_account_number": rhs(d)}
    )["orders"]
    return listed


def ask(d: Desk, pair: str = "BTC-USD") -> Decimal:
    quote = d.venue.data("get_crypto_quotes", {"symbols": [pair]})["results"][0]
    return D(quote["ask_price"])


async def follow(d: Desk, filing_id: object, steps: int = 10) -> FilingStatus:
    for _ in range(steps):
        status = d.ledger.filing(filing_id).status
        if status.terminal:
            return status
        d.step(1)
        await d.guard.reconcile()
    return d.ledger.filing(filing_id).status


def filled_notional(d: Desk, filing_id: object) -> Decimal:
    return sum((f.notional for f in d.ledger.orders.executions(filing_id)), D(0))


async def test_a_market_buy_by_quantity_is_filed_placed_under_its_id_and_reconciled_to_its_fills(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(CRYPTO)) as d:
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is FilingStatus.SUBMITTED and outcome.order_id
        record = d.ledger.filing(outcome.filing_id)
        assert record.kind == CRYPTO_KIND
        assert (record.terms["lane"], record.terms["pair"]) == ("mcp", "BTC-USD")
        [order] = venue_orders(d)
        assert (order["id"], order["ref_id"]) == (outcome.order_id, str(outcome.filing_id))
        assert await follow(d, outcome.filing_id) is FilingStatus.FILLED
        filled = filled_notional(d, outcome.filing_id)
        assert filled > 0
        assert d.ledger.rolling_spend(d.account).notional == filled


async def test_a_buy_by_dollars_and_a_sell_by_quantity_end_at_what_filled(tmp_path: Path) -> None:
    async with desk(tmp_path, live=True, config=policy(CRYPTO)) as d:
        bought = await d.guard.submit_crypto(
            crypto(d, pair="ETH-USD", asset_quantity=None, quote_amount=D("500.00")),
            identity="a",
        )
        assert await follow(d, bought.filing_id) is FilingStatus.FILLED
        units = sum((f.quantity for f in d.ledger.orders.executions(bought.filing_id)), D(0))
        assert units > 0
        sold = await d.guard.submit_crypto(
            crypto(d, pair="ETH-USD", side=Side.SELL, asset_quantity=units), identity="a"
        )
        assert sold.status is FilingStatus.SUBMITTED
        assert await follow(d, sold.filing_id) is FilingStatus.FILLED
        # The sell reduced a holding: it reserved nothing; the buy holds its fills.
        assert d.ledger.rolling_spend(d.account).notional == filled_notional(d, bought.filing_id)


async def test_a_resting_limit_is_cancelled_through_the_guard_and_releases_its_hold(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(CRYPTO + "price_collar_bps = 10000\n")) as d:
        outcome = await d.guard.submit_crypto(
            crypto(d, order_type=CryptoOrderType.LIMIT, limit_price=D("50000.00")), identity="a"
        )
        assert outcome.status is FilingStatus.SUBMITTED
        assert d.ledger.rolling_spend(d.account).notional == D("500.00")
        d.step(2)
        cancelled = await d.guard.cancel(outcome.filing_id, identity="a")
        assert cancelled.status is FilingStatus.CANCELLED
        assert d.ledger.rolling_spend(d.account).notional == 0
        assert venue_orders(d)[0]["state"] == "canceled"


async def test_a_big_buy_fills_over_several_executions_partially_filled_in_between(
    tmp_path: Path,
) -> None:
    wide = policy('[limits]\nmax_daily_usd = "100000"\n' + CRYPTO)
    async with desk(tmp_path, live=True, config=wide) as d:
        # The venue's desk executes at most $25000 a look: 0.3 BTC takes two looks or more.
        outcome = await d.guard.submit_crypto(crypto(d, asset_quantity=D("0.3")), identity="a")
        seen = set()
        for _ in range(10):
            d.step(1)
            await d.guard.reconcile()
            seen.add(d.ledger.filing(outcome.filing_id).status)
        assert FilingStatus.PARTIALLY_FILLED in seen
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        assert len(d.ledger.orders.executions(outcome.filing_id)) >= 2
        assert d.ledger.rolling_spend(d.account).notional == filled_notional(d, outcome.filing_id)


async def test_an_order_the_venue_rejects_is_recorded_rejected_and_releases_its_hold(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(CRYPTO)) as d:
        d.venue.faults(reject_orders=1)
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        status = await follow(d, outcome.filing_id)
        assert status in (FilingStatus.REJECTED, FilingStatus.FAILED)
        assert d.ledger.rolling_spend(d.account).notional == 0


@pytest.mark.parametrize(
    ("extra", "fields", "code"),
    [
        ("", {}, "crypto_not_enabled"),
        (CRYPTO, {"pair": "DOGE-USD", "asset_quantity": D(100)}, "crypto_pair_not_allowed"),
        (CRYPTO, {"asset_quantity": D("0.0000001")}, "crypto_min_order_size"),
        (CRYPTO, {"asset_quantity": D("0.000001001")}, "crypto_increment"),
        (CRYPTO, {"side": Side.SELL}, "short_sell"),
    ],
)
async def test_what_the_policy_refuses_is_filed_refused_and_nothing_is_sent(
    tmp_path: Path, extra: str, fields: dict[str, Any], code: str
) -> None:
    async with desk(tmp_path, live=True, config=policy(extra)) as d:
        outcome = await d.guard.submit_crypto(crypto(d, **fields), identity="a")
        assert outcome.status is FilingStatus.REFUSED and code in outcome.reasons
        assert venue_orders(d) == []
        assert d.ledger.rolling_spend(d.account).orders == 0


async def test_a_quantity_one_cent_over_the_cap_at_the_ask_is_refused_naming_its_figures(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(CRYPTO)) as d:
        price = ask(d)
        quantity = D("0.01")
        cap = price * quantity - D("0.01")
        d.guard.use_policy(policy(CRYPTO + f'max_order_usd = "{cap}"\n'))
        outcome = await d.guard.submit_crypto(crypto(d, asset_quantity=quantity), identity="a")
        assert outcome.reasons == ("max_order_usd",)
        assert any("crypto.max_order_usd" in figure for figure in outcome.figures)
        assert venue_orders(d) == []


async def test_an_approval_carries_a_crypto_order_on_to_the_venue(tmp_path: Path) -> None:
    async with desk(tmp_path, live=True, config=policy('approval = "always"\n' + CRYPTO)) as d:
        held = await d.guard.submit_crypto(crypto(d), identity="a")
        assert held.status is FilingStatus.PENDING_APPROVAL and held.approval_id
        assert venue_orders(d) == []
        told = approval_announcement(
            d.ledger.approvals.get(held.approval_id), d.ledger.filing(held.filing_id)
        )
        assert (told["kind"], told["pair"], told["asset_quantity"], told["lane"]) == (
            "crypto_order",
            "BTC-USD",
            "0.01",
            "mcp",
        )
        approved = await d.guard.approve(held.approval_id, by="owner")
        assert approved.status is FilingStatus.SUBMITTED
        assert [o["ref_id"] for o in venue_orders(d)] == [str(held.filing_id)]


async def test_the_agents_key_answers_a_retry_with_the_first_filing(tmp_path: Path) -> None:
    async with desk(tmp_path, live=True, config=policy(CRYPTO)) as d:
        key = uuid4()
        first = await d.guard.submit_crypto(crypto(d), identity="a", agent_key=key)
        again = await d.guard.submit_crypto(crypto(d), identity="a", agent_key=key)
        other = await d.guard.submit_crypto(
            crypto(d, asset_quantity=D("0.02")), identity="a", agent_key=key
        )
        assert again.filing_id == first.filing_id
        assert other.reasons == ("ref_id_reused",)
        assert len(venue_orders(d)) == 1


async def test_a_crypto_proposal_needs_its_account(tmp_path: Path) -> None:
    async with desk(tmp_path / "live", live=True, config=policy(CRYPTO)) as d:
        with pytest.raises(ProposalError) as missing:
            await d.guard.submit_crypto(crypto(d, account=None), identity="a")
        assert missing.value.field == "account"
        assert d.ledger.open_filings(d.account) == []
