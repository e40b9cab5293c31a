"""Every rule, accepted at its edge and refused just past it, asserted by reason code."""

from __future__ import annotations

from datetime import timedelta

import pytest
from policy_kit import (
    NOW,
    D,
    buy,
    config,
    decide,
    limit_buy,
    msft_state,
    quote,
    reasons,
    sell,
    state,
)

from ordergate.core import MarketHours, OrderType, Side
from ordergate.policy import (
    Cooldown,
    MarketSession,
    OpenOrder,
    Position,
    Proposal,
    ReasonCode,
    RecentOrders,
    Stage,
    Terms,
    TradingState,
)

R = ReasonCode


def test_the_baseline_order_is_allowed_with_no_reasons() -> None:
    decision = decide(buy())
    assert decision.allowed
    assert decision.reasons == ()


def test_a_paused_wall_refuses_every_order_even_a_reducing_one() -> None:
    assert reasons(buy(), state(paused=True)) == {R.PAUSED}
    assert reasons(sell("1"), msft_state(paused=True)) == {R.PAUSED}


def test_halted_refuses_opening_orders_and_lets_reducing_orders_out() -> None:
    assert reasons(buy(), state(trading_state=TradingState.HALTED)) == {R.HALTED}
    assert reasons(sell("2"), msft_state(trading_state=TradingState.HALTED)) == set()


def test_reducing_state_refuses_opening_orders_and_lets_reducing_orders_out() -> None:
    assert reasons(buy(), state(trading_state=TradingState.REDUCING)) == {R.REDUCING_ONLY}
    assert reasons(sell("1"), msft_state(trading_state=TradingState.REDUCING)) == set()


def test_a_denied_symbol_is_refused_even_when_allowed() -> None:
    policy = config(deny=frozenset({"AAPL"}))
    assert reasons(buy(), policy=policy) == {R.SYMBOL_DENIED}
    assert reasons(buy(), policy=config(deny=frozenset({"TSLA"}))) == set()


def test_a_symbol_outside_the_allowlist_is_refused_and_the_wildcard_allows_any_ticker() -> None:
    account = state(quote=quote("TSLA"))
    assert reasons(buy(symbol="TSLA"), account) == {R.SYMBOL_NOT_ALLOWED}
    assert reasons(buy(symbol="TSLA"), account, config(allow_all=True)) == set()
    assert reasons(buy(), policy=config(allow=frozenset())) == {R.SYMBOL_NOT_ALLOWED}


def test_a_lowercase_symbol_is_the_same_ticker() -> None:
    assert reasons(buy(symbol="aapl")) == set()


def test_a_look_alike_symbol_is_refused_at_evaluation_even_under_the_wildcard() -> None:
    cyrillic_a = "\u0410APL"  # "АAPL": Cyrillic capital A
    proposal = buy(symbol=cyrillic_a)
    assert proposal.symbol == cyrillic_a
    found = reasons(proposal, state(quote=quote(cyrillic_a)), config(allow_all=True))
    assert found == {R.SYMBOL_MALFORMED, R.SYMBOL_NOT_ALLOWED}


def test_an_order_type_the_policy_does_not_list_is_refused() -> None:
    stop = Proposal(
        "AAPL", Side.SELL, quantity=D(1), order_type=OrderType.STOP_MARKET, stop_price=D(90)
    )
    held = state(positions={"AAPL": Position(D(1), D(100))})
    assert reasons(stop, held) == {R.ORDER_TYPE_NOT_ALLOWED}
    types = frozenset({OrderType.MARKET, OrderType.STOP_MARKET})
    assert reasons(stop, held, config(order_types=types)) == set()


def test_market_hours_the_policy_does_not_list_are_refused() -> None:
    extended = buy(market_hours=MarketHours.EXTENDED_HOURS)
    assert reasons(extended) == {R.SESSION_NOT_ALLOWED}
    policy = config(sessions=frozenset({MarketHours.EXTENDED_HOURS}))
    assert reasons(extended, policy=policy) == set()


def test_an_order_outside_the_current_session_is_refused() -> None:
    assert reasons(buy(), state(session=MarketSession.PRE_MARKET)) == {R.OUTSIDE_SESSION}
    assert reasons(buy(), state(session=MarketSession.CLOSED)) == {R.OUTSIDE_SESSION}
    extended = buy(market_hours=MarketHours.EXTENDED_HOURS)
    policy = config(sessions=frozenset({MarketHours.EXTENDED_HOURS}))
    assert reasons(extended, state(session=MarketSession.PRE_MARKET), policy) == set()
    overnight = state(session=MarketSession.OVERNIGHT)
    assert reasons(extended, overnight, policy) == {R.OUTSIDE_SESSION}


def test_a_symbol_not_tradable_for_the_account_is_refused() -> None:
    assert reasons(buy(), state(tradable=False)) == {R.NOT_TRADABLE}


def test_fractional_and_dollar_orders_need_the_fractional_setting() -> None:
    whole = config(fractional=False, max_order_usd=D(200))
    assert reasons(buy("50"), policy=whole) == {R.FRACTIONAL_NOT_ALLOWED}
    assert reasons(buy(quantity="0.5"), policy=whole) == {R.FRACTIONAL_NOT_ALLOWED}
    assert reasons(buy(quantity="1"), policy=whole) == set()


def test_a_fractional_order_under_one_dollar_is_refused() -> None:
    assert reasons(buy("0.99")) == {R.FRACTIONAL_MINIMUM}
    assert reasons(buy("1")) == set()
    assert reasons(buy(quantity="0.005")) == {R.FRACTIONAL_MINIMUM}


def test_selling_more_than_held_less_pending_sells_is_a_short_and_refused() -> None:
    assert reasons(sell("3"), msft_state()) >= {R.SHORT_SELL}
    pending = (OpenOrder("MSFT", Side.SELL, D(1)),)
    assert R.SHORT_SELL in reasons(sell("2"), msft_state(open_orders=pending))
    assert reasons(sell("1"), msft_state(open_orders=pending)) == set()
    unheld = state(quote=quote("SPY"))
    assert R.SHORT_SELL in reasons(sell("1", symbol="SPY"), unheld)


def test_short_sells_pass_the_short_rule_when_the_policy_allows_them() -> None:
    found = reasons(sell("3"), msft_state(), config(short=True))
    assert R.SHORT_SELL not in found


def test_no_quote_is_refused() -> None:
    assert R.NO_QUOTE in reasons(buy(), state(quote=None))


def test_a_quote_for_another_symbol_is_refused() -> None:
    assert reasons(buy(), state(quote=quote("MSFT"))) == {R.QUOTE_SYMBOL_MISMATCH}


def test_a_quote_older_than_the_maximum_age_is_stale() -> None:
    assert reasons(buy(), state(quote=quote(age_s=15))) == set()
    assert reasons(buy(), state(quote=quote(age_s=16))) == {R.STALE_QUOTE}


def test_a_quote_stamped_in_the_future_is_stale() -> None:
    assert reasons(buy(), state(quote=quote(age_s=-16))) == {R.STALE_QUOTE}


def test_a_spread_wider_than_the_limit_is_refused() -> None:
    # 50 bps of a 100.25 mid is 0.50125: 0.50 passes, 0.51 does not.
    assert reasons(buy(), state(quote=quote(bid="100.00", ask="100.50"))) == set()
    assert reasons(buy(), state(quote=quote(bid="100.00", ask="100.51"))) == {R.SPREAD_TOO_WIDE}


def test_a_crossed_quote_is_refused() -> None:
    assert reasons(buy(), state(quote=quote(bid="100.05", ask="100.00"))) == {R.CROSSED_QUOTE}


def test_a_limit_price_beyond_the_collar_from_the_mid_is_refused() -> None:
    # Mid 100.01; 300 bps is 3.0003.
    assert reasons(limit_buy("0.1", "103.01")) == set()
    assert reasons(limit_buy("0.1", "103.02")) == {R.PRICE_COLLAR}
    assert reasons(limit_buy("0.1", "96.99")) == {R.PRICE_COLLAR}


def test_a_market_orders_estimate_beyond_the_collar_is_refused() -> None:
    terms = Terms(price=D("104"), notional=D("52"), quantity=D("0.5"))
    assert reasons(buy(), terms=terms) == {R.PRICE_COLLAR}


def test_the_collar_uses_the_last_price_when_there_is_no_bid_or_ask() -> None:
    last_only = state(quote=quote(bid=None, ask=None, last="100.00"))
    found = reasons(limit_buy("0.1", "103.00"), last_only)
    assert found == {R.MISSING_BID_ASK}
    assert R.PRICE_COLLAR in reasons(limit_buy("0.1", "103.01"), last_only)


def test_the_rolling_op_cap_refuses_the_order_past_it() -> None:
    assert reasons(buy(), state(orders_24h=19)) == set()
    assert reasons(buy(), state(orders_24h=20)) == {R.MAX_ORDERS_PER_DAY}


def test_open_orders_ours_and_the_brokers_count_against_the_cap() -> None:
    four = tuple(OpenOrder("SPY", Side.BUY, D(1)) for _ in range(4))
    assert reasons(buy(), state(open_orders=four)) == set()
    found = reasons(buy(), state(open_orders=(*four, OpenOrder("SPY", Side.BUY, D(1)))))
    assert found == {R.MAX_OPEN_ORDERS}


def test_a_buy_beyond_cash_is_refused_without_margin_and_allowed_with_it() -> None:
    account = state(cash=D(40), buying_power=D(1000))
    assert R.INSUFFICIENT_BUYING_POWER in reasons(buy("50"), account)
    assert R.INSUFFICIENT_BUYING_POWER not in reasons(buy("50"), account, config(margin=True))
    assert R.INSUFFICIENT_BUYING_POWER in reasons(buy("50"), state(buying_power=D(49)))


def test_fees_count_against_buying_power() -> None:
    terms = Terms(price=D("100.02"), notional=D(50), quantity=D("0.5"), fees=D("0.01"))
    assert reasons(buy(), state(buying_power=D(50)), terms=terms) == {R.INSUFFICIENT_BUYING_POWER}


def test_the_per_order_cap_allows_exactly_the_cap_and_refuses_a_cent_over() -> None:
    assert reasons(buy("100")) == set()
    assert reasons(buy("100.01")) == {R.MAX_ORDER_USD}


def test_the_rolling_daily_cap_counts_what_was_already_spent() -> None:
    assert reasons(buy("50"), state(spent_24h=D(450))) == set()
    assert reasons(buy("50"), state(spent_24h=D("450.01"))) == {R.MAX_DAILY_USD}


def test_a_position_over_its_share_of_equity_after_the_order_is_refused() -> None:
    held = state(positions={"AAPL": Position(D(19), D(1950))})
    assert reasons(buy("50"), held) == set()  # 2000 / 10000 = 20 %
    assert reasons(buy("50.01"), held) == {R.MAX_POSITION_PCT}


def test_no_position_fits_when_equity_after_the_order_is_not_positive() -> None:
    terms = Terms(price=D("100.02"), notional=D(5), quantity=D("0.05"), fees=D(0))
    assert R.MAX_POSITION_PCT in reasons(buy("5"), state(equity=D(0)), terms=terms)


def test_a_buy_leaving_less_than_the_minimum_cash_is_refused() -> None:
    policy = config(min_cash_usd=D(4950))
    assert reasons(buy("50"), policy=policy) == set()
    assert reasons(buy("50.01"), policy=policy) == {R.MIN_CASH}


def test_a_new_position_past_the_maximum_count_is_refused_but_adding_to_one_is_not() -> None:
    policy = config(max_positions=1)
    assert reasons(buy(), policy=policy) == {R.MAX_POSITIONS}
    msft = buy(symbol="MSFT")
    assert reasons(msft, msft_state(), policy) == set()
    flat = state(positions={"MSFT": Position(D(0), D(0))})
    assert reasons(buy(), flat, policy) == set()


def test_drawdown_at_the_limit_below_the_high_water_mark_halts_opening_orders() -> None:
    assert reasons(buy(), state(high_water_mark=D("11111"))) == set()  # 999.9 bps
    assert reasons(buy(), state(high_water_mark=D("11112"))) == {R.DRAWDOWN_HALT}
    assert reasons(buy(), state(high_water_mark=D(0))) == {R.DRAWDOWN_HALT}


def test_a_daily_loss_at_the_limit_halts_opening_orders() -> None:
    assert reasons(buy(), state(session_start_equity=D("10249.99"))) == set()
    assert reasons(buy(), state(session_start_equity=D(10250))) == {R.DAILY_LOSS_HALT}


def test_unknown_orders_at_the_broker_halt_opening_orders_but_not_reducing_ones() -> None:
    assert reasons(buy(), state(unknown_broker_orders=1)) == {R.UNKNOWN_BROKER_ORDERS}
    assert reasons(sell("1"), msft_state(unknown_broker_orders=1)) == set()


def test_approval_follows_the_policy_for_allowed_orders_only() -> None:
    from ordergate.policy import Approval, ApprovalKind

    above = config(approval=Approval(ApprovalKind.ABOVE, D(50)))
    assert not decide(buy("50"), policy=above).requires_approval
    assert decide(buy("50.01"), policy=above).requires_approval
    assert decide(buy(), policy=config(approval=Approval(ApprovalKind.ALWAYS))).requires_approval
    assert not decide(buy(), policy=config()).requires_approval
    refused = decide(buy("500"), policy=config(approval=Approval(ApprovalKind.ALWAYS)))
    assert not refused.allowed and not refused.requires_approval


def test_time_passing_makes_a_quote_stale() -> None:
    later = state(now=NOW + timedelta(seconds=20))
    assert reasons(buy(), later) == {R.STALE_QUOTE}


def _recent(identity: int = 0, account: int = 0, duplicates: int = 0) -> RecentOrders:
    return RecentOrders(identity_minute=identity, account_minute=account, duplicates=duplicates)


@pytest.mark.req("policy.duplicate-order")
def test_an_order_with_the_terms_of_one_accepted_inside_the_window_is_a_duplicate() -> None:
    assert reasons(buy(), state(recent=_recent(duplicates=1))) == {R.DUPLICATE_ORDER}
    assert reasons(sell("1"), msft_state(recent=_recent(duplicates=1))) == {R.DUPLICATE_ORDER}
    assert reasons(buy(), state(recent=_recent(duplicates=0))) == set()
    # A window of 0 turns the check off.
    off = config(duplicate_window_s=0)
    assert reasons(buy(), state(recent=_recent(duplicates=3)), off) == set()


@pytest.mark.req("policy.order-rate")
def test_the_order_rate_refuses_at_the_identitys_and_the_accounts_limit_and_not_below() -> None:
    policy = config(max_orders_per_minute=5, max_account_orders_per_minute=10)
    assert reasons(buy(), state(recent=_recent(identity=4, account=9)), policy) == set()
    assert reasons(buy(), state(recent=_recent(identity=5)), policy) == {R.ORDER_RATE}
    assert reasons(buy(), state(recent=_recent(account=10)), policy) == {R.ORDER_RATE}
    assert reasons(sell("1"), msft_state(recent=_recent(identity=5)), policy) == {R.ORDER_RATE}


@pytest.mark.req("policy.fail-closed-missing-data")
def test_unknown_recent_orders_refuse_at_stage_a_and_stage_b_does_not_count_them() -> None:
    assert reasons(buy(), state(recent=None)) == {R.MISSING_RECENT_ORDERS}
    busy = state(recent=_recent(identity=9, account=99, duplicates=1))
    # Stage B reviews a filing already made: the filing is not judged again.
    assert decide(buy(), busy, stage=Stage.REVIEW).reasons == ()
    assert decide(buy(), state(recent=None), stage=Stage.REVIEW).reasons == ()


def test_size_vs_adv_refuses_a_quantity_one_share_past_its_percent_of_the_average_volume() -> None:
    # 0.5 % of 2 000 shares a day is 10 shares.
    policy = config(max_adv_pct=D("0.5"), max_order_usd=D(2000), max_daily_usd=D(2000))
    liquid = state(average_daily_volume=D(2000))
    assert reasons(limit_buy("10", "100.00"), liquid, policy) == set()
    assert reasons(limit_buy("11", "100.00"), liquid, policy) == {R.SIZE_VS_ADV}
    assert reasons(limit_buy("10.000001", "100.00"), liquid, policy) == {R.SIZE_VS_ADV}


def test_size_vs_adv_weighs_a_dollar_orders_estimated_quantity_on_both_stages() -> None:
    policy = config(max_adv_pct=D("0.5"))
    liquid = state(average_daily_volume=D(2000))
    for stage in (Stage.ESTIMATE, Stage.REVIEW):
        at_cap = Terms(price=D("100.02"), notional=D("50"), quantity=D("10"))
        assert decide(buy("50"), liquid, policy, at_cap, stage).allowed
        over = Terms(price=D("100.02"), notional=D("50"), quantity=D("10.01"))
        refused = decide(buy("50"), liquid, policy, over, stage)
        assert refused.reasons == (R.SIZE_VS_ADV,)


def test_size_vs_adv_without_a_volume_refuses_and_off_reads_none() -> None:
    policy = config(max_adv_pct=D("0.5"))
    assert reasons(limit_buy("1", "100.00"), state(), policy) == {R.MISSING_ADV}
    assert reasons(limit_buy("1", "100.00"), state(average_daily_volume=D(0)), policy) == {
        R.SIZE_VS_ADV
    }
    assert R.SIZE_VS_ADV not in reasons(limit_buy("1000", "100.00"))  # off by default
    unknown_quantity = Terms(price=None, notional=D("50"), quantity=None)
    assert R.MISSING_QUANTITY in reasons(
        buy("50"), state(average_daily_volume=D(9)), policy, unknown_quantity
    )


def test_a_buy_inside_the_cooldown_after_a_breaker_is_refused_until_the_second_it_ends() -> None:
    policy = config(cooldown_minutes=30)
    tripped = Cooldown(NOW - timedelta(minutes=30) + timedelta(seconds=1))
    assert reasons(buy(), state(cooldown=tripped), policy) == {R.COOLDOWN}
    ended = Cooldown(NOW - timedelta(minutes=30))
    assert reasons(buy(), state(cooldown=ended), policy) == set()
    # Sells are never refused it; no trip, or the cooldown off, refuses nothing.
    assert R.COOLDOWN not in reasons(sell(), msft_state(cooldown=tripped), policy)
    assert reasons(buy(), state(cooldown=Cooldown(None)), policy) == set()
    assert reasons(buy(), state(cooldown=tripped)) == set()


def test_the_cooldown_without_its_record_refuses_buys_on_both_stages() -> None:
    policy = config(cooldown_minutes=30)
    for stage in (Stage.ESTIMATE, Stage.REVIEW):
        terms = Terms(price=D("100.02"), notional=D("50"), quantity=D("0.5"))
        refused = decide(buy(), state(), policy, terms, stage)
        assert refused.reasons == (R.MISSING_COOLDOWN,)
    no_clock = state(now=None, cooldown=Cooldown(NOW))
    assert R.MISSING_NOW in reasons(buy(), no_clock, policy)


def test_a_streak_of_losses_inside_the_window_starts_a_cooldown_to_the_second() -> None:
    policy = config(cooldown_minutes=30, loss_streak=2, loss_window_minutes=60)
    last = NOW - timedelta(minutes=10)

    def cooling(*losses: timedelta) -> set[ReasonCode]:
        return reasons(
            buy(), state(cooldown=Cooldown(None, tuple(last - d for d in losses))), policy
        )

    # Two losses sixty minutes apart make a streak; sixty and a second do not.
    assert cooling(timedelta(minutes=60), timedelta(0)) == {R.COOLDOWN}
    assert cooling(timedelta(minutes=60, seconds=1), timedelta(0)) == set()
    assert cooling(timedelta(0)) == set()  # one loss is no streak
    # The cooldown runs thirty minutes from the loss that made the streak, to the second.
    ended = Cooldown(None, (NOW - timedelta(minutes=31), NOW - timedelta(minutes=30)))
    assert reasons(buy(), state(cooldown=ended), policy) == set()
    running = Cooldown(None, (NOW - timedelta(minutes=31), NOW - timedelta(minutes=29, seconds=59)))
    assert reasons(buy(), state(cooldown=running), policy) == {R.COOLDOWN}
    assert R.COOLDOWN not in reasons(sell(), msft_state(cooldown=running), policy)
