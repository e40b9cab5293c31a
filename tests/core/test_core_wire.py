"""The venue's wire formats: fixed-width UTC instants, money in cents (half to even),
quantities without trailing zeros, USD money objects, and Robinhood's order type and trigger."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordergate.core import (
    OrderType,
    wire_amount,
    wire_money,
    wire_or_none,
    wire_quantity,
    wire_time,
)


@given(
    st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_an_instant_is_written_in_utc_to_the_microsecond_with_a_z(
    naive: datetime, offset: int
) -> None:
    instant = naive.replace(tzinfo=timezone(timedelta(minutes=offset)))
    text = wire_time(instant)
    assert text == instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert len(text) == len("2026-12-01T15:00:00.000000Z")


def test_a_naive_instant_is_refused_rather_than_guessed() -> None:
    with pytest.raises(ValueError, match="naive"):
        wire_time(datetime(2026, 12, 1, 15, 0))


@pytest.mark.parametrize(
    ("value", "text"),
    [("12.3", "12.30"), ("0.125", "0.12"), ("0.135", "0.14"), ("-1.005", "-1.00"), ("0", "0.00")],
)
def test_money_is_written_in_cents_rounded_half_to_even(value: str, text: str) -> None:
    assert wire_money(Decimal(value)) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [("10.00", "10"), ("0.500", "0.5"), ("1E+1", "10"), ("0.000001", "0.000001"), ("0.0", "0")],
)
def test_a_quantity_is_written_without_trailing_zeros(value: str, text: str) -> None:
    assert wire_quantity(Decimal(value)) == text


def test_an_absent_value_stays_absent_and_a_present_one_keeps_its_places() -> None:
    assert wire_or_none(None) is None
    assert wire_or_none(Decimal("240.50")) == "240.50"
    assert wire_amount(None) is None
    assert wire_amount(Decimal("12.3")) == {"amount": "12.30", "currency_code": "USD"}
    assert wire_amount(Decimal("0.4567"), cents=False) == {
        "amount": "0.4567",
        "currency_code": "USD",
    }


@pytest.mark.parametrize(
    ("order_type", "wire_type", "trigger"),
    [
        (OrderType.MARKET, "market", "immediate"),
        (OrderType.LIMIT, "limit", "immediate"),
        (OrderType.STOP_MARKET, "market", "stop"),
        (OrderType.STOP_LIMIT, "limit", "stop"),
    ],
)
def test_an_order_type_is_written_as_robinhoods_type_and_trigger(
    order_type: OrderType, wire_type: str, trigger: str
) -> None:
    assert order_type.base_type == wire_type
    assert order_type.trigger == trigger
