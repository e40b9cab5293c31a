"""Field types of requests and answers other than amounts (those are in ``_decimals``).

Requests:

- ``refuse(field, message, value)``: a cross-field rule's failure as a ``ValidationError``
  located at ``field`` (``"limit_price"`` or ``("legs", 1, "side")``), so callers and tests
  can tell which field broke which rule; pydantic keeps the location when nested.
- ``name_list(field, values)``: a list of names for the wire; a bare string (a likely slip)
  is refused.
- ``StrictInt`` / ``Int32``: an ``int`` (never a bool or a numeric string), the second within
  the schemas' 32-bit bounds.
- ``Instant``: a timezone-aware ``datetime``, sent as ``iso_utc`` text; a naive time is
  refused rather than guessed.
- ``iso_utc(value)``: ISO 8601 UTC text (``2026-12-01T15:00:00Z``), the one time format the
  tools take.

Answers:

- ``WireBool``: a real JSON boolean. ``"true"``, ``"false"``, ``1`` and ``0`` are refused,
  never read as a truth value: a flag such as ``agentic_allowed`` must fail closed.
- ``NextCursor``: a page's next cursor (``""`` → ``None``).
- ``OptionalTime``: an optional timestamp (``""`` → ``None``).
- ``NullableList[T]``: a ``["null", "array"]`` field read as a list (``null`` → empty).
- ``known_or_text(enum)``: a validator for a state that is the enum member when known and
  stays the plain wire text when not, so a state Robinhood adds tomorrow never makes an
  order unreadable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    PlainSerializer,
    Strict,
    ValidationError,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

__all__ = [
    "Instant",
    "Int32",
    "NextCursor",
    "NullableList",
    "OptionalTime",
    "StrictInt",
    "WireBool",
    "is_aware",
    "iso_utc",
    "known_or_text",
    "name_list",
    "refuse",
]

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)


# -- requests --------------------------------------------------------------------------------


def refuse(field: str | tuple[str | int, ...], message: str, value: Any = None) -> ValidationError:
    """A ``ValidationError`` located at ``field``, for a rule pydantic cannot state."""
    loc = (field,) if isinstance(field, str) else field
    detail = InitErrorDetails(
        type=PydanticCustomError("request_rule", message), loc=loc, input=value
    )
    return ValidationError.from_exception_data("request", [detail])


def name_list(field: str, values: Sequence[str]) -> list[str]:
    """``values`` as a list of strings; a bare string (a likely slip) is refused."""
    if isinstance(values, str) or not all(isinstance(value, str) for value in values):
        raise refuse(field, f"{field} must be a list of strings", values)
    return list(values)


StrictInt = Annotated[int, Strict()]
Int32 = Annotated[int, Field(strict=True, ge=-(2**31), le=2**31 - 1)]


def iso_utc(value: datetime) -> str:
    """``value`` (aware) as ISO 8601 UTC: ``2026-12-01T15:00:00Z``."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def is_aware(value: datetime) -> bool:
    """Whether ``value`` carries a timezone (a naive time is never guessed at)."""
    return value.tzinfo is not None and value.utcoffset() is not None


def _aware(value: datetime) -> datetime:
    if not is_aware(value):
        raise PydanticCustomError("naive_time", "a time must carry its timezone")
    return value


Instant = Annotated[
    datetime, AfterValidator(_aware), PlainSerializer(iso_utc, return_type=str, when_used="always")
]


# -- answers ---------------------------------------------------------------------------------

WireBool = Annotated[bool, Strict()]


def _blank_is_none(value: object) -> object:
    return None if value == "" else value


def _null_is_empty(value: object) -> object:
    return [] if value is None else value


NextCursor = Annotated[str | None, BeforeValidator(_blank_is_none)]
OptionalTime = Annotated[datetime | None, BeforeValidator(_blank_is_none)]
NullableList = Annotated[list[T], BeforeValidator(_null_is_empty)]


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
