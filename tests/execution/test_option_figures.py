"""An option order's refusal names its numbers, at the cap's boundary, at either stage: the
decision is the policy's own (``evaluate_options``) and each sentence (``option_figures``)
gives what the check weighed and the key with its value."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from ordergate.core import OptionDirection, OptionPositionEffect, OptionType, Side
from ordergate.execution._figures import option_figures
from ordergate.policy import (
    AccountState,
    MarketSession,
    PolicyConfig,
    RecentOrders,
    Stage,
    TradingState,
    parse_policy,
)
from ordergate.policy.options import (
    OptionContract,
    OptionHoldings,
    OptionLeg,
    OptionProposal,
    OptionQuote,
    OptionState,
    OptionTerms,
    Strategy,
    estimate_option_terms,
    evaluate_options,
)

D = Decimal
NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
EXPIRY = date(2026, 12, 18)
STAGES = pytest.mark.parametrize("stage", [Stage.ESTIMATE, Stage.REVIEW], ids=["A", "B"])

POLICY = parse_policy(
    """
approval = "never"
[limits]
max_daily_usd = "1000"
max_orders_per_day = 20
[options]
underlyings = ["SPY"]
strategies = ["iron_condor", "naked_call"]
max_contracts = 2
max_premium_usd = "180"
max_daily_premium_usd = "500"
max_loss_usd = "820"
min_days_to_expiry = 1
max_days_to_expiry = 30
price_collar_bps = 1000
"""
)
BOOK = (
    ("p430", Side.BUY, OptionType.PUT, 430, "0.90", "1.00"),
    ("p440", Side.SELL, OptionType.PUT, 440, "1.90", "2.00"),
    ("c460", Side.SELL, OptionType.CALL, 460, "1.40", "1.50"),
    ("c470", Side.BUY, OptionType.CALL, 470, "0.60", "0.70"),
)
LEGS = tuple(
    OptionLeg(key, OptionContract("SPY", EXPIRY, D(strike), kind), side, OptionPositionEffect.OPEN)
    for key, side, kind, strike, _, _ in BOOK
)
QUOTES = {key: OptionQuote(key, D(bid), D(ask), NOW) for key, _, _, _, bid, ask in BOOK}
ACCOUNT = AccountState(
    now=NOW,
    equity=D(10000),
    high_water_mark=D(10000),
    session_start_equity=D(10000),
    cash=D(5000),
    buying_power=D(5000),
    positions={},
    open_orders=(),
    unknown_broker_orders=0,
    spent_24h=D(0),
    orders_24h=0,
    trading_state=TradingState.ACTIVE,
    paused=False,
    session=MarketSession.REGULAR,
    recent=RecentOrders(0, 0, 0),
)
STATE = OptionState(ACCOUNT, QUOTES, OptionHoldings(cash=D(5000)), premium_24h=D(0))


def condor(price: str = "1.80", quantity: int = 1) -> OptionProposal:
    return OptionProposal(LEGS, quantity, OptionDirection.CREDIT, limit_price=D(price))


def figures(
    proposal: OptionProposal,
    stage: Stage,
    state: OptionState = STATE,
    policy: PolicyConfig = POLICY,
    terms: OptionTerms | None = None,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if terms is None:
        terms = estimate_option_terms(proposal, QUOTES)
    decision = evaluate_options(proposal, terms, state, policy, stage)
    return decision.codes, option_figures(decision, proposal, terms, state, policy)


@STAGES
def test_the_condor_at_every_cap_is_allowed_with_no_figures(stage: Stage) -> None:
    assert figures(condor(), stage) == ((), ())


@STAGES
def test_premium_a_cent_over_its_cap_names_the_premium_and_the_key(stage: Stage) -> None:
    codes, said = figures(condor("1.8001"), stage)
    assert codes == ("option_premium_over_cap",)
    assert said == (
        "option_premium_over_cap: this order's premium is $180.01 "
        "(options.max_premium_usd = $180.00).",
    )


@STAGES
def test_the_rolling_premium_and_the_shared_budget_name_their_spend(stage: Stage) -> None:
    spent = replace(STATE, premium_24h=D("320.01"), account=replace(ACCOUNT, spent_24h=D("820.01")))
    codes, said = figures(condor(), stage, spent)
    assert codes == ("option_daily_premium_over_cap", "max_daily_usd")
    assert said == (
        "option_daily_premium_over_cap: $320.01 of option premium in the last 24 h, and this "
        "order's is $180.00 (options.max_daily_premium_usd = $500.00).",
        "max_daily_usd: $820.01 spent in the last 24 h, and this order's premium is $180.00 "
        "(limits.max_daily_usd = $1000.00; options.split_daily_budget = false).",
    )


@STAGES
def test_max_loss_and_contracts_over_their_caps_name_the_strategy(stage: Stage) -> None:
    codes, said = figures(condor("0.90", quantity=3), stage)
    assert "option_contracts_over_cap" in codes and "option_max_loss_over_cap" in codes
    assert (
        "option_contracts_over_cap: 3 contracts (options.max_contracts = 2); trade fewer." in said
    )
    assert (
        "option_max_loss_over_cap: this iron_condor can lose $2730.00 at expiry "
        "(options.max_loss_usd = $820.00)." in said
    )


def test_a_naked_call_names_its_unbounded_loss() -> None:
    naked = OptionProposal((LEGS[2],), 1, OptionDirection.CREDIT, limit_price=D("1.45"))
    codes, said = figures(naked, Stage.ESTIMATE)
    assert codes == ("option_undefined_risk",)
    assert said == (
        "option_undefined_risk: this naked_call's loss is unbounded (options.undefined_risk = "
        "false); cover it (hold the shares, buy the wing).",
    )


def test_a_price_outside_the_collar_names_the_net_price_and_mid() -> None:
    codes, said = figures(condor("1.99"), Stage.ESTIMATE)
    assert codes == ("option_price_collar", "option_premium_over_cap")
    assert said[0] == (
        "option_price_collar: the order's net credit $1.99 against the legs' net mid $1.80 "
        "(options.price_collar_bps = 1000)."
    )


def test_an_expiry_outside_the_window_names_the_days() -> None:
    assert POLICY.options is not None
    narrow = replace(POLICY, options=replace(POLICY.options, max_days_to_expiry=16))
    codes, said = figures(condor(), Stage.ESTIMATE, policy=narrow)
    assert codes == ("option_expiry_outside_window",)
    assert said == (
        "option_expiry_outside_window: opening legs expire in 17 day(s) "
        "(options.min_days_to_expiry = 1, options.max_days_to_expiry = 16).",
    )


def test_expiring_today_buying_power_and_the_shared_checks_name_their_numbers() -> None:
    today = OptionLeg(
        "c450",
        OptionContract("SPY", NOW.date(), D(450), OptionType.CALL),
        Side.BUY,
        OptionPositionEffect.OPEN,
    )
    quotes = {"c450": OptionQuote("c450", D("2.00"), D("2.10"), NOW)}
    poor = OptionState(
        replace(ACCOUNT, cash=D(100), orders_24h=20),
        quotes,
        OptionHoldings(),
        premium_24h=D(0),
    )
    assert POLICY.options is not None
    loose = replace(
        POLICY,
        options=replace(
            POLICY.options,
            min_days_to_expiry=0,
            no_open_last_minutes=390,
            strategies=frozenset(POLICY.options.strategies | {Strategy.LONG_CALL}),
        ),
    )
    call = OptionProposal((today,), 1, OptionDirection.DEBIT, limit_price=D("2.05"))
    codes, said = figures(call, Stage.ESTIMATE, poor, loose)
    assert codes == (
        "option_open_too_late",
        "max_orders_per_day",
        "insufficient_buying_power",
        "option_premium_over_cap",
    )
    assert said == (
        "option_open_too_late: a leg opening today expires today, within the session's last "
        "390 minutes (options.no_open_last_minutes = 390); closing is still taken.",
        "option_premium_over_cap: this order's premium is $205.00 "
        "(options.max_premium_usd = $180.00).",
        "insufficient_buying_power: this debit is $205.00 with $0.00 fees, against $5000.00 "
        "buying power and $100.00 cash.",
        "max_orders_per_day: 20 orders filed in the last 24 h (limits.max_orders_per_day = 20); "
        "each leaves the count 24 h after it was filed.",
    )


def test_a_policy_without_options_has_no_figures() -> None:
    decision = evaluate_options(
        condor(), estimate_option_terms(condor(), QUOTES), STATE, PolicyConfig(), Stage.ESTIMATE
    )
    assert decision.codes == ("options_not_enabled",)
    assert option_figures(decision, condor(), OptionTerms(D("1.80")), STATE, PolicyConfig()) == ()


def test_an_unpriced_order_names_no_premium() -> None:
    call = OptionProposal((LEGS[3],), 1, OptionDirection.DEBIT, limit_price=D("0.65"))
    unpriced = OptionTerms(premium=None)
    decision = evaluate_options(call, unpriced, STATE, POLICY, Stage.REVIEW)
    assert "missing_data:terms.premium" in decision.codes
    assert option_figures(decision, call, unpriced, STATE, POLICY) == ()
