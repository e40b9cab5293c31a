"""Option orders the path cannot name are refused on construction, naming the field; the
shapes an agent may try against the wall carry a code of their own."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from option_kit import (
    BUY,
    CALL,
    CLOSE,
    CREDIT,
    DEBIT,
    EXPIRY,
    OPEN,
    PUT,
    SELL,
    contract,
    leg,
    order,
)

from ordergate.core import OptionDirection, OrderType, TimeInForce
from ordergate.policy import ProposalError
from ordergate.policy.options import (
    MAX_LEGS,
    OptionContract,
    OptionLeg,
    OptionProposal,
    OptionQuote,
    OptionTerms,
    estimate_option_terms,
)

D = Decimal
AT = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def test_a_contract_normalises_its_underlying_and_keeps_its_terms() -> None:
    made = OptionContract("spy", EXPIRY, D("450.5"), PUT)
    assert (made.underlying, made.expiry, made.strike, made.kind) == (
        "SPY",
        EXPIRY,
        D("450.5"),
        PUT,
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"underlying": 7}, "underlying"),
        ({"underlying": " SPY"}, "underlying"),
        ({"underlying": "S-PY"}, "underlying"),
        ({"expiry": "2026-12-18"}, "expiry"),
        ({"expiry": datetime(2026, 12, 18, tzinfo=UTC)}, "expiry"),
        ({"strike": D(0)}, "strike"),
        ({"strike": D("NaN")}, "strike"),
        ({"strike": 450}, "strike"),
        ({"kind": "call"}, "kind"),
    ],
)
def test_a_contract_the_path_cannot_name_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    fields: dict[str, Any] = {
        "underlying": "SPY",
        "expiry": EXPIRY,
        "strike": D(450),
        "kind": CALL,
    }
    fields.update(changes)
    with pytest.raises(ProposalError) as caught:
        OptionContract(**fields)
    assert (caught.value.field, caught.value.code) == (field, "invalid_proposal")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"option_id": ""}, "option_id"),
        ({"option_id": 3}, "option_id"),
        ({"option_id": "abc\n"}, "option_id"),
        ({"contract": "SPY 450C"}, "contract"),
        ({"side": "buy"}, "side"),
        ({"position_effect": "open"}, "position_effect"),
        ({"ratio": 0}, "ratio"),
        ({"ratio": True}, "ratio"),
        ({"ratio": D(1)}, "ratio"),
    ],
)
def test_a_leg_the_path_cannot_name_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    fields: dict[str, Any] = {
        "option_id": "abc",
        "contract": contract(450),
        "side": BUY,
        "position_effect": OPEN,
        "ratio": 1,
    }
    fields.update(changes)
    with pytest.raises(ProposalError) as caught:
        OptionLeg(**fields)
    assert caught.value.field == field


def _proposal(**changes: Any) -> OptionProposal:
    fields: dict[str, Any] = {
        "legs": (leg(BUY, 450),),
        "quantity": 1,
        "direction": DEBIT,
        "order_type": OrderType.LIMIT,
        "limit_price": D("2.35"),
    }
    fields.update(changes)
    return OptionProposal(**fields)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"legs": ()}, "legs"),
        ({"legs": [leg(BUY, 450)]}, "legs"),
        ({"legs": ("leg",)}, "legs"),
        ({"quantity": 0}, "quantity"),
        ({"quantity": D(1)}, "quantity"),
        ({"direction": "debit"}, "direction"),
        ({"direction": CREDIT}, "direction"),
        ({"order_type": "limit"}, "order_type"),
        ({"order_type": OrderType.STOP_LIMIT}, "order_type"),
        ({"order_type": OrderType.MARKET}, "limit_price"),
        ({"limit_price": None}, "limit_price"),
        ({"limit_price": D(0)}, "limit_price"),
        ({"limit_price": D("Infinity")}, "limit_price"),
        ({"time_in_force": "gfd"}, "time_in_force"),
        ({"account": ""}, "account"),
        ({"account": 5}, "account"),
        (
            {
                "legs": (leg(BUY, 450), leg(SELL, 460)),
                "order_type": OrderType.MARKET,
                "limit_price": None,
            },
            "order_type",
        ),
    ],
)
def test_an_option_order_the_path_cannot_name_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(ProposalError) as caught:
        _proposal(**changes)
    assert (caught.value.field, caught.value.code) == (field, "invalid_proposal")


def test_legs_on_two_underlyings_are_refused_option_legs_mixed_underlyings() -> None:
    with pytest.raises(ProposalError) as caught:
        order(leg(BUY, 450), leg(SELL, 460, underlying="QQQ"))
    assert (caught.value.field, caught.value.code) == ("legs", "option_legs_mixed_underlyings")


def test_a_fifth_leg_is_refused_option_legs_too_many() -> None:
    legs = tuple(leg(BUY if n % 2 else SELL, 440 + 5 * n) for n in range(MAX_LEGS + 1))
    with pytest.raises(ProposalError) as caught:
        order(*legs, direction=DEBIT)
    assert (caught.value.field, caught.value.code) == ("legs", "option_legs_too_many")


def test_one_option_on_two_legs_is_refused_option_legs_duplicate() -> None:
    with pytest.raises(ProposalError) as caught:
        order(leg(BUY, 450), leg(SELL, 450), direction=DEBIT)
    assert (caught.value.field, caught.value.code) == ("legs", "option_legs_duplicate")


def test_a_four_leg_order_keeps_its_terms_and_counts_its_largest_leg_in_contracts() -> None:
    condor = OptionProposal(
        legs=(
            leg(BUY, 430, PUT),
            leg(SELL, 440, PUT),
            leg(SELL, 460, CALL, ratio=2),
            leg(BUY, 470, CALL),
        ),
        quantity=3,
        direction=CREDIT,
        limit_price=D("1.10"),
        time_in_force=TimeInForce.GTC,
        account="5QR1",
    )
    assert condor.underlying == "SPY"
    assert condor.contracts == 6
    assert condor.opens
    assert (condor.order_type, condor.time_in_force, condor.account) == (
        OrderType.LIMIT,
        TimeInForce.GTC,
        "5QR1",
    )


def test_an_order_of_closing_legs_only_does_not_open() -> None:
    closing = order(leg(SELL, 450, effect=CLOSE), leg(BUY, 460, effect=CLOSE), direction=CREDIT)
    assert not closing.opens


def test_a_limit_order_is_estimated_at_its_net_limit() -> None:
    proposal = order(leg(BUY, 450), leg(SELL, 460), price="2.40")
    terms = estimate_option_terms(proposal, {})
    assert terms.premium == D("2.40")
    assert terms.premium_usd(proposal) == D(240)


def test_a_market_buy_is_estimated_at_the_ask_and_a_market_sell_at_the_bid() -> None:
    buy = order(leg(BUY, 450), price=None, quantity=2)
    sell = order(leg(SELL, 450), price=None)
    quotes = {buy.legs[0].option_id: OptionQuote(buy.legs[0].option_id, D("2.30"), D("2.40"), AT)}
    assert estimate_option_terms(buy, quotes).premium_usd(buy) == D(480)
    assert estimate_option_terms(sell, quotes).premium == D("2.30")


@pytest.mark.parametrize(
    "quotes",
    [
        {},
        {"SPY-2026-12-18-c450": OptionQuote("SPY-2026-12-18-c450", None, None, AT)},
        {"SPY-2026-12-18-c450": OptionQuote("SPY-2026-12-18-c450", D(0), D(0), AT)},
    ],
)
def test_a_market_order_without_a_usable_far_side_has_an_unknown_premium(
    quotes: dict[str, OptionQuote],
) -> None:
    proposal = order(leg(BUY, 450), price=None)
    terms = estimate_option_terms(proposal, quotes)
    assert terms.premium is None
    assert terms.premium_usd(proposal) is None


def test_reviewed_terms_carry_fees_collateral_buying_power_and_alerts() -> None:
    terms = OptionTerms(
        premium=D("1.05"),
        fees=D("0.06"),
        collateral=D(1000),
        buying_power_effect=D("-895"),
        alerts=("price_far_from_mark",),
    )
    assert terms.premium_usd(order(leg(SELL, 450), quantity=2)) == D(210)
    assert terms.alerts == ("price_far_from_mark",)
    assert OptionDirection.CREDIT is CREDIT
