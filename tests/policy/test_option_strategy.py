"""Strategy recognition from the legs and the holdings (never the agent's word), and max loss:
each bounded shape's max loss is its closed form and the worst payoff at expiry over a grid
of underlying prices from 0 to far above the top strike."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from option_kit import BUY, CALL, CLOSE, CREDIT, DEBIT, EXPIRY, PUT, SELL, leg, order

from ordergate.policy.options import (
    HeldOption,
    OptionHoldings,
    OptionLeg,
    OptionProposal,
    Strategy,
    max_loss,
    recognise,
)

D = Decimal
S = Strategy
NONE = OptionHoldings()
LATER = EXPIRY + timedelta(days=28)


def held(*positions: tuple[OptionLeg, int], shares: int = 0, cash: int | None = None):
    options = {p.option_id: HeldOption(p.contract, quantity) for p, quantity in positions}
    return OptionHoldings(shares=D(shares), options=options, cash=None if cash is None else D(cash))


CONDOR = (leg(BUY, 430, PUT), leg(SELL, 440, PUT), leg(SELL, 460, CALL), leg(BUY, 470, CALL))


@pytest.mark.parametrize(
    ("legs", "holdings", "strategy"),
    [
        ((leg(BUY, 450),), NONE, S.LONG_CALL),
        ((leg(BUY, 450, PUT),), NONE, S.LONG_PUT),
        ((leg(SELL, 450),), held(shares=100), S.COVERED_CALL),
        ((leg(SELL, 450),), held(shares=99), S.NAKED_CALL),
        ((leg(SELL, 450),), None, S.NAKED_CALL),
        ((leg(SELL, 450, PUT),), held(cash=45_000), S.CASH_SECURED_PUT),
        ((leg(SELL, 450, PUT),), held(cash=44_999), S.NAKED_PUT),
        ((leg(SELL, 450, PUT),), NONE, S.NAKED_PUT),
        ((leg(BUY, 450), leg(SELL, 460)), NONE, S.DEBIT_VERTICAL),
        ((leg(SELL, 450), leg(BUY, 460)), NONE, S.CREDIT_VERTICAL),
        ((leg(BUY, 460, PUT), leg(SELL, 450, PUT)), NONE, S.DEBIT_VERTICAL),
        ((leg(SELL, 460, PUT), leg(BUY, 450, PUT)), NONE, S.CREDIT_VERTICAL),
        ((leg(BUY, 450), leg(BUY, 450, PUT)), NONE, S.STRADDLE),
        ((leg(SELL, 460), leg(SELL, 440, PUT)), NONE, S.STRANGLE),
        ((leg(SELL, 450), leg(BUY, 450, expiry=LATER)), NONE, S.CALENDAR),
        ((leg(BUY, 450), leg(SELL, 450, expiry=LATER)), NONE, S.UNRECOGNISED),
        ((leg(BUY, 450), leg(SELL, 460, expiry=LATER)), NONE, S.UNRECOGNISED),
        ((leg(BUY, 450), leg(BUY, 460)), NONE, S.UNRECOGNISED),
        ((leg(BUY, 450), leg(SELL, 450, PUT)), NONE, S.UNRECOGNISED),
        ((leg(BUY, 450), leg(SELL, 460, ratio=2)), NONE, S.UNRECOGNISED),
        (CONDOR, NONE, S.IRON_CONDOR),
        (
            (leg(BUY, 430, PUT), leg(SELL, 450, PUT), leg(SELL, 450, CALL), leg(BUY, 470, CALL)),
            NONE,
            S.IRON_BUTTERFLY,
        ),
        ((CONDOR[0], CONDOR[1], CONDOR[2], leg(BUY, 470, PUT)), NONE, S.UNRECOGNISED),
        ((CONDOR[0], CONDOR[1], CONDOR[2], leg(SELL, 470, CALL)), NONE, S.UNRECOGNISED),
        (
            (CONDOR[0], CONDOR[1], CONDOR[2], leg(BUY, 470, CALL, expiry=LATER)),
            NONE,
            S.UNRECOGNISED,
        ),
        ((leg(SELL, 430, PUT), leg(BUY, 440, PUT), CONDOR[2], CONDOR[3]), NONE, S.UNRECOGNISED),
        ((CONDOR[0], CONDOR[1], leg(SELL, 435, CALL), CONDOR[3]), NONE, S.UNRECOGNISED),
        ((leg(BUY, 440), leg(SELL, 450), leg(BUY, 460)), NONE, S.UNRECOGNISED),
        ((leg(BUY, 450), leg(SELL, 460, effect=CLOSE)), NONE, S.UNRECOGNISED),
    ],
)
def test_the_strategy_is_recognised_from_the_legs_and_the_holdings(
    legs: tuple[OptionLeg, ...], holdings: OptionHoldings | None, strategy: Strategy
) -> None:
    assert recognise(order(*legs), holdings) is strategy


def test_shares_already_covering_a_short_call_do_not_cover_another() -> None:
    short = leg(SELL, 440)
    holdings = held((short, -1), shares=100)
    assert recognise(order(leg(SELL, 450)), holdings) is S.NAKED_CALL
    assert recognise(order(leg(SELL, 450)), held((short, -1), shares=200)) is S.COVERED_CALL
    # A short put, or a call on another underlying, commits no shares.
    other = (leg(SELL, 440, PUT), -1), (leg(SELL, 40, underlying="QQQ"), -3)
    assert recognise(order(leg(SELL, 450)), held(*other, shares=100)) is S.COVERED_CALL


def test_a_covered_call_needs_shares_for_every_contract_of_the_order() -> None:
    assert recognise(order(leg(SELL, 450, ratio=2)), held(shares=199)) is S.NAKED_CALL
    assert recognise(order(leg(SELL, 450), quantity=3), held(shares=300)) is S.COVERED_CALL


def test_an_order_that_closes_positions_held_is_closing() -> None:
    long_call, short_put = leg(BUY, 450), leg(SELL, 440, PUT)
    holdings = held((long_call, 2), (short_put, -1))
    closing = order(
        leg(SELL, 450, effect=CLOSE), leg(BUY, 440, PUT, effect=CLOSE), direction=CREDIT
    )
    assert recognise(closing, holdings) is S.CLOSING
    assert max_loss(closing, S.CLOSING, D(1)) == 0


@pytest.mark.parametrize(
    "holdings",
    [
        NONE,
        None,
        held((leg(BUY, 450), 0), (leg(SELL, 440, PUT), -1)),
        held((leg(BUY, 450), 2), (leg(SELL, 440, PUT), 1)),
    ],
)
def test_closing_what_is_not_held_is_unrecognised(holdings: OptionHoldings | None) -> None:
    closing = order(
        leg(SELL, 450, effect=CLOSE), leg(BUY, 440, PUT, effect=CLOSE), direction=CREDIT
    )
    assert recognise(closing, holdings) is S.UNRECOGNISED


def test_a_naked_call_is_unbounded_whatever_the_agent_calls_it() -> None:
    # There is no field for the agent's label: the shape is the legs and the holdings.
    naked = order(leg(SELL, 450), price="3.00")
    assert recognise(naked, NONE) is S.NAKED_CALL
    assert max_loss(naked, S.NAKED_CALL, D(3)) is None


def test_a_ratio_that_leaves_a_call_uncovered_is_unbounded() -> None:
    ratio = order(leg(BUY, 450), leg(SELL, 460, ratio=2), direction=CREDIT, price="0.50")
    assert recognise(ratio, NONE) is S.UNRECOGNISED
    assert max_loss(ratio, S.UNRECOGNISED, D("0.50")) is None


def test_a_short_call_that_outlives_the_expiry_counts_at_the_underlyings_price() -> None:
    uncovered = order(leg(BUY, 450, PUT), leg(SELL, 450, expiry=LATER), direction=CREDIT)
    assert max_loss(uncovered, S.UNRECOGNISED, D(1)) is None
    # Bought at the earlier expiry, a call delivers shares that cover the later one sold.
    reverse = order(leg(BUY, 450), leg(SELL, 450, expiry=LATER), direction=CREDIT)
    assert max_loss(reverse, S.UNRECOGNISED, D(1)) == (450 - 1) * 100
    put = order(leg(BUY, 450, PUT), leg(SELL, 450, PUT, expiry=LATER), direction=CREDIT)
    # The later put sold is worth at most its strike; the earlier put bought at least 0.
    assert max_loss(put, S.UNRECOGNISED, D(1)) == (450 - 1) * 100


def test_a_calendar_loses_at_most_its_debit() -> None:
    calendar = order(leg(SELL, 450), leg(BUY, 450, expiry=LATER), direction=DEBIT, price="1.25")
    assert max_loss(calendar, S.CALENDAR, D("1.25")) == 125


def test_a_credit_beyond_the_worst_case_loses_nothing() -> None:
    vertical = order(leg(SELL, 450), leg(BUY, 460), price="11.00")
    assert max_loss(vertical, S.CREDIT_VERTICAL, D(11)) == 0


# -- max loss equals the worst payoff at expiry (hypothesis) ---------------------------------


def payoff_at(proposal: OptionProposal, price: D, net: D, shares: int, basis: D) -> D:
    """The order's payoff in USD at expiry with the underlying at ``price``: every leg at
    intrinsic value, the premium, and ``shares`` (per unit) counted from ``basis``."""
    total = net if proposal.direction is CREDIT else -net
    for one in proposal.legs:
        strike = one.contract.strike
        intrinsic = (
            max(price - strike, D(0)) if one.contract.kind is CALL else max(strike - price, D(0))
        )
        total += (1 if one.side is BUY else -1) * one.ratio * intrinsic
    total += shares * (price - basis)
    return total * 100 * proposal.quantity


strikes = st.integers(10, 400).map(lambda n: D(n) / 2)
widths = st.integers(1, 40).map(lambda n: D(n) / 2)
prices = st.integers(1, 2000).map(lambda n: D(n) / 100)


@st.composite
def bounded(draw: st.DrawFn) -> tuple[OptionProposal, Strategy, D, D, int, D]:
    """A bounded shape, its net price and the closed-form max loss the brief names."""
    shape = draw(
        st.sampled_from(
            [
                S.LONG_CALL,
                S.LONG_PUT,
                S.DEBIT_VERTICAL,
                S.CREDIT_VERTICAL,
                S.IRON_CONDOR,
                S.IRON_BUTTERFLY,
                S.CASH_SECURED_PUT,
                S.COVERED_CALL,
                S.STRADDLE,
                S.STRANGLE,
            ]
        )
    )
    kind = draw(st.sampled_from([CALL, PUT]))
    k = draw(strikes)
    w = draw(widths)
    w2 = draw(widths)
    net = draw(prices)
    quantity = draw(st.integers(1, 5))
    q = 100 * quantity
    shares, basis = 0, D(0)
    legs: tuple[OptionLeg, ...]
    if shape in (S.LONG_CALL, S.LONG_PUT):
        legs = (leg(BUY, k, CALL if shape is S.LONG_CALL else PUT),)
        expected = net * q
    elif shape is S.DEBIT_VERTICAL:
        low, high = (k, k + w)
        legs = (
            (leg(BUY, low), leg(SELL, high))
            if kind is CALL
            else (leg(BUY, high, PUT), leg(SELL, low, PUT))
        )
        expected = net * q
    elif shape is S.CREDIT_VERTICAL:
        low, high = (k, k + w)
        legs = (
            (leg(SELL, low), leg(BUY, high))
            if kind is CALL
            else (leg(SELL, high, PUT), leg(BUY, low, PUT))
        )
        expected = w * q - net * q
    elif shape in (S.IRON_CONDOR, S.IRON_BUTTERFLY):
        gap = D(0) if shape is S.IRON_BUTTERFLY else draw(widths)
        put_short, call_short = k, k + gap
        legs = (
            leg(BUY, put_short - w, PUT) if put_short - w > 0 else leg(BUY, D("0.5"), PUT),
            leg(SELL, put_short, PUT),
            leg(SELL, call_short),
            leg(BUY, call_short + w2),
        )
        put_width = put_short - legs[0].contract.strike
        expected = max(put_width, w2) * q - net * q
    elif shape is S.CASH_SECURED_PUT:
        legs = (leg(SELL, k, PUT),)
        expected = (k - net) * q
    elif shape is S.COVERED_CALL:
        legs = (leg(SELL, k),)
        shares, basis = 1, k
        expected = (k - net) * q
    elif shape is S.STRADDLE:
        legs = (leg(BUY, k), leg(BUY, k, PUT))
        expected = net * q
    else:
        legs = (leg(BUY, k + w), leg(BUY, k, PUT))
        expected = net * q
    debit = shape in (S.LONG_CALL, S.LONG_PUT, S.DEBIT_VERTICAL, S.STRADDLE, S.STRANGLE)
    proposal = order(*legs, quantity=quantity, price=str(net), direction=DEBIT if debit else CREDIT)
    return proposal, shape, net, max(expected, D(0)), shares, basis


@pytest.mark.req("policy.options.max-loss-exact")
@settings(max_examples=300, deadline=None)
@given(bounded())
def test_max_loss_is_the_closed_form_and_the_worst_payoff_over_a_price_grid(
    case: tuple[OptionProposal, Strategy, D, D, int, D],
) -> None:
    proposal, shape, net, expected, shares, basis = case
    assert recognise(proposal, held(shares=10_000, cash=10**9)) is shape
    loss = max_loss(proposal, shape, net)
    assert loss == expected
    strikes_ = [one.contract.strike for one in proposal.legs]
    top = max(strikes_)
    grid = {D(0), top * 10, top * 1000, *strikes_}
    grid.update(D(n) / 4 for n in range(0, int(top * 4) + 40))
    worst = min(payoff_at(proposal, price, net, shares, basis) for price in grid)
    assert loss == max(-worst, D(0))
