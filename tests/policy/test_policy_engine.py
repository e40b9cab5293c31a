"""The engine: both stages, the reducing exemption, fail-closed on every missing field, and
the fixed order of reasons."""

from __future__ import annotations

from typing import Any

import pytest
from policy_kit import D, buy, config, decide, msft_state, quote, reasons, sell, state

from ordergate.core import OrderType, Side
from ordergate.policy import (
    RULES,
    AccountState,
    Exemption,
    OpenOrder,
    Position,
    Proposal,
    ReasonCode,
    Stage,
    Terms,
    TradingState,
    estimate_terms,
    evaluate,
    reduces_position,
)

R = ReasonCode


@pytest.mark.req("policy.stage-b-authoritative")
def test_reviewed_terms_over_the_cap_are_refused_at_stage_b_though_stage_a_passed() -> None:
    proposal = buy(quantity="0.99")
    estimated = decide(proposal)
    assert estimated.allowed and estimated.stage is Stage.ESTIMATE
    reviewed = Terms(price=D("101.50"), notional=D("100.485"), quantity=D("0.99"))
    decision = decide(proposal, terms=reviewed, stage=Stage.REVIEW)
    assert not decision.allowed
    assert decision.stage is Stage.REVIEW
    assert decision.reasons == (R.MAX_ORDER_USD,)


@pytest.mark.req("policy.stage-b-authoritative")
def test_reviewed_fees_that_break_the_cash_floor_are_refused_at_stage_b() -> None:
    proposal = buy("50")
    policy = config(min_cash_usd=D(4950))
    assert decide(proposal, policy=policy).allowed
    reviewed = Terms(price=D("100.02"), notional=D(50), quantity=D("0.4999"), fees=D("0.02"))
    decision = decide(proposal, policy=policy, terms=reviewed, stage=Stage.REVIEW)
    assert decision.reasons == (R.MIN_CASH,)


@pytest.mark.req("policy.reducing-orders-exempt")
def test_a_reducing_sell_passes_spend_caps_and_both_breakers() -> None:
    tripped = msft_state(
        spent_24h=D(10_000),
        high_water_mark=D(20_000),
        session_start_equity=D(20_000),
        cash=D(0),
    )
    decision = decide(sell("2"), tripped)
    assert decision.allowed
    assert decision.reduces_position
    assert decide(buy(symbol="MSFT"), tripped).reasons == (
        R.INSUFFICIENT_BUYING_POWER,
        R.MAX_DAILY_USD,
        R.MIN_CASH,
        R.DRAWDOWN_HALT,
        R.DAILY_LOSS_HALT,
    )


@pytest.mark.req("policy.reducing-orders-exempt")
def test_without_the_exemption_a_reducing_sell_meets_the_caps_and_breakers() -> None:
    tripped = msft_state(spent_24h=D(10_000), high_water_mark=D(20_000))
    decision = decide(sell("2"), tripped, config(reducing_exempt=False))
    assert decision.reduces_position
    assert decision.reasons == (R.MAX_ORDER_USD, R.MAX_DAILY_USD, R.DRAWDOWN_HALT)


@pytest.mark.req("policy.reducing-orders-exempt")
def test_halted_still_lets_a_reducing_order_out_without_the_exemption() -> None:
    halted = msft_state(trading_state=TradingState.HALTED, unknown_broker_orders=2)
    assert decide(sell("1"), halted, config(reducing_exempt=False, max_order_usd=D(500))).allowed


def test_reducing_orders_still_meet_the_op_cap_market_quality_and_the_pause() -> None:
    assert reasons(sell("1"), msft_state(orders_24h=20)) == {R.MAX_ORDERS_PER_DAY}
    stale = msft_state(quote=quote("MSFT", "420.00", "420.10", "420.05", age_s=60))
    assert reasons(sell("1"), stale) == {R.STALE_QUOTE}
    assert reasons(sell("1"), msft_state(paused=True)) == {R.PAUSED}


def test_reducing_means_within_what_is_held_less_pending_orders() -> None:
    terms = Terms(price=D(1), notional=D(1), quantity=None)
    long = state(
        positions={"X": Position(D(5), D(5))}, open_orders=(OpenOrder("X", Side.SELL, D(2)),)
    )
    assert reduces_position(sell("3", symbol="X"), terms, long)
    assert not reduces_position(sell("4", symbol="X"), terms, long)
    assert not reduces_position(Proposal("X", Side.BUY, quantity=D(1)), terms, long)
    short = state(
        positions={"X": Position(D(-5), D(-5))}, open_orders=(OpenOrder("X", Side.BUY, D(1)),)
    )
    assert reduces_position(Proposal("X", Side.BUY, quantity=D(4)), terms, short)
    assert not reduces_position(Proposal("X", Side.BUY, quantity=D(5)), terms, short)
    assert not reduces_position(sell("1", symbol="X"), terms, short)
    assert not reduces_position(sell("1", symbol="Y"), terms, long)


def test_reducing_is_unknown_and_so_false_when_data_is_missing() -> None:
    terms = Terms(price=None, notional=D(100), quantity=None)
    dollars = Proposal("MSFT", Side.SELL, notional=D(100))
    assert not reduces_position(dollars, terms, msft_state())
    assert not reduces_position(sell("1"), terms, msft_state(positions=None))
    assert not reduces_position(sell("1"), terms, msft_state(open_orders=None))


def test_a_dollar_sell_reduces_by_its_estimated_quantity() -> None:
    dollars = Proposal("MSFT", Side.SELL, notional=D(420))
    decision = decide(dollars, msft_state(), config(max_order_usd=D(10)))
    assert decision.reduces_position and decision.allowed


MISSING: list[tuple[str, Any, ReasonCode]] = [
    ("now", None, R.MISSING_NOW),
    ("equity", None, R.MISSING_EQUITY),
    ("high_water_mark", None, R.MISSING_HIGH_WATER_MARK),
    ("session_start_equity", None, R.MISSING_SESSION_START_EQUITY),
    ("cash", None, R.MISSING_CASH),
    ("buying_power", None, R.MISSING_BUYING_POWER),
    ("positions", None, R.MISSING_POSITIONS),
    ("open_orders", None, R.MISSING_OPEN_ORDERS),
    ("unknown_broker_orders", None, R.MISSING_UNKNOWN_BROKER_ORDERS),
    ("spent_24h", None, R.MISSING_SPENT_24H),
    ("orders_24h", None, R.MISSING_ORDERS_24H),
    ("trading_state", None, R.MISSING_TRADING_STATE),
    ("paused", None, R.MISSING_PAUSED),
    ("session", None, R.MISSING_SESSION),
    ("tradable", None, R.MISSING_TRADABLE),
    ("quote", None, R.NO_QUOTE),
    ("quote", quote(bid=None), R.MISSING_BID_ASK),
    ("quote", quote(ask="0"), R.MISSING_BID_ASK),
    ("quote", quote(bid=None, ask=None, last=None), R.MISSING_QUOTE_PRICE),
]


@pytest.mark.req("policy.fail-closed-missing-data")
@pytest.mark.parametrize(("field", "value", "code"), MISSING, ids=[m[0] for m in MISSING])
def test_a_missing_state_field_refuses_naming_the_field(
    field: str, value: Any, code: ReasonCode
) -> None:
    decision = decide(buy(), state(**{field: value}))
    assert not decision.allowed
    assert code in decision.reasons
    assert code.is_missing_data
    assert all(reason.is_missing_data for reason in decision.reasons)


@pytest.mark.req("policy.fail-closed-missing-data")
def test_a_quote_without_a_time_refuses() -> None:
    undated = quote()
    undated = type(undated)(undated.symbol, undated.bid, undated.ask, undated.last, None)
    assert reasons(buy(), state(quote=undated)) == {R.MISSING_QUOTE_TIME}


@pytest.mark.req("policy.fail-closed-missing-data")
def test_missing_terms_refuse_naming_the_field_once() -> None:
    no_price = Terms(price=None, notional=D(50), quantity=None)
    assert reasons(buy(), terms=no_price) == {R.MISSING_PRICE}
    no_notional = Terms(price=D("100.02"), notional=None, quantity=None)
    decision = decide(buy(quantity="0.5"), terms=no_notional)
    assert decision.reasons.count(R.MISSING_NOTIONAL) == 1
    assert set(decision.reasons) == {R.MISSING_NOTIONAL}
    dollars_sell = Proposal("MSFT", Side.SELL, notional=D(100))
    unknown = Terms(price=D(420), notional=D(100), quantity=None)
    assert R.MISSING_QUANTITY in reasons(dollars_sell, msft_state(), terms=unknown)


@pytest.mark.req("policy.fail-closed-missing-data")
def test_an_empty_state_refuses_with_only_missing_data_reasons() -> None:
    decision = decide(buy(), AccountState())
    assert not decision.allowed
    assert all(reason.is_missing_data for reason in decision.reasons)
    assert R.NO_QUOTE in decision.reasons and R.MISSING_PAUSED in decision.reasons


@pytest.mark.req("policy.fail-closed-missing-data")
def test_stage_a_without_a_usable_quote_has_no_price_and_refuses() -> None:
    for account in (state(quote=None), state(quote=quote(ask=None)), state(quote=quote(ask="0"))):
        terms = estimate_terms(buy(), account.quote)
        assert terms.price is None and terms.quantity is None
        assert not decide(buy(), account, terms=terms).allowed
    priced = estimate_terms(buy(quantity="2"), None)
    assert priced.notional is None


def test_estimates_lean_against_the_order() -> None:
    q = quote(bid="99", ask="101")
    assert estimate_terms(buy(quantity="2"), q) == Terms(D(101), D(202), D(2))
    assert estimate_terms(sell("2", symbol="AAPL"), q).price == D(99)
    limit = Proposal(
        "AAPL", Side.BUY, quantity=D(2), order_type=OrderType.LIMIT, limit_price=D(100)
    )
    assert estimate_terms(limit, q) == Terms(D(100), D(200), D(2))
    assert estimate_terms(limit, None) == Terms(D(100), D(200), D(2))
    dollars = estimate_terms(buy("101"), q)
    assert dollars.quantity == D(1) and dollars.notional == D(101)


def test_every_failing_reason_is_reported_once_in_rule_order() -> None:
    account = state(paused=True, quote=quote("TSLA"), spent_24h=D(1000))
    decision = decide(buy("200", symbol="TSLA"), account)
    assert decision.reasons == (R.PAUSED, R.SYMBOL_NOT_ALLOWED, R.MAX_ORDER_USD, R.MAX_DAILY_USD)
    order = [rule.name for rule in RULES]
    assert order.index("paused") < order.index("symbol_allowed") < order.index("max_order")


def test_rule_exemptions_are_as_documented() -> None:
    by_name = {rule.name: rule.exemption for rule in RULES}
    assert by_name["trading_state"] is Exemption.REDUCING
    assert by_name["unknown_broker_orders"] is Exemption.REDUCING
    for name in ("max_order", "max_daily", "drawdown", "daily_loss", "position_pct"):
        assert by_name[name] is Exemption.POLICY
    for name in ("paused", "quote_fresh", "price_collar", "orders_per_day", "symbol_allowed"):
        assert by_name[name] is Exemption.NONE


def test_decision_codes_are_the_plain_strings() -> None:
    decision = decide(buy("100.01"), state(paused=True))
    assert decision.codes == ("paused", "max_order_usd")


def test_evaluate_takes_the_stage_it_is_given() -> None:
    proposal = buy()
    terms = estimate_terms(proposal, state().quote)
    decision = evaluate(proposal, terms, state(), config(), Stage.REVIEW)
    assert decision.stage is Stage.REVIEW and decision.allowed
