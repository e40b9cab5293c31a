"""The shared field types: where two of them differ, each keeps its own rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from client_testkit import refused_field
from pydantic import ValidationError

from ordergate.client._arguments import wire_time
from ordergate.client._decimals import (
    DecimalText,
    IntegralNumber,
    OptionalWireDecimal,
    PositiveDecimal,
    WholeNumber,
    WireDecimal,
)
from ordergate.client._fields import Instant, refuse
from ordergate.client._models import RequestModel


class Amounts(RequestModel):
    threshold: WireDecimal = Decimal(0)
    price: PositiveDecimal = Decimal(1)
    maybe: OptionalWireDecimal = None
    count: WholeNumber = 1
    number: IntegralNumber = Decimal(0)
    text: DecimalText = ""


class Times(RequestModel):
    at: Instant


@pytest.mark.parametrize("value", [Decimal(0), -3, "-0.5"])
def test_a_wire_decimal_takes_zero_and_negatives_a_positive_decimal_does_not(value: Any) -> None:
    assert Amounts(threshold=value).threshold == Decimal(value)
    with pytest.raises(ValidationError) as raised:
        Amounts(price=value)
    assert refused_field(raised.value) == "price"


@pytest.mark.parametrize("field", ["threshold", "price", "maybe", "count", "number"])
@pytest.mark.parametrize("value", [1.5, True, "", "n/a"])
def test_no_request_amount_takes_a_float_a_bool_or_a_non_number(field: str, value: Any) -> None:
    with pytest.raises(ValidationError) as raised:
        Amounts.model_validate({field: value})
    assert refused_field(raised.value) == field


def test_request_amounts_go_out_as_canonical_strings_and_counts_as_ints() -> None:
    amounts = Amounts(threshold="12.30", price=2, count=Decimal("3.0"), number="7", text=5)
    assert amounts.arguments() == {
        "threshold": "12.30", "price": "2", "count": 3, "number": 7, "text": "5",
    }  # fmt: skip
    assert Amounts(text=Decimal("1E+2")).text == "100"


@pytest.mark.parametrize(("field", "value"), [("count", "1.5"), ("count", 0), ("number", "2.5")])
def test_whole_numbers_refuse_fractions_and_counts_refuse_zero(field: str, value: Any) -> None:
    with pytest.raises(ValidationError) as raised:
        Amounts.model_validate({field: value})
    assert refused_field(raised.value) == field


def test_an_instant_goes_out_as_utc_text_and_a_naive_time_is_refused() -> None:
    new_york = timezone(timedelta(hours=-5))
    assert Times(at=datetime(2026, 12, 1, 10, 0, tzinfo=new_york)).arguments() == {
        "at": "2026-12-01T15:00:00Z"
    }
    with pytest.raises(ValidationError) as raised:
        Times(at=datetime(2026, 12, 1, 10, 0))
    assert refused_field(raised.value) == "at"


def test_a_hand_built_time_argument_names_the_field_when_naive() -> None:
    assert wire_time("since", datetime(2026, 12, 1, 15, tzinfo=UTC)) == "2026-12-01T15:00:00Z"
    assert wire_time("since", None) is None
    with pytest.raises(ValueError, match="since"):
        wire_time("since", datetime(2026, 12, 1, 15))


def test_a_refusal_is_located_at_the_field_it_names() -> None:
    assert refused_field(refuse("limit_price", "no")) == "limit_price"
    assert refused_field(refuse(("legs", 1, "side"), "no")) == "legs[1].side"
