"""Split daily budgets through the guard on paper: with ``[options] split_daily_budget`` or
``[crypto] split_daily_budget`` the kind spends its own daily cap alone, never the shared
``[limits] max_daily_usd`` (the ledger's rolling cap included), and equities no longer count
it; without a split every order spends the one shared budget, as before."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from client_testkit import rhs_account_number
from guard_kit import Desk, buy, desk, limit_buy, policy
from option_market_testkit import OPTIONS, leg, near_money
from paper_options_kit import option_policy, paper_options, proposal

from ordergate.core import Side
from ordergate.ledger import FilingStatus
from ordergate.policy import CryptoProposal

pytestmark = pytest.mark.anyio
D = Decimal
SPLIT_OPTIONS = OPTIONS + "split_daily_budget = true\n"
CRYPTO = """
[crypto]
pairs = ["BTC-USD"]
max_order_usd = "40000"
max_position_pct = "100"
price_collar_bps = 500
max_daily_usd = "1000"
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def btc(d: Desk, usd: str) -> CryptoProposal:
    return CryptoProposal(
        pair="BTC-USD", side=Side.BUY, quote_amount=D(usd), account=rhs_account_number(d.venue)
    )


async def test_split_option_premium_passes_a_shared_budget_it_would_exceed(
    tmp_path: Path,
) -> None:
    rules = replace(option_policy(options=SPLIT_OPTIONS), max_daily_usd=D(1))
    async with paper_options(tmp_path, config=rules) as d:
        outcome = await d.guard.submit_option(
            proposal(d, [leg(near_money(d, "call")["id"])]), identity="a"
        )
        assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons


async def test_without_a_split_option_premium_spends_the_shared_budget(tmp_path: Path) -> None:
    rules = replace(option_policy(), max_daily_usd=D(1))
    async with paper_options(tmp_path, config=rules) as d:
        outcome = await d.guard.submit_option(
            proposal(d, [leg(near_money(d, "call")["id"])]), identity="a"
        )
        assert outcome.status is FilingStatus.REFUSED
        assert "max_daily_usd" in outcome.reasons


async def test_split_option_premium_leaves_the_shared_budget_to_equities(tmp_path: Path) -> None:
    async with paper_options(tmp_path, config=option_policy(options=SPLIT_OPTIONS)) as d:
        call = proposal(d, [leg(near_money(d, "call")["id"])])
        assert call.limit_price is not None
        premium = call.limit_price * 100
        shared = (premium * D("1.5")).quantize(D("0.01"))
        guard = d.guard_with(replace(option_policy(options=SPLIT_OPTIONS), max_daily_usd=shared))
        assert (await guard.submit_option(call, identity="a")).status is FilingStatus.SUBMITTED
        ask = D(d.quote("AAPL")["ask_price"])
        shares = ((shared - D(1)) / ask).quantize(D(1), rounding="ROUND_DOWN")
        assert shares * ask > shared - premium  # it would not fit beside the premium
        bought = await guard.submit(buy("AAPL", quantity=shares), identity="a")
        assert bought.status is FilingStatus.SUBMITTED, bought.reasons


async def test_split_crypto_spends_its_own_budget_alone(tmp_path: Path) -> None:
    rules = policy(CRYPTO + "split_daily_budget = true\n")
    async with desk(tmp_path, config=replace(rules, max_daily_usd=D(1))) as d:
        first = await d.guard.submit_crypto(btc(d, "600.00"), identity="a")
        assert first.status is FilingStatus.SUBMITTED, first.reasons  # over the shared $1
        second = await d.guard.submit_crypto(btc(d, "600.00"), identity="b")
        assert second.status is FilingStatus.REFUSED
        assert "max_daily_usd" in second.reasons  # over crypto's own $1000


async def test_split_crypto_leaves_the_shared_budget_to_equities(tmp_path: Path) -> None:
    rules = policy(CRYPTO + "split_daily_budget = true\n")
    async with desk(tmp_path, config=rules) as d:
        ask = D(d.quote("SPY")["ask_price"])
        shared = rules.max_daily_usd
        assert (await d.guard.submit_crypto(btc(d, "900.00"), identity="a")).reasons == ()
        shares = ((shared - D(1)) / ask).quantize(D(1), rounding="ROUND_DOWN")
        guard = d.guard_with(replace(rules, max_order_usd=shared))
        order = limit_buy("SPY", str(ask), str(shares))  # held at its limit, no collar
        bought = await guard.submit(order, identity="a")
        assert bought.status is FilingStatus.SUBMITTED, bought.reasons


async def test_without_a_split_crypto_and_equities_spend_one_shared_budget(
    tmp_path: Path,
) -> None:
    rules = policy(CRYPTO)
    async with desk(tmp_path, config=rules) as d:
        ask = D(d.quote("SPY")["ask_price"])
        shared = rules.max_daily_usd
        assert (await d.guard.submit_crypto(btc(d, "900.00"), identity="a")).reasons == ()
        shares = ((shared - D(1)) / ask).quantize(D(1), rounding="ROUND_DOWN")
        guard = d.guard_with(replace(rules, max_order_usd=shared))
        bought = await guard.submit(limit_buy("SPY", str(ask), str(shares)), identity="a")
        assert bought.status is FilingStatus.REFUSED
        assert "max_daily_usd" in bought.reasons
