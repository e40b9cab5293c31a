"""Decimal rules for money, price and quantity fields (issue: foundation)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordergate.core import (
    ZERO,
    DecimalFieldError,
    optional_decimal,
    parse_decimal,
    required_decimal,
    to_wire,
)


@pytest.mark.parametrize("absent", [None, "", "   "])
def test_absent_null_or_empty_is_none_when_optional_and_zero_when_required(absent: object) -> None:
    assert optional_decimal("price", absent) is None
    assert required_decimal("price", absent) == ZERO


@pytest.mark.parametrize("zero", [0, "0", "0.0", "0.00", Decimal("0")])
def test_zero_spellings_are_zero_not_absent(zero: object) -> None:
    assert optional_decimal("quantity", zero) == ZERO
    assert optional_decimal("quantity", zero) is not None


@pytest.mark.parametrize(
    ("wire", "value"),
    [("12.34", Decimal("12.34")), (7, Decimal(7)), (" 1.5 ", Decimal("1.5")), ("-3", Decimal(-3))],
)
def test_numbers_and_numeric_strings_parse_exactly(wire: object, value: Decimal) -> None:
    assert parse_decimal("amount", wire) == value


def test_binary_float_parses_to_its_shortest_decimal_text() -> None:
    assert parse_decimal("amount", 0.1) == Decimal("0.1")


@pytest.mark.parametrize(
    "bad",
    ["n/a", {"amount": "1"}, True, False, ["1"], "NaN", "nan", "Infinity", "-inf", "1,000", "1e"],
)
def test_present_but_unparseable_is_an_error_naming_the_field(bad: object) -> None:
    with pytest.raises(DecimalFieldError) as raised:
        parse_decimal("limit_price", bad)
    assert raised.value.field == "limit_price"
    assert raised.value.code == "invalid_decimal"
    with pytest.raises(DecimalFieldError):
        required_decimal("limit_price", bad)


def test_unparseable_error_never_echoes_the_value() -> None:
    with pytest.raises(DecimalFieldError) as raised:
        parse_decimal("dollar_amount", "secret-looking-text")
    assert "secret-looking-text" not in str(raised.value)


def test_wire_form_is_plain_notation_without_exponent() -> None:
    assert to_wire(Decimal("1E+3")) == "1000"
    assert to_wire(Decimal("1.50")) == "1.50"
    assert to_wire(Decimal("-0")) == "0"
    assert to_wire(Decimal("-0.00")) == "0.00"
    assert to_wire(Decimal("0.000001")) == "0.000001"


def test_wire_form_refuses_non_finite() -> None:
    with pytest.raises(ValueError):
        to_wire(Decimal("NaN"))


finite = st.decimals(allow_nan=False, allow_infinity=False, places=None)


@given(finite)
def test_wire_round_trip_keeps_the_value(value: Decimal) -> None:
    assert parse_decimal("x", to_wire(value)) == value


@given(finite)
def test_wire_form_is_canonical(value: Decimal) -> None:
    text = to_wire(value)
    assert "E" not in text and "e" not in text
    parsed = parse_decimal("x", text)
    assert parsed is not None
    assert to_wire(parsed) == text
