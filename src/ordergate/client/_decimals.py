"""Amounts and counts on the wire, by the Decimal rules (``ordergate.core.parse_decimal``).

Answers are read as the rules say; what a caller sends is held to more:

- ``Money`` / ``OptionalMoney`` / ``RequiredMoney``: an amount in an answer, string or number
  in. ``Money`` reads absent, ``null`` or ``""`` as zero, ``OptionalMoney`` as ``None``,
  ``RequiredMoney`` (a price or size that must be there) as an error; anything unparseable
  is an error naming the field, never zero.
- ``WireDecimal`` / ``OptionalWireDecimal``: an amount a caller sends. ``Decimal``, ``int``
  or a numeric string in; ``float`` and ``bool`` refused (a binary float cannot say
  "12.30", and a bool is an int that is not a number); a canonical decimal string out
  (``to_wire``). Zero and negative values pass: a threshold may be either.
- ``PositiveDecimal``: a ``WireDecimal`` that must be greater than zero (order sizes and
  prices).
- ``WholeNumber``: a count of at least 1, from an ``int`` or an integral decimal or string;
  an ``int`` on the wire.
- ``IntegralNumber``: an amount the schema types as a JSON *number*. The JSON-RPC caller
  writes every ``Decimal`` as a string and floats are banned, so only whole values can go
  out as numbers; a fractional value is refused naming the field.
- ``DecimalText``: text that may be given as a ``Decimal`` or ``int``, kept as its decimal
  text (scan filter bounds, XBRL fact values).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, PlainSerializer
from pydantic_core import PydanticCustomError

from ordergate.core import ZERO, DecimalFieldError, parse_decimal, to_wire

__all__ = [
    "DecimalText",
    "IntegralNumber",
    "Money",
    "OptionalMoney",
    "OptionalWireDecimal",
    "PositiveDecimal",
    "RequiredMoney",
    "WholeNumber",
    "WireDecimal",
]

_to_wire = PlainSerializer(to_wire, return_type=str, when_used="unless-none")


# -- answers ---------------------------------------------------------------------------------


def _answer_amount(value: object) -> Decimal | None:
    try:
        return parse_decimal("value", value)
    except DecimalFieldError:
        raise PydanticCustomError("decimal", "not a decimal number") from None


def _answer_amount_or_zero(value: object) -> Decimal:
    parsed = _answer_amount(value)
    return ZERO if parsed is None else parsed


Money = Annotated[Decimal, BeforeValidator(_answer_amount_or_zero), _to_wire]
"""A required amount: absent, ``null`` or ``""`` → zero."""

OptionalMoney = Annotated[Decimal | None, BeforeValidator(_answer_amount), _to_wire]
"""An optional amount: absent, ``null`` or ``""`` → ``None``."""

RequiredMoney = Annotated[Decimal, BeforeValidator(_answer_amount), _to_wire]
"""An amount that must be there: absent, ``null`` or ``""`` is an error naming the field."""


# -- requests --------------------------------------------------------------------------------


def _request_amount(value: object) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise PydanticCustomError("decimal", "expected a Decimal, an int or a numeric string")
    try:
        parsed = parse_decimal("value", value)
    except DecimalFieldError:
        raise PydanticCustomError("decimal", "not a decimal number") from None
    if parsed is None:
        raise PydanticCustomError("decimal", "an amount must not be empty")
    return parsed


def _optional_request_amount(value: object) -> Decimal | None:
    return None if value is None else _request_amount(value)


def _positive(value: Decimal) -> Decimal:
    if value <= 0:
        raise PydanticCustomError("positive", "must be greater than zero")
    return value


def _whole(value: Decimal) -> Decimal:
    if value != value.to_integral_value():
        raise PydanticCustomError("whole_number", "must be a whole number")
    return value


def _count(value: object) -> int:
    number = _whole(_request_amount(value))
    if number < 1:
        raise PydanticCustomError("count", "must be at least 1")
    return int(number)


WireDecimal = Annotated[Decimal, BeforeValidator(_request_amount), _to_wire]
OptionalWireDecimal = Annotated[Decimal | None, BeforeValidator(_optional_request_amount), _to_wire]
PositiveDecimal = Annotated[WireDecimal, AfterValidator(_positive)]
WholeNumber = Annotated[int, BeforeValidator(_count)]
IntegralNumber = Annotated[
    Decimal,
    BeforeValidator(_request_amount),
    AfterValidator(_whole),
    PlainSerializer(int, return_type=int, when_used="always"),
]


def _decimal_text(value: object) -> object:
    if isinstance(value, Decimal):
        return to_wire(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


DecimalText = Annotated[str, BeforeValidator(_decimal_text)]
