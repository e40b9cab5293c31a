"""Field types and helpers shared by the market, research, watchlists, scanner, alerts and
advanced families (candidates for ``ordergate.client._models``).

Requests:

- ``Instant``: a timezone-aware ``datetime``, sent as ISO 8601 UTC (``2026-12-01T15:00:00Z``);
  a naive time is refused rather than guessed.
- ``WireDecimal`` / ``OptionalWireDecimal``: an amount the schema types as a string; ``Decimal``,
  ``int`` or a numeric string in (never a float or a bool), a canonical decimal string out.
- ``IntegralNumber``: a field the schema types as a JSON *number*. The JSON-RPC caller writes every
  ``Decimal`` as a string and floats are banned, so only whole values can go out as numbers
  today; a fractional value is refused naming the field.
- ``Int32``: a strict integer within the schema's 32-bit bounds.
- ``refuse``: a cross-field rule's failure as a ``ValidationError`` whose location is the field.
- ``name_list``: a list of names for the wire; a bare string (a likely slip) is refused.

Responses:

- ``NullableList[T]``: a ``["null", "array"]`` field read as a list (``null`` → empty).
- ``NextCursor``: a page's next cursor (``""`` → ``None``).
- ``data_object``: the ``data`` of a result that must be an object.
- ``parse_with``: ``parse_model`` for a prebuilt ``TypeAdapter`` (the quotes hot path).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    PlainSerializer,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from ordergate.client._errors import ResponseParseError
from ordergate.client._models import field_name
from ordergate.core import DecimalFieldError, parse_decimal, to_wire

__all__ = [
    "Instant",
    "Int32",
    "IntegralNumber",
    "NextCursor",
    "NullableList",
    "OptionalWireDecimal",
    "WireDecimal",
    "data_object",
    "name_list",
    "parse_with",
    "refuse",
]

T = TypeVar("T")


def refuse(field: str, message: str, value: Any = None) -> ValidationError:
    """A ``ValidationError`` located at ``field`` (pydantic keeps the location when nested)."""
    detail = InitErrorDetails(
        type=PydanticCustomError("request_rule", message), loc=(field,), input=value
    )
    return ValidationError.from_exception_data("request", [detail])


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise PydanticCustomError("naive_time", "a time must carry its timezone")
    return value


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


Instant = Annotated[
    datetime, AfterValidator(_aware), PlainSerializer(_iso, return_type=str, when_used="always")
]


def _decimal_in(value: object) -> Decimal:
    # Binary floats would carry noise into an amount (so only these types), and a bool is
    # an int that is not a number.
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise PydanticCustomError("decimal", "expected a Decimal, an int or a numeric string")
    try:
        parsed = parse_decimal("value", value)
    except DecimalFieldError:
        raise PydanticCustomError("decimal", "not a decimal number") from None
    if parsed is None:
        raise PydanticCustomError("decimal", "an amount must not be empty")
    return parsed


def _optional_decimal_in(value: object) -> Decimal | None:
    return None if value is None else _decimal_in(value)


WireDecimal = Annotated[
    Decimal,
    BeforeValidator(_decimal_in),
    PlainSerializer(to_wire, return_type=str, when_used="always"),
]
OptionalWireDecimal = Annotated[
    Decimal | None,
    BeforeValidator(_optional_decimal_in),
    PlainSerializer(to_wire, return_type=str, when_used="unless-none"),
]


def _whole(value: Decimal) -> Decimal:
    if value != value.to_integral_value():
        raise PydanticCustomError(
            "whole_number", "only whole numbers can be sent for this field (a JSON number)"
        )
    return value


IntegralNumber = Annotated[
    Decimal,
    BeforeValidator(_decimal_in),
    AfterValidator(_whole),
    PlainSerializer(int, return_type=int, when_used="always"),
]

Int32 = Annotated[int, Field(strict=True, ge=-(2**31), le=2**31 - 1)]


def _none_to_empty(value: object) -> object:
    return [] if value is None else value


NullableList = Annotated[list[T], BeforeValidator(_none_to_empty)]


def name_list(field: str, values: Sequence[str]) -> list[str]:
    """``values`` as a list of strings; a bare string (a likely slip) is refused."""
    if isinstance(values, str) or not all(isinstance(value, str) for value in values):
        raise refuse(field, f"{field} must be a list of strings", values)
    return list(values)


def _blank_is_none(value: object) -> object:
    return None if value == "" else value


NextCursor = Annotated[str | None, BeforeValidator(_blank_is_none)]
"""A page's next cursor; ``""`` reads as no next page."""


def data_object(data: Any, *, tool: str) -> dict[str, Any]:
    """``data`` when it is an object; ``ResponseParseError`` otherwise."""
    if not isinstance(data, dict):
        raise ResponseParseError("data: expected an object", tool=tool, field="data")
    return data


def parse_with(adapter: TypeAdapter[T], data: Any, *, tool: str) -> T:
    """``data`` through ``adapter``; a bad field raises ``ResponseParseError`` naming it."""
    try:
        return adapter.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        name = field_name(tuple(first["loc"]))
        raise ResponseParseError(
            f"{name or 'data'}: {first['msg']}", tool=tool, field=name or None
        ) from None
