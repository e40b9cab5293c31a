"""Checks for the rules Robinhood states only in prose: allowed values, limits, formats.

The captured input schemas carry no ``enum``, ``default`` or ``format`` keywords, so the
schema validator lets ``side="hold"`` or ``limit=-3`` through; these helpers refuse them with
``INVALID_ARGUMENT`` naming the argument, the way the live server does.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from ordergate.core import DecimalFieldError, parse_decimal
from ordergate.sandbox.tools._registry import VenueError

__all__ = [
    "choice",
    "invalid",
    "iso_date",
    "iso_instant",
    "optional_positive",
    "page_size",
    "positive_decimal",
    "present",
    "symbol_list",
    "text",
    "uuid_text",
]


def invalid(field: str, message: str) -> VenueError:
    return VenueError("INVALID_ARGUMENT", message, field=field)


def present(args: dict[str, Any], field: str) -> bool:
    """True when the argument was given with a value (``null`` and ``""`` count as absent)."""
    value = args.get(field)
    return value is not None and value != ""


def choice(
    args: dict[str, Any], field: str, allowed: Collection[str], default: str | None = None
) -> str | None:
    """The argument lower-cased, when it is one of ``allowed``; ``default`` when absent."""
    if not present(args, field):
        return default
    value = str(args[field]).strip().lower()
    if value not in allowed:
        raise invalid(field, f"{field} must be one of: {', '.join(sorted(allowed))}")
    return value


def text(
    args: dict[str, Any], field: str, *, max_length: int, required: bool = False
) -> str | None:
    """A trimmed string of at most ``max_length`` characters; empty is refused when required."""
    if not present(args, field):
        if required:
            raise invalid(field, f"{field} must not be empty")
        return None
    value = str(args[field]).strip()
    if not value and required:
        raise invalid(field, f"{field} must not be empty")
    if len(value) > max_length:
        raise invalid(field, f"{field} must be at most {max_length} characters")
    return value


def optional_positive(args: dict[str, Any], field: str) -> Decimal | None:
    """A decimal string greater than zero, or ``None`` when absent."""
    try:
        value = parse_decimal(field, args.get(field))
    except DecimalFieldError:
        raise invalid(field, f"{field} must be a decimal number") from None
    if value is not None and value <= 0:
        raise invalid(field, f"{field} must be greater than zero")
    return value


def positive_decimal(args: dict[str, Any], field: str) -> Decimal:
    """A required decimal string greater than zero."""
    value = optional_positive(args, field)
    if value is None:
        raise invalid(field, f"{field} is required")
    return value


def page_size(args: dict[str, Any], field: str, *, default: int, maximum: int) -> int:
    """A whole number from 1 to ``maximum``; ``default`` when absent."""
    value = args.get(field)
    if value is None:
        return default
    if not 1 <= value <= maximum:
        raise invalid(field, f"{field} must be between 1 and {maximum}")
    # JSON Schema counts 14.0 as an integer; slicing and ranges need a real int.
    return int(value)


def uuid_text(args: dict[str, Any], field: str) -> str:
    """The argument as a canonical lower-case UUID string."""
    try:
        return str(uuid.UUID(str(args.get(field, ""))))
    except ValueError:
        raise invalid(field, f"{field} must be a UUID") from None


def iso_instant(args: dict[str, Any], field: str) -> datetime | None:
    """An ISO 8601 timestamp (a bare date means its UTC midnight); naive times are read as UTC."""
    if not present(args, field):
        return None
    raw = str(args[field]).strip()
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise invalid(field, f"{field} must be an ISO 8601 timestamp") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def iso_date(args: dict[str, Any], field: str) -> date | None:
    """An ISO 8601 calendar date (``YYYY-MM-DD``)."""
    if not present(args, field):
        return None
    try:
        return date.fromisoformat(str(args[field]).strip())
    except ValueError:
        raise invalid(field, f"{field} must be a date as YYYY-MM-DD") from None


def symbol_list(
    args: dict[str, Any], field: str, *, maximum: int, required: bool = True
) -> list[str]:
    """Upper-cased, de-duplicated symbols in the order given; empty or too many are refused."""
    raw = args.get(field) or []
    symbols: list[str] = []
    for item in raw:
        symbol = str(item).strip().upper()
        if not symbol:
            raise invalid(field, f"{field} must not contain empty symbols")
        if symbol not in symbols:
            symbols.append(symbol)
    if required and not symbols:
        raise invalid(field, f"{field} must name at least one symbol")
    if len(symbols) > maximum:
        raise invalid(field, f"{field} takes at most {maximum} symbols")
    return symbols
