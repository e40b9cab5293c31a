"""Properties of the options engine over generated orders, books and caps (hypothesis): an
allowed order fits every cap it is weighed against, and a tighter [options] never allows what
a looser one refused."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from option_kit import BUY, CALL, CREDIT, DEBIT, PUT, SELL, decide, leg, option_state, options
from option_kit import policy as make_policy
from option_kit import quotes as make_quotes

from ordergate.policy.options import OptionLeg, OptionProposal, OptionsPolicy, Strategy

D = Decimal
cents = st.integers(5, 500).map(lambda n: D(n) / 100)


@st.composite
def orders(draw: st.DrawFn) -> tuple[OptionProposal, dict[str, tuple[str, str]]]:
    """One to four legs around 450 with a book, priced near (or away from) the net mid."""
    count = draw(st.sampled_from([1, 2, 4]))
    strikes = sorted(
        draw(st.lists(st.integers(86, 94), min_size=count, max_size=count, unique=True))
    )
    legs: list[OptionLeg] = []
    book: dict[str, tuple[str, str]] = {}
    for strike in strikes:
        one = leg(
            draw(st.sampled_from([BUY, SELL])),
            strike * 5,
            draw(st.sampled_from([CALL, PUT])),
            ratio=draw(st.sampled_from([1, 1, 1, 2])),
        )
        legs.append(one)
        bid = draw(cents)
        book[one.option_id] = (str(bid), str(bid + draw(cents) / 10))
    mid = D(0)
    for one in legs:
        low, high = book[one.option_id]
        mid += (1 if one.side is BUY else -1) * one.ratio * (D(low) + D(high)) / 2
    if count == 1:
        direction = DEBIT if legs[0].side is BUY else CREDIT
    else:
        # Mostly the direction the legs net to; sometimes the wrong one.
        natural = DEBIT if mid > 0 else CREDIT
        direction = draw(st.sampled_from([natural, natural, natural, DEBIT, CREDIT]))
    # Mostly near the net mid (inside or just outside the collar), sometimes anywhere.
    near = abs(mid) * (1 + D(draw(st.integers(-200, 200))) / 1000)
    price = max(draw(st.sampled_from([near, near, near, draw(cents)])), D("0.01"))
    proposal = OptionProposal(
        tuple(legs), draw(st.integers(1, 5)), direction, limit_price=price.quantize(D("0.01"))
    )
    return proposal, book


@st.composite
def caps(draw: st.DrawFn) -> OptionsPolicy:
    return options(
        max_contracts=draw(st.sampled_from(range(1, 11))),
        max_premium_usd=D(draw(st.sampled_from(range(100, 5001, 100)))),
        max_daily_premium_usd=D(draw(st.sampled_from(range(100, 10001, 100)))),
        max_loss_usd=D(draw(st.sampled_from(range(100, 50001, 100)))),
        strategies=frozenset(Strategy),
        undefined_risk=draw(st.booleans()),
        price_collar_bps=draw(st.sampled_from(range(100, 10001, 100))),
    )


@pytest.mark.req("policy.options.caps-to-the-cent")
@settings(max_examples=300, deadline=None)
@given(orders(), caps(), st.integers(0, 3000).map(D))
def test_an_allowed_option_order_fits_every_cap(case, limits, spent) -> None:
    proposal, book = case
    state = option_state(quotes=make_quotes(book=book), premium_24h=spent)
    config = make_policy(options=limits, max_daily_usd=D(10**6))
    decision = decide(proposal, state, config)
    if not decision.allowed:
        return
    assert decision.premium_usd is not None
    assert proposal.contracts <= limits.max_contracts
    assert decision.premium_usd <= limits.max_premium_usd
    assert spent + decision.premium_usd <= limits.max_daily_premium_usd
    if decision.max_loss is None:
        assert limits.undefined_risk
    else:
        assert decision.max_loss <= limits.max_loss_usd


@settings(max_examples=300, deadline=None)
@given(orders(), caps(), st.data())
def test_a_tighter_options_table_never_allows_what_a_looser_refused(case, limits, data) -> None:
    proposal, book = case
    state = option_state(quotes=make_quotes(book=book))
    tighter = replace(
        limits,
        max_contracts=data.draw(st.integers(1, limits.max_contracts)),
        max_premium_usd=D(data.draw(st.integers(1, int(limits.max_premium_usd)))),
        max_loss_usd=D(data.draw(st.integers(1, int(limits.max_loss_usd)))),
        price_collar_bps=data.draw(st.integers(1, limits.price_collar_bps)),
        undefined_risk=limits.undefined_risk and data.draw(st.booleans()),
    )
    loose = decide(proposal, state, make_policy(options=limits))
    tight = decide(proposal, state, make_policy(options=tighter))
    if tight.allowed:
        assert loose.allowed
    assert set(loose.codes) <= set(tight.codes)
