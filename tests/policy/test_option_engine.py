"""The options engine: each check at its boundary (a cent, a contract, a day, a minute), the
adversarial shapes of the issue, the equity engine's shared checks, and fail-closed data."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from option_kit import (
    BUY,
    CALL,
    CLOSE,
    CONDOR,
    CREDIT,
    DEBIT,
    NOW,
    PUT,
    SELL,
    account,
    codes,
    condor,
    decide,
    leg,
    option_state,
    options,
    order,
    policy,
    quotes,
)

from ordergate.calendar import NyseCalendar
from ordergate.policy import (
    Approval,
    ApprovalKind,
    Cooldown,
    MarketSession,
    PolicyConfig,
    RecentOrders,
    Stage,
    TradingState,
)
from ordergate.policy.options import (
    HeldOption,
    OptionHoldings,
    OptionQuote,
    OptionTerms,
    Strategy,
)
from ordergate.policy.options._engine import _market_date

D = Decimal


def test_the_baseline_condor_is_allowed_with_its_strategy_premium_and_max_loss() -> None:
    decision = decide()
    assert decision.allowed and decision.reasons == ()
    assert decision.strategy is Strategy.IRON_CONDOR
    assert (decision.premium_usd, decision.max_loss) == (D(180), D(820))
    assert decision.net_mid == D("1.80")
    assert not decision.requires_approval and not decision.reduces_position


@pytest.mark.req("policy.options.not-enabled")
def test_a_policy_without_options_refuses_every_option_order_options_not_enabled() -> None:
    decision = decide(config=PolicyConfig())
    assert decision.codes == ("options_not_enabled",)
    assert not decision.allowed


# -- one cent, one contract over each cap ------------------------------------------------------


@pytest.mark.req("policy.options.caps-to-the-cent")
def test_premium_one_cent_over_max_premium_usd_is_refused() -> None:
    assert codes(config=policy(options=options(max_premium_usd=D(180)))) == set()
    assert codes(config=policy(options=options(max_premium_usd=D("179.99")))) == {
        "option_premium_over_cap"
    }


def test_premium_one_cent_over_the_rolling_24h_premium_is_refused() -> None:
    spent = option_state(premium_24h=D(820))
    assert codes(state=spent) == set()
    over = option_state(premium_24h=D("820.01"))
    assert codes(state=over) == {"option_daily_premium_over_cap"}


def test_debit_and_credit_premium_both_count_against_the_daily_premium() -> None:
    debit = order(leg(BUY, 450), price="2.00")
    state = option_state(quotes=quotes(debit.legs[0]), premium_24h=D("820.01"))
    assert codes(debit, state) == {"option_daily_premium_over_cap"}
    assert codes(state=state) == {"option_daily_premium_over_cap"}


def test_option_premium_shares_the_daily_dollar_budget_unless_split() -> None:
    shared = option_state(account=account(spent_24h=D("1820.01")))
    assert codes(state=shared) == {"max_daily_usd"}
    assert codes(state=option_state(account=account(spent_24h=D(1820)))) == set()
    split = policy(options=options(split_daily_budget=True))
    assert codes(state=shared, config=split) == set()


def test_max_loss_one_cent_over_max_loss_usd_is_refused() -> None:
    assert codes(config=policy(options=options(max_loss_usd=D(820)))) == set()
    assert codes(config=policy(options=options(max_loss_usd=D("819.99")))) == {
        "option_max_loss_over_cap"
    }


def test_one_contract_over_max_contracts_is_refused() -> None:
    roomy = policy(
        options=options(max_premium_usd=D(900), max_loss_usd=D(5000)), max_daily_usd=D(5000)
    )
    assert codes(condor(quantity=4), config=roomy) == set()
    assert codes(condor(quantity=5), config=roomy) == {"option_contracts_over_cap"}
    assert codes(
        condor(quantity=2), config=policy(options=options(max_contracts=1, max_loss_usd=D(5000)))
    ) == {"option_contracts_over_cap"}


def test_a_ratio_counts_its_largest_leg_against_max_contracts() -> None:
    legs = (leg(BUY, 450), leg(BUY, 450, PUT, ratio=2))
    ratio = order(*legs, quantity=2, price="4.00")
    state = option_state(quotes=quotes(*legs))
    assert "option_contracts_over_cap" not in codes(ratio, state)
    over = order(*legs, quantity=3, price="4.00")
    assert "option_contracts_over_cap" in codes(over, state)


# -- the expiry window and the expiration day's last minutes -----------------------------------


def test_one_day_either_side_of_the_expiry_window_is_refused() -> None:
    # The condor expires on 2026-12-18: 17 days after 2026-12-01 in New York.
    for low, high, allowed in ((17, 17, True), (18, 60, False), (1, 16, False)):
        window = policy(options=options(min_days_to_expiry=low, max_days_to_expiry=high))
        assert (codes(config=window) == set()) is allowed
        assert allowed or codes(config=window) == {"option_expiry_outside_window"}


def test_days_to_expiry_count_new_york_calendar_days() -> None:
    # 04:30 UTC on 2 December is still 1 December in New York.
    late = option_state(account=account(now=datetime(2026, 12, 2, 4, 30, tzinfo=UTC)))
    window = policy(options=options(min_days_to_expiry=17, max_days_to_expiry=17))
    assert "option_expiry_outside_window" not in codes(state=late, config=window)


TODAY = date(2026, 12, 1)


def _on_expiration_day(minutes_before_close: int, day: date = TODAY, **kw: object) -> set[str]:
    close = NyseCalendar().regular_close(day)
    now = close - timedelta(minutes=minutes_before_close)
    call = leg(BUY, 450, expiry=day, **kw)
    proposal = order(call, price="2.05")
    book = {call.option_id: OptionQuote(call.option_id, D("2.00"), D("2.10"), now)}
    state = option_state(account=account(now=now), quotes=book)
    window = policy(options=options(min_days_to_expiry=0, no_open_last_minutes=30))
    return codes(proposal, state, window)


def test_one_minute_either_side_of_no_open_last_minutes_on_an_expiration_day() -> None:
    assert _on_expiration_day(31) == set()
    assert _on_expiration_day(30) == {"option_open_too_late"}
    assert _on_expiration_day(29) == {"option_open_too_late"}


def test_an_early_close_moves_the_last_minutes_with_it() -> None:
    # The day after Thanksgiving closes at 13:00 in New York.
    friday = date(2026, 11, 27)
    assert NyseCalendar().is_early_close(friday)
    assert _on_expiration_day(31, friday) == set()
    assert _on_expiration_day(29, friday) == {"option_open_too_late"}


def test_no_open_on_an_expiration_day_without_a_session() -> None:
    saturday = datetime(2026, 12, 5, 15, 0, tzinfo=UTC)
    call = leg(BUY, 450, expiry=saturday.date())
    book = {call.option_id: OptionQuote(call.option_id, D("2.00"), D("2.10"), saturday)}
    state = option_state(account=account(now=saturday), quotes=book)
    window = policy(options=options(min_days_to_expiry=0))
    assert "option_open_too_late" in codes(order(call, price="2.05"), state, window)


def test_a_position_expiring_today_may_still_be_closed_in_the_last_minutes() -> None:
    close = NyseCalendar().regular_close(TODAY)
    now = close - timedelta(minutes=5)
    held = leg(BUY, 450, expiry=TODAY)
    closing = order(leg(SELL, 450, expiry=TODAY, effect=CLOSE), price="2.00")
    book = {held.option_id: OptionQuote(held.option_id, D("1.95"), D("2.05"), now)}
    holdings = OptionHoldings(options={held.option_id: HeldOption(held.contract, 1)})
    state = option_state(account=account(now=now), quotes=book, holdings=holdings)
    decision = decide(closing, state, policy(options=options(min_days_to_expiry=5)))
    assert decision.allowed and decision.strategy is Strategy.CLOSING
    assert decision.reduces_position


# -- the adversarial shapes --------------------------------------------------------------------


@pytest.mark.req("policy.options.strategy-from-legs")
def test_a_naked_call_the_agent_calls_covered_is_refused_as_undefined_risk() -> None:
    # The proposal has no field for a label: recognition reads the legs and the shares held.
    naked = order(leg(SELL, 450), price="2.05")
    state = option_state(quotes=quotes(naked.legs[0]))
    decision = decide(naked, state)
    assert decision.strategy is Strategy.NAKED_CALL
    assert set(decision.codes) == {"option_undefined_risk"}
    covered = replace(state, holdings=OptionHoldings(shares=D(100), options={}, cash=D(0)))
    assert decide(naked, covered, policy(options=options(max_loss_usd=D(45000)))).allowed


def test_a_ratio_that_leaves_a_call_uncovered_is_refused_as_undefined_risk() -> None:
    legs = (leg(BUY, 450), leg(SELL, 460, ratio=2))
    ratio = order(*legs, price="0.05", direction=CREDIT)
    state = option_state(quotes=quotes(*legs, book={}))
    book = {legs[0].option_id: ("4.00", "4.10"), legs[1].option_id: ("2.00", "2.10")}
    state = option_state(quotes=quotes(book=book))
    assert codes(ratio, state) == {"option_undefined_risk", "option_strategy_not_allowed"}
    allowing = policy(options=options(undefined_risk=True, strategies=frozenset(Strategy)))
    assert codes(ratio, state, allowing) == set()


def test_undefined_risk_true_lets_an_unbounded_order_through_the_risk_check() -> None:
    naked = order(leg(SELL, 450), price="2.05")
    state = option_state(quotes=quotes(naked.legs[0]))
    assert codes(naked, state, policy(options=options(undefined_risk=True))) == set()


def test_an_underlying_not_listed_is_refused() -> None:
    assert codes(config=policy(options=options(underlyings=frozenset({"QQQ"})))) == {
        "option_underlying_not_allowed"
    }


def test_a_strategy_not_listed_is_refused() -> None:
    only_long = policy(options=options(strategies=frozenset({Strategy.LONG_CALL})))
    assert codes(config=only_long) == {"option_strategy_not_allowed"}


# -- the collar: the net limit against the legs' net mid --------------------------------------


def test_a_net_price_just_outside_the_collar_is_refused() -> None:
    # Mid 1.80; 1000 bps is 0.18 either side.
    assert codes(condor(price="1.98")) == set()
    assert codes(condor(price="1.62")) == set()
    assert codes(condor(price="1.99")) == {"option_price_collar"}
    assert codes(condor(price="1.61")) == {"option_price_collar"}


def test_an_order_whose_direction_nets_the_mid_the_wrong_way_is_outside_the_collar() -> None:
    # The condor's legs are worth a credit: calling it a debit cannot be inside any collar.
    flipped = order(*CONDOR, price="1.80", direction=DEBIT)
    assert "option_price_collar" in codes(flipped)


def test_a_market_order_is_weighed_at_its_far_side_estimate() -> None:
    call = leg(BUY, 450)
    market = order(call, price=None)
    wide = {call.option_id: ("1.00", "1.30")}
    assert "option_price_collar" in codes(market, option_state(quotes=quotes(book=wide)))
    narrow = {call.option_id: ("2.00", "2.10")}
    assert codes(market, option_state(quotes=quotes(book=narrow))) == set()


def test_stage_b_weighs_the_reviewed_premium_of_a_market_order() -> None:
    call = leg(BUY, 450)
    market = order(call, price=None)
    state = option_state(quotes=quotes(book={call.option_id: ("2.00", "2.10")}))
    reviewed = OptionTerms(premium=D("2.60"), fees=D("0.04"))
    decision = decide(market, state, terms=reviewed, stage=Stage.REVIEW)
    assert decision.codes == ("option_price_collar",)


# -- the legs' quotes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("book", "code"),
    [
        (None, "no_quote"),
        ({}, "no_quote"),
        ({"bid": None}, "missing_data:quote.bid_ask"),
        ({"bid": D(0)}, "missing_data:quote.bid_ask"),
        ({"bid": D("1.50"), "ask": D("1.40")}, "crossed_quote"),
        ({"at": None}, "missing_data:quote.as_of"),
        ({"at": NOW - timedelta(seconds=16)}, "stale_quote"),
        ({"at": NOW + timedelta(seconds=16)}, "stale_quote"),
    ],
)
def test_a_leg_without_a_fresh_sound_quote_is_refused(
    book: dict[str, Any] | None, code: str
) -> None:
    books = quotes()
    if book is None:
        state = option_state(quotes=None)
    elif not book:
        state = option_state(quotes={k: v for k, v in books.items() if k != CONDOR[2].option_id})
    else:
        books[CONDOR[2].option_id] = replace(books[CONDOR[2].option_id], **book)
        state = option_state(quotes=books)
    assert codes(state=state) == {code}


def test_a_quote_at_the_age_limit_is_fresh() -> None:
    assert codes(state=option_state(quotes=quotes(age_s=15))) == set()


def test_without_now_the_quotes_and_the_expiry_cannot_be_judged() -> None:
    assert codes(state=option_state(account=account(now=None))) == {"missing_data:now"}


# -- the equity engine's shared checks ---------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"paused": True}, "paused"),
        ({"paused": None}, "missing_data:paused"),
        ({"trading_state": TradingState.HALTED}, "halted"),
        ({"trading_state": TradingState.REDUCING}, "reducing_only"),
        ({"recent": RecentOrders(0, 0, 1)}, "duplicate_order"),
        ({"recent": RecentOrders(5, 0, 0)}, "order_rate"),
        ({"orders_24h": 20}, "max_orders_per_day"),
        ({"unknown_broker_orders": 1}, "unknown_broker_orders"),
        ({"session": MarketSession.AFTER_HOURS}, "outside_session"),
        ({"session": None}, "missing_data:session"),
        ({"equity": D(9000)}, "drawdown_halt"),
        ({"spent_24h": None}, "missing_data:spent_24h"),
    ],
)
def test_the_equity_engines_shared_checks_refuse_option_orders_too(
    changes: dict[str, Any], code: str
) -> None:
    found = codes(state=option_state(account=account(**changes)))
    assert code in found


def test_the_filing_checks_run_at_stage_a_only() -> None:
    state = option_state(account=account(recent=RecentOrders(9, 9, 1)))
    assert codes(state=state, stage=Stage.REVIEW) == set()


def test_a_debit_must_fit_buying_power_and_cash_unless_margin() -> None:
    call = leg(BUY, 450)
    debit = order(call, quantity=4, price="2.05")  # $820
    book = quotes(book={call.option_id: ("2.00", "2.10")})
    roomy = policy(options=options(max_premium_usd=D(1000)))
    short_cash = option_state(quotes=book, account=account(cash=D("819.99")))
    assert codes(debit, short_cash, roomy) == {"insufficient_buying_power"}
    margin = policy(margin=True, options=options(max_premium_usd=D(1000)))
    assert codes(debit, short_cash, margin) == set()
    short_power = option_state(quotes=book, account=account(buying_power=D(800)))
    assert codes(debit, short_power, margin) == {"insufficient_buying_power"}
    reviewed = OptionTerms(premium=D("2.05"), fees=D("0.01"))
    exact = option_state(quotes=book, account=account(cash=D(820)))
    assert codes(debit, exact, roomy, terms=reviewed, stage=Stage.REVIEW) == {
        "insufficient_buying_power"
    }


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"buying_power": None}, "missing_data:buying_power"),
        ({"cash": None}, "missing_data:cash"),
    ],
)
def test_a_debit_without_buying_power_or_cash_is_refused(
    changes: dict[str, Any], code: str
) -> None:
    call = leg(BUY, 450)
    book = quotes(book={call.option_id: ("2.00", "2.10")})
    state = option_state(quotes=book, account=account(**changes))
    assert codes(order(call, price="2.05"), state) == {code}


def test_a_closing_order_passes_a_halt_and_the_caps_as_a_reducing_equity_order_does() -> None:
    held = {one.option_id: HeldOption(one.contract, 1 if one.side is BUY else -1) for one in CONDOR}
    closing = order(
        *(
            replace(one, side=SELL if one.side is BUY else BUY, position_effect=CLOSE)
            for one in CONDOR
        ),
        price="1.80",
        direction=DEBIT,
    )
    halted = option_state(
        account=account(trading_state=TradingState.HALTED, equity=D(1), unknown_broker_orders=2),
        holdings=OptionHoldings(options=held),
        premium_24h=D(10**6),
    )
    decision = decide(closing, halted)
    assert decision.strategy is Strategy.CLOSING
    assert decision.allowed and decision.reduces_position
    strict = policy(reducing_exempt=False)
    assert set(decide(closing, halted, strict).codes) == {
        "option_daily_premium_over_cap",
        "drawdown_halt",
        "daily_loss_halt",
    }


# -- missing data fails closed -----------------------------------------------------------------


def test_short_legs_without_holdings_are_refused_missing_holdings() -> None:
    assert codes(state=option_state(holdings=None)) == {"missing_data:holdings"}
    call = leg(BUY, 450)
    long_only = order(call, price="2.05")
    book = quotes(book={call.option_id: ("2.00", "2.10")})
    assert codes(long_only, option_state(holdings=None, quotes=book)) == set()


def test_without_the_24h_premium_the_daily_cap_refuses() -> None:
    assert codes(state=option_state(premium_24h=None)) == {"missing_data:premium_24h"}


def test_an_unpriced_order_is_refused_missing_premium() -> None:
    call = leg(BUY, 450)
    market = order(call, price=None)
    state = option_state(quotes=quotes(book={call.option_id: ("2.00", "2.10")}))
    unpriced = OptionTerms(premium=None)
    decision = decide(market, state, terms=unpriced, stage=Stage.REVIEW)
    assert decision.codes == ("missing_data:terms.premium",)
    assert decision.max_loss is None and decision.premium_usd is None


# -- approval ----------------------------------------------------------------------------------


def test_approval_weighs_the_max_loss_not_the_premium() -> None:
    above = policy(approval=Approval(ApprovalKind.ABOVE, D(500)))
    decision = decide(config=above)
    assert decision.allowed and decision.requires_approval  # premium $180, max loss $820
    assert not decide(
        config=policy(approval=Approval(ApprovalKind.ABOVE, D(820)))
    ).requires_approval


def test_an_unbounded_order_always_needs_approval() -> None:
    naked = order(leg(SELL, 450), price="2.05")
    state = option_state(quotes=quotes(naked.legs[0]))
    loose = policy(
        options=options(undefined_risk=True), approval=Approval(ApprovalKind.ABOVE, D(10**6))
    )
    decision = decide(naked, state, loose)
    assert decision.allowed and decision.requires_approval and decision.max_loss is None


def test_a_closing_order_needs_approval_on_its_premium() -> None:
    held = leg(BUY, 450)
    closing = order(leg(SELL, 450, effect=CLOSE), price="2.00")
    state = option_state(
        quotes=quotes(book={held.option_id: ("1.95", "2.05")}),
        holdings=OptionHoldings(options={held.option_id: HeldOption(held.contract, 1)}),
    )
    assert decide(
        closing, state, policy(approval=Approval(ApprovalKind.ABOVE, D(199)))
    ).requires_approval
    assert not decide(
        closing, state, policy(approval=Approval(ApprovalKind.ABOVE, D(200)))
    ).requires_approval


def test_every_failing_check_is_reported_once() -> None:
    state = option_state(
        account=account(paused=True, orders_24h=99), premium_24h=D(10**6), holdings=None
    )
    found = decide(condor(quantity=9, price="5.00"), state).codes
    assert len(found) == len(set(found))
    assert found[0] == "paused"
    assert {"option_contracts_over_cap", "option_price_collar", "missing_data:holdings"} <= set(
        found
    )
    assert CALL and CREDIT  # the kit's names used above


@pytest.mark.parametrize(
    ("now", "day"),
    [
        (datetime(2026, 12, 2, 4, 59, tzinfo=UTC), date(2026, 12, 1)),  # EST: 23:59
        (datetime(2026, 12, 2, 5, 0, tzinfo=UTC), date(2026, 12, 2)),
        (datetime(2026, 7, 2, 3, 59, tzinfo=UTC), date(2026, 7, 1)),  # EDT: 23:59
        (datetime(2026, 7, 2, 4, 0, tzinfo=UTC), date(2026, 7, 2)),
        (datetime(2026, 7, 2, 4, 30, tzinfo=timezone(timedelta(hours=2))), date(2026, 7, 1)),
    ],
)
def test_the_market_date_is_new_yorks_either_side_of_midnight(now: datetime, day: date) -> None:
    assert _market_date(now) == day


def test_a_cooldown_refuses_opening_orders_and_lets_closing_ones_out() -> None:
    cooling = policy(cooldown_minutes=30)
    tripped = account(cooldown=Cooldown(NOW - timedelta(minutes=29)))
    assert codes(state=option_state(account=tripped), config=cooling) == {"cooldown"}
    over = account(cooldown=Cooldown(NOW - timedelta(minutes=30)))
    assert codes(state=option_state(account=over), config=cooling) == set()
    assert codes(state=option_state(account=account(cooldown=None)), config=cooling) == {
        "missing_data:cooldown"
    }
    held = leg(BUY, 450)
    closing = order(leg(SELL, 450, effect=CLOSE), price="2.00")
    state = option_state(
        account=tripped,
        quotes=quotes(book={held.option_id: ("1.95", "2.05")}),
        holdings=OptionHoldings(options={held.option_id: HeldOption(held.contract, 1)}),
    )
    assert codes(closing, state, cooling) == set()
