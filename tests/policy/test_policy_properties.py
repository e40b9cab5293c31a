"""Properties of the engine over generated orders, accounts and policies (hypothesis)."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from policy_kit import NOW

from ordergate.core import MarketHours, OrderType, Side
from ordergate.policy import (
    AccountState,
    Approval,
    ApprovalKind,
    MarketSession,
    OpenOrder,
    PolicyConfig,
    Position,
    Proposal,
    Quote,
    ReasonCode,
    RecentOrders,
    Stage,
    Terms,
    TradingState,
    estimate_terms,
    evaluate,
)

R = ReasonCode
SYMBOLS = ["AAPL", "MSFT", "SPY", "TSLA", "BRK.B", "\u0410APL"]


def money(low: str = "0.01", high: str = "20000") -> st.SearchStrategy[Decimal]:
    return st.decimals(Decimal(low), Decimal(high), places=2)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # Mostly present, so the interesting checks run; sometimes missing.
    return st.one_of(strategy, strategy, strategy, st.none())


@st.composite
def proposals(draw: st.DrawFn) -> Proposal:
    symbol = draw(st.sampled_from(SYMBOLS))
    side = draw(st.sampled_from(Side))
    by_dollars = draw(st.booleans())
    quantity = None if by_dollars else draw(st.decimals(Decimal("0.001"), Decimal(50), places=3))
    notional = draw(money("0.5", "600")) if by_dollars else None
    order_type = draw(st.sampled_from([OrderType.MARKET, OrderType.LIMIT]))
    limit = draw(money("50", "150")) if order_type is OrderType.LIMIT else None
    hours = draw(st.sampled_from(MarketHours))
    return Proposal(symbol, side, quantity, notional, order_type, limit, market_hours=hours)


@st.composite
def quotes(draw: st.DrawFn) -> Quote:
    bid = draw(maybe(money("90", "110")))
    spread = draw(money("0", "2"))
    ask = None if bid is None else bid + spread
    age = draw(st.integers(-30, 60))
    return Quote(
        draw(st.sampled_from(SYMBOLS)),
        bid,
        draw(maybe(st.just(ask))),
        draw(maybe(money("90", "110"))),
        draw(maybe(st.just(NOW - timedelta(seconds=age)))),
    )


@st.composite
def states(draw: st.DrawFn) -> AccountState:
    positions = {
        symbol: Position(quantity, quantity * Decimal(100))
        for symbol, quantity in draw(
            st.dictionaries(
                st.sampled_from(SYMBOLS), st.decimals(Decimal(-5), Decimal(20), places=2)
            )
        ).items()
    }
    open_orders = tuple(
        OpenOrder(symbol, side, quantity)
        for symbol, side, quantity in draw(
            st.lists(
                st.tuples(
                    st.sampled_from(SYMBOLS),
                    st.sampled_from(Side),
                    st.decimals(Decimal("0.01"), Decimal(5), places=2),
                ),
                max_size=6,
            )
        )
    )
    return AccountState(
        now=draw(maybe(st.just(NOW))),
        equity=draw(maybe(money("-100", "20000"))),
        high_water_mark=draw(maybe(money("0", "25000"))),
        session_start_equity=draw(maybe(money("0", "25000"))),
        cash=draw(maybe(money("0", "10000"))),
        buying_power=draw(maybe(money("0", "20000"))),
        positions=draw(maybe(st.just(positions))),
        open_orders=draw(maybe(st.just(open_orders))),
        unknown_broker_orders=draw(maybe(st.sampled_from([0, 0, 0, 1, 3]))),
        spent_24h=draw(maybe(money("0", "800"))),
        orders_24h=draw(maybe(st.integers(0, 30))),
        trading_state=draw(maybe(st.sampled_from(TradingState))),
        paused=draw(maybe(st.sampled_from([False, False, False, True]))),
        session=draw(maybe(st.sampled_from(MarketSession))),
        quote=draw(maybe(quotes())),
        tradable=draw(maybe(st.sampled_from([True, True, False]))),
        recent=draw(maybe(recents())),
    )


def recents() -> st.SearchStrategy[RecentOrders]:
    """Mostly quiet recent orders, sometimes at or past the default rates, or a duplicate."""
    return st.builds(
        RecentOrders,
        identity_minute=st.sampled_from([0] * 6 + [1, 4, 5, 6]),
        account_minute=st.sampled_from([0] * 6 + [2, 9, 10, 11]),
        duplicates=st.sampled_from([0] * 8 + [1, 2]),
    )


@st.composite
def configs(draw: st.DrawFn) -> PolicyConfig:
    return PolicyConfig(
        approval=draw(
            st.sampled_from(
                [
                    Approval(ApprovalKind.ALWAYS),
                    Approval(ApprovalKind.NEVER),
                    Approval(ApprovalKind.ABOVE, Decimal(100)),
                ]
            )
        ),
        max_order_usd=draw(money("1", "1000")),
        max_daily_usd=draw(money("1", "3000")),
        max_orders_per_day=draw(st.integers(1, 40)),
        max_open_orders=draw(st.integers(1, 10)),
        max_position_pct=draw(money("1", "100")),
        min_cash_usd=draw(money("0", "2000")),
        drawdown_halt_bps=draw(st.integers(1, 10_000)),
        max_quote_age_s=draw(st.integers(1, 60)),
        max_spread_bps=draw(st.integers(1, 500)),
        price_collar_bps=draw(st.integers(1, 3000)),
        daily_loss_halt_usd=draw(money("1", "1000")),
        max_positions=draw(st.integers(1, 10)),
        duplicate_window_s=draw(st.sampled_from([0, 1, 30, 600])),
        max_orders_per_minute=draw(st.integers(1, 8)),
        max_account_orders_per_minute=draw(st.integers(1, 12)),
        allow=frozenset(draw(st.sets(st.sampled_from(SYMBOLS[:5])))),
        allow_all=draw(st.booleans()),
        deny=frozenset(draw(st.sets(st.sampled_from(SYMBOLS[:5]), max_size=2))),
        order_types=frozenset(draw(st.sets(st.sampled_from(OrderType), min_size=1))),
        sessions=frozenset(draw(st.sets(st.sampled_from(MarketHours), min_size=1))),
        fractional=draw(st.booleans()),
        short=draw(st.booleans()),
        margin=draw(st.booleans()),
        reducing_exempt=draw(st.booleans()),
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[Proposal, Terms, AccountState, PolicyConfig]:
    proposal = draw(proposals())
    account = draw(states())
    estimated = estimate_terms(proposal, account.quote)
    reviewed = Terms(
        draw(maybe(money("80", "120"))),
        draw(maybe(money("0.5", "800"))),
        draw(maybe(st.decimals(Decimal("0.01"), Decimal(20), places=2))),
        draw(money("0", "1")),
    )
    terms = draw(st.sampled_from([estimated, reviewed]))
    return proposal, terms, account, draw(configs())


@st.composite
def near_cases(draw: st.DrawFn) -> tuple[Proposal, Terms, AccountState, PolicyConfig]:
    """A healthy account and a workable policy with a few figures moved: about half allowed."""
    symbol = draw(st.sampled_from(["AAPL", "MSFT"]))
    side = draw(st.sampled_from(Side))
    if draw(st.booleans()):
        proposal = Proposal(symbol, side, notional=draw(money("0.5", "150")))
    else:
        proposal = Proposal(
            symbol,
            side,
            quantity=draw(
                st.sampled_from(
                    [Decimal("0.1"), Decimal("0.5"), Decimal(1), Decimal(2), Decimal(3)]
                )
            ),
        )
    mid = draw(money("95", "105"))
    half_spread = draw(st.sampled_from([Decimal("0.01")] * 4 + [Decimal("0.05"), Decimal("0.4")]))
    held = {
        name: draw(st.sampled_from([Decimal(0), Decimal(1), Decimal(2), Decimal(5)]))
        for name in ("AAPL", "MSFT")
    }
    equity = draw(money("10000", "20000"))
    account = AccountState(
        now=NOW,
        equity=equity,
        high_water_mark=equity + draw(money("0", "1200")),
        session_start_equity=equity + draw(money("-500", "300")),
        cash=draw(money("0", "3000")),
        buying_power=draw(money("0", "8000")),
        positions={name: Position(q, q * mid) for name, q in held.items()},
        open_orders=tuple(
            OpenOrder(symbol, Side.SELL, Decimal(1)) for _ in range(draw(st.integers(0, 2)))
        ),
        unknown_broker_orders=draw(st.sampled_from([0] * 9 + [1])),
        spent_24h=draw(money("0", "600")),
        orders_24h=draw(st.integers(0, 21)),
        trading_state=draw(st.sampled_from([TradingState.ACTIVE] * 8 + list(TradingState))),
        paused=draw(st.sampled_from([False] * 9 + [True])),
        session=draw(st.sampled_from([MarketSession.REGULAR] * 9 + [MarketSession.CLOSED])),
        quote=Quote(
            symbol,
            mid - half_spread,
            mid + half_spread,
            mid,
            NOW - timedelta(seconds=draw(st.integers(0, 16))),
        ),
        tradable=draw(st.sampled_from([True] * 9 + [False])),
        recent=draw(recents()),
    )
    estimated = estimate_terms(proposal, account.quote)
    if draw(st.booleans()) and estimated.price is not None and estimated.quantity is not None:
        price = estimated.price + draw(money("-3", "3"))
        terms = Terms(price, price * estimated.quantity, estimated.quantity, draw(money("0", "1")))
    else:
        terms = estimated
    policy = PolicyConfig(
        approval=Approval(ApprovalKind.ABOVE, Decimal(100)),
        max_order_usd=draw(money("50", "400")),
        max_daily_usd=draw(money("200", "1000")),
        max_position_pct=draw(money("5", "50")),
        min_cash_usd=draw(money("0", "100")),
        allow=frozenset({"AAPL", "MSFT"}),
        short=draw(st.booleans()),
        margin=draw(st.booleans()),
        reducing_exempt=draw(st.sampled_from([True, True, False])),
    )
    return proposal, terms, account, policy


def any_case() -> st.SearchStrategy[tuple[Proposal, Terms, AccountState, PolicyConfig]]:
    return st.one_of(cases(), near_cases(), near_cases())


@st.composite
def tighter(draw: st.DrawFn, policy: PolicyConfig) -> PolicyConfig:
    """The same policy with some restrictions made stricter, none loosened."""

    def shrink(value: Decimal) -> Decimal:
        return max(Decimal("0.01"), value - draw(money("0", "500")))

    def fewer(value: int) -> int:
        return max(1, value - draw(st.integers(0, 5)))

    return replace(
        policy,
        max_order_usd=shrink(policy.max_order_usd),
        max_daily_usd=shrink(policy.max_daily_usd),
        max_orders_per_day=fewer(policy.max_orders_per_day),
        max_open_orders=fewer(policy.max_open_orders),
        max_position_pct=max(Decimal("0.01"), policy.max_position_pct - draw(money("0", "50"))),
        min_cash_usd=policy.min_cash_usd + draw(money("0", "500")),
        drawdown_halt_bps=fewer(policy.drawdown_halt_bps),
        max_quote_age_s=fewer(policy.max_quote_age_s),
        max_spread_bps=fewer(policy.max_spread_bps),
        price_collar_bps=fewer(policy.price_collar_bps),
        daily_loss_halt_usd=shrink(policy.daily_loss_halt_usd),
        max_positions=fewer(policy.max_positions),
        # A longer duplicate window (one turned off may be turned on) and lower rates.
        duplicate_window_s=(policy.duplicate_window_s or draw(st.sampled_from([0, 1])))
        + draw(st.integers(0, 60)),
        max_orders_per_minute=fewer(policy.max_orders_per_minute),
        max_account_orders_per_minute=fewer(policy.max_account_orders_per_minute),
        allow=frozenset(s for s in policy.allow if draw(st.booleans())),
        allow_all=policy.allow_all and draw(st.booleans()),
        deny=policy.deny | frozenset(draw(st.sets(st.sampled_from(SYMBOLS[:5]), max_size=1))),
        fractional=policy.fractional and draw(st.booleans()),
        short=policy.short and draw(st.booleans()),
        margin=policy.margin and draw(st.booleans()),
        reducing_exempt=policy.reducing_exempt and draw(st.booleans()),
    )


Case = tuple[Proposal, Terms, AccountState, PolicyConfig]
SPEND_AND_BREAKERS = {
    R.MAX_ORDER_USD,
    R.MAX_DAILY_USD,
    R.MAX_POSITION_PCT,
    R.MIN_CASH,
    R.MAX_POSITIONS,
    R.DRAWDOWN_HALT,
    R.DAILY_LOSS_HALT,
    R.HALTED,
    R.REDUCING_ONLY,
    R.UNKNOWN_BROKER_ORDERS,
}


@pytest.mark.req("policy.evaluate-deterministic")
@settings(max_examples=300)
@given(any_case(), st.sampled_from(Stage))
def test_evaluate_is_deterministic_and_leaves_its_inputs_alone(case: Case, stage: Stage) -> None:
    proposal, terms, account, policy = case
    before = copy.deepcopy(case)
    first = evaluate(proposal, terms, account, policy, stage)
    assert evaluate(*copy.deepcopy(case), stage) == first
    assert (proposal, terms, account, policy) == before
    assert first.allowed == (first.reasons == ())
    assert len(set(first.reasons)) == len(first.reasons)
    assert first.stage is stage
    assert not first.requires_approval or first.allowed


@pytest.mark.req("policy.restriction-monotone")
@settings(max_examples=300)
@given(st.data())
def test_a_stricter_policy_never_turns_a_refusal_into_an_acceptance(data: st.DataObject) -> None:
    proposal, terms, account, policy = data.draw(any_case())
    stricter = data.draw(tighter(policy))
    loose = evaluate(proposal, terms, account, policy, Stage.REVIEW)
    tight = evaluate(proposal, terms, account, stricter, Stage.REVIEW)
    assert set(loose.reasons) <= set(tight.reasons)
    assert loose.allowed or not tight.allowed


@pytest.mark.req("policy.reducing-orders-exempt")
@settings(max_examples=300)
@given(any_case())
def test_reducing_orders_are_never_blocked_by_spend_caps_or_breakers(case: Case) -> None:
    proposal, terms, account, policy = case
    policy = replace(policy, reducing_exempt=True)
    decision = evaluate(proposal, terms, account, policy, Stage.ESTIMATE)
    if decision.reduces_position:
        assert not set(decision.reasons) & SPEND_AND_BREAKERS


@pytest.mark.req("policy.caps-never-exceeded")
@settings(max_examples=500)
@given(any_case())
def test_an_allowed_opening_order_fits_every_cap(case: Case) -> None:
    proposal, terms, account, policy = case
    decision = evaluate(proposal, terms, account, policy, Stage.REVIEW)
    if not decision.allowed:
        return
    assert account.paused is False
    assert terms.notional is not None
    assert account.quote is not None and account.quote.symbol == proposal.symbol
    if not decision.reduces_position:
        assert terms.notional <= policy.max_order_usd
        assert account.spent_24h is not None
        assert account.spent_24h + terms.notional <= policy.max_daily_usd
        assert account.trading_state is TradingState.ACTIVE
        assert account.unknown_broker_orders == 0


@pytest.mark.req("policy.fail-closed-missing-data")
@settings(max_examples=300)
@given(any_case())
def test_a_paused_or_quoteless_account_is_never_allowed(case: Case) -> None:
    proposal, terms, account, policy = case
    for frozen in (replace(account, paused=True), replace(account, quote=None)):
        assert not evaluate(proposal, terms, frozen, policy, Stage.REVIEW).allowed
