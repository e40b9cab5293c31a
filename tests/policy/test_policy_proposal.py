"""Proposals the order path cannot name are refused on construction, naming the field."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import MarketHours, OrderType, Side, TimeInForce
from ordergate.policy import Proposal, ProposalError, is_plain_ticker, normalise_symbol

D = Decimal


def make(**changes: Any) -> Proposal:
    fields: dict[str, Any] = {"symbol": "AAPL", "side": Side.BUY, "quantity": D(1)}
    fields.update(changes)
    return Proposal(**fields)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"quantity": None}, "quantity"),
        ({"notional": D(5)}, "quantity"),
        ({"quantity": D(0)}, "quantity"),
        ({"quantity": D(-1)}, "quantity"),
        ({"quantity": D("NaN")}, "quantity"),
        ({"quantity": 1}, "quantity"),
        ({"quantity": None, "notional": "5"}, "notional"),
        ({"limit_price": D(10)}, "limit_price"),
        ({"order_type": OrderType.LIMIT}, "limit_price"),
        ({"order_type": OrderType.LIMIT, "limit_price": D(0)}, "limit_price"),
        ({"stop_price": D(10)}, "stop_price"),
        ({"order_type": OrderType.STOP_MARKET}, "stop_price"),
        ({"order_type": OrderType.STOP_LIMIT, "limit_price": D(10)}, "stop_price"),
        ({"side": "buy"}, "side"),
        ({"order_type": "market"}, "order_type"),
        ({"time_in_force": "gfd"}, "time_in_force"),
        ({"market_hours": "regular_hours"}, "market_hours"),
        ({"symbol": 7}, "symbol"),
    ],
)
def test_a_proposal_the_path_cannot_name_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(ProposalError) as caught:
        make(**changes)
    assert caught.value.field == field
    assert caught.value.code == "invalid_proposal"


def test_a_complete_proposal_keeps_its_terms_and_normalises_its_symbol() -> None:
    proposal = make(
        symbol="brk.b",
        quantity=D(3),
        order_type=OrderType.STOP_LIMIT,
        limit_price=D("10.5"),
        stop_price=D(10),
        time_in_force=TimeInForce.GTC,
        market_hours=MarketHours.EXTENDED_HOURS,
        account="5QR12345",
    )
    assert proposal.symbol == "BRK.B"
    assert not proposal.is_fractional
    assert make(quantity=D("1.5")).is_fractional
    assert make(quantity=None, notional=D(5)).is_fractional


def test_a_malformed_symbol_is_kept_for_the_engine_to_refuse() -> None:
    assert make(symbol="BRK-B").symbol == "BRK-B"


def test_symbols_normalise_by_case_only() -> None:
    assert normalise_symbol("spy") == "SPY"
    assert normalise_symbol(" spy\t") is None
    assert normalise_symbol("s\u0440y") is None  # Cyrillic р
    assert is_plain_ticker("SPY") and is_plain_ticker("BRK.B")
    assert not is_plain_ticker("spy") and not is_plain_ticker(" SPY")
