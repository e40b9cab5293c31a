"""Every refusal that counts or weighs something names its numbers, at its boundary, at either
stage: one order, one cent, one second or one basis point either side of the policy's limit,
the decision is the policy's own (``evaluate``) and the sentence (``refusal_figures``) gives
what the check weighed and the key with its value."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import Side
from ordergate.execution._figures import refusal_figures
from ordergate.policy import (
    AccountState,
    MarketSession,
    OpenOrder,
    PolicyConfig,
    Position,
    Proposal,
    Quote,
    RecentOrders,
    Stage,
    TradingState,
    estimate_terms,
    evaluate,
    parse_policy,
)

D = Decimal
NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
STAGES = pytest.mark.parametrize("stage", [Stage.ESTIMATE, Stage.REVIEW], ids=["A", "B"])

POLICY = parse_policy(
    """
approval = "never"
[limits]
max_order_usd = "5000"
max_daily_usd = "20000"
max_orders_per_day = 20
max_open_orders = 3
max_positions = 2
max_position_pct = "100"
drawdown_halt_bps = 1000
daily_loss_halt_usd = "250"
max_quote_age_s = 15
max_spread_bps = 50
price_collar_bps = 1000
[symbols]
allow = ["*"]
"""
)


def _quote(bid: str = "100.00", ask: str = "100.02", age: timedelta = timedelta(0)) -> Quote:
    return Quote("AAPL", D(bid), D(ask), D(bid), NOW - age)


def _state(**changes: Any) -> AccountState:
    base = AccountState(
        now=NOW,
        equity=D(10000),
        high_water_mark=D(10000),
        session_start_equity=D(10000),
        cash=D(9000),
        buying_power=D(9000),
        positions={},
        open_orders=(),
        unknown_broker_orders=0,
        spent_24h=D(0),
        orders_24h=0,
        trading_state=TradingState.ACTIVE,
        paused=False,
        session=MarketSession.REGULAR,
        quote=_quote(),
        tradable=True,
        recent=RecentOrders(0, 0, 0),
    )
    return replace(base, **changes)


_BUY = Proposal("AAPL", Side.BUY, quantity=D(1))


def _decided(
    state: AccountState, stage: Stage, policy: PolicyConfig = POLICY
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The codes ``evaluate`` refuses a one-share AAPL buy with at ``stage``, and the
    figures that refusal names."""
    terms = estimate_terms(_BUY, state.quote)
    codes = tuple(evaluate(_BUY, terms, state, policy, stage).codes)
    return codes, refusal_figures(codes, state, _BUY.quantity, policy, terms)


def _open(count: int) -> tuple[OpenOrder, ...]:
    return tuple(OpenOrder("MSFT", Side.BUY, D(1)) for _ in range(count))


@STAGES
def test_max_open_orders_names_the_open_count_and_the_cap_one_order_either_side(
    stage: Stage,
) -> None:
    under, _ = _decided(_state(open_orders=_open(1), unknown_broker_orders=1), stage)
    assert "max_open_orders" not in under
    at = _state(open_orders=_open(2), unknown_broker_orders=1)
    codes, figures = _decided(at, stage)
    assert "max_open_orders" in codes
    assert (
        "max_open_orders: 3 open orders (2 filed here, 1 at the broker not filed here) "
        "(limits.max_open_orders = 3); cancel one or wait for one to fill."
    ) in figures


@STAGES
def test_max_positions_names_the_positions_held_and_that_this_order_opens_another(
    stage: Stage,
) -> None:
    one = {"MSFT": Position(D(1), D(400))}
    two = {**one, "SPY": Position(D(1), D(600))}
    assert "max_positions" not in _decided(_state(positions=one), stage)[0]
    codes, figures = _decided(_state(positions=two), stage)
    assert "max_positions" in codes
    assert (
        "max_positions: 2 positions held, and this order opens another "
        "(limits.max_positions = 2); add to a held position or close one first."
    ) in figures
    # Adding to a held position opens none, whatever the count.
    held = {**two, "AAPL": Position(D(1), D(100))}
    assert "max_positions" not in _decided(_state(positions=held), stage)[0]


@STAGES
def test_max_orders_per_day_names_the_rolling_day_count_and_the_cap_one_order_either_side(
    stage: Stage,
) -> None:
    assert "max_orders_per_day" not in _decided(_state(orders_24h=19), stage)[0]
    codes, figures = _decided(_state(orders_24h=20), stage)
    assert "max_orders_per_day" in codes
    assert (
        "max_orders_per_day: 20 orders filed in the last 24 h "
        "(limits.max_orders_per_day = 20); each leaves the count 24 h after it was filed."
    ) in figures


@STAGES
def test_drawdown_halt_names_equity_the_peak_and_the_drawdown_one_cent_either_side(
    stage: Stage,
) -> None:
    # 1,000 bps of a $10,000 peak: equity $9,000.00 trips it, $9,000.01 does not.
    assert "drawdown_halt" not in _decided(_state(equity=D("9000.01")), stage)[0]
    codes, figures = _decided(_state(equity=D("9000.00")), stage)
    assert "drawdown_halt" in codes
    assert (
        "drawdown_halt: equity $9000.00 is $1000.00 (10.00 %) below its high-water mark of "
        "$10000.00 (limits.drawdown_halt_bps = 1000, 10 %); only orders that reduce a "
        "position are taken."
    ) in figures


@STAGES
def test_drawdown_halt_on_a_mark_of_nothing_says_no_drawdown_can_be_measured(
    stage: Stage,
) -> None:
    codes, figures = _decided(_state(high_water_mark=D(0), equity=D(0)), stage)
    assert "drawdown_halt" in codes
    assert any(
        figure.startswith("drawdown_halt: the high-water mark is $0.00, so no drawdown")
        for figure in figures
    )


@STAGES
def test_daily_loss_halt_names_the_loss_since_the_session_began_one_cent_either_side(
    stage: Stage,
) -> None:
    # A peak far above keeps the drawdown breaker out of it.
    wide = replace(POLICY, drawdown_halt_bps=10000)
    start = {"session_start_equity": D("10000"), "high_water_mark": D("10000")}
    assert "daily_loss_halt" not in _decided(_state(equity=D("9750.01"), **start), stage, wide)[0]
    codes, figures = _decided(_state(equity=D("9750.00"), **start), stage, wide)
    assert codes == ("daily_loss_halt",)
    assert figures == (
        "daily_loss_halt: equity $9750.00 is $250.00 below the session's start of $10000.00 "
        "(limits.daily_loss_halt_usd = $250.00); only orders that reduce a position are taken.",
    )


@STAGES
def test_stale_quote_names_the_quotes_age_and_the_max_age_one_second_either_side(
    stage: Stage,
) -> None:
    fresh = _state(quote=_quote(age=timedelta(seconds=15)))
    assert "stale_quote" not in _decided(fresh, stage)[0]
    codes, figures = _decided(_state(quote=_quote(age=timedelta(seconds=16))), stage)
    assert codes == ("stale_quote",)
    assert figures == (
        "stale_quote: the quote is 16 s old (limits.max_quote_age_s = 15); try again for a "
        "fresh one.",
    )
    # Stamped ahead of now is as suspect, and said so.
    ahead = _state(quote=_quote(age=-timedelta(seconds=16, microseconds=500000)))
    codes, figures = _decided(ahead, stage)
    assert codes == ("stale_quote",)
    assert figures[0].startswith("stale_quote: the quote is stamped 16.5 s ahead of now")


@STAGES
def test_spread_too_wide_names_the_bid_the_ask_and_the_spread_in_bps_one_bp_either_side(
    stage: Stage,
) -> None:
    # Around a $100 mid a cent of spread is one bp: 50 cents is at the cap, 51 over it.
    inside = _state(quote=_quote("99.75", "100.25"))
    assert "spread_too_wide" not in _decided(inside, stage)[0]
    codes, figures = _decided(_state(quote=_quote("99.745", "100.255")), stage)
    assert codes == ("spread_too_wide",)
    assert figures == (
        "spread_too_wide: bid $99.745, ask $100.255, a spread of 51.00 bps of the mid "
        "(limits.max_spread_bps = 50); try again when the market is orderly.",
    )
