"""Field types shared by the order families (equity, options, crypto).

Requests:

- ``PositiveDecimal``: an amount a caller sends. ``Decimal``, ``int`` or a numeric string
  in; ``float`` and ``bool`` refused (a binary float cannot say "12.30"); must be > 0;
  goes out as a canonical decimal string (``to_wire``).
- ``WholeNumber``: a count ≥ 1 from an ``int`` or an integral decimal/string.
- ``refuse(field, message)``: the ``ValidationError`` a cross-field rule raises, located at
  ``field`` so callers (and tests) can tell which field broke which rule.
- ``wire_time``: an aware ``datetime`` as the ISO-8601 UTC text the filters take.

Responses:

- ``NextCursor``: a page's ``next``; ``""`` reads as no next page.
- ``OptionalTime``: an optional timestamp; ``""`` reads as absent.
- ``NULL_AS_EMPTY``: for arrays the wire types ``["null", "array"]``.
- ``known_or_text(enum)``: a state that is the enum member when known and stays the plain
  wire text when not, so a state Robinhood adds tomorrow never makes an order unreadable.

These live with the equity family, the first of the three, because the package root is
owned elsewhere; options and crypto import them from here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BeforeValidator, PlainSerializer, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from ordergate.core import DecimalFieldError, parse_decimal, to_wire

__all__ = [
    "NULL_AS_EMPTY",
    "NextCursor",
    "OptionalTime",
    "PositiveDecimal",
    "WholeNumber",
    "known_or_text",
    "refuse",
    "wire_time",
]

E = TypeVar("E", bound=StrEnum)


def refuse(field: str | tuple[str | int, ...], message: str, value: Any = None) -> ValidationError:
    """A validation error located at ``field`` (``"limit_price"`` or ``("legs", 1, "side")``)."""
    loc = (field,) if isinstance(field, str) else field
    detail = InitErrorDetails(type=PydanticCustomError("order_rule", message), loc=loc, input=value)
    return ValidationError.from_exception_data("order request", [detail])


def _request_decimal(value: object) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise ValueError("give a Decimal, an int or a numeric string")
    try:
        parsed = parse_decimal("value", value)
    except DecimalFieldError:
        raise ValueError("not a decimal number") from None
    if parsed is None:
        raise ValueError("must not be empty")
    return parsed


def _positive(value: Decimal) -> Decimal:
    if value <= 0:
        raise ValueError("must be greater than zero")
    return value


PositiveDecimal = Annotated[
    Decimal,
    BeforeValidator(_request_decimal),
    AfterValidator(_positive),
    PlainSerializer(to_wire, return_type=str, when_used="always"),
]
"""A request amount: Decimal, int or numeric string; > 0; a canonical string on the wire."""


def _whole(value: object) -> int:
    number = _request_decimal(value)
    if number != number.to_integral_value():
        raise ValueError("must be a whole number")
    if number < 1:
        raise ValueError("must be at least 1")
    return int(number)


WholeNumber = Annotated[int, BeforeValidator(_whole)]
"""A count of at least 1: an int or an integral Decimal or string (never ``1.5``, never bool)."""


def wire_time(field: str, value: datetime) -> str:
    """``value`` as ISO-8601 UTC (``2026-12-01T15:00:00Z``); a naive datetime is refused."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{field} needs a timezone-aware datetime")
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _blank_is_none(value: object) -> object:
    return None if value == "" else value


NextCursor = Annotated[str | None, BeforeValidator(_blank_is_none)]
OptionalTime = Annotated[datetime | None, BeforeValidator(_blank_is_none)]


def _null_is_empty(value: object) -> object:
    return [] if value is None else value


NULL_AS_EMPTY = BeforeValidator(_null_is_empty)


def known_or_text(kind: type[E]) -> Callable[[object], E | str]:
    """A validator: the ``kind`` member spelled ``value``, or ``value`` itself if unknown."""

    def validate(value: object) -> E | str:
        if not isinstance(value, str) or not value:
            raise ValueError("expected a state name")
        try:
            return kind(value)
        except ValueError:
            return value

    return validate
