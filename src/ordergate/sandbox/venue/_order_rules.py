"""Request rules the equity and crypto desks (and, for ``ref_id``, every desk) state alike.

Each refusal is ``INVALID_ARGUMENT`` naming the argument at fault, in the same words on every
desk. The rules that differ per asset class (ticks, increments, sessions, sizes, legs) stay in
``_equity_rules``, ``_crypto_rules`` and ``_options_rules``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from enum import StrEnum
from typing import Any, TypeVar

from ordergate.core import DecimalFieldError, parse_decimal
from ordergate.sandbox.tools._registry import VenueError

__all__ = [
    "check_dollar_amount",
    "check_price_fields",
    "invalid",
    "parse_enum",
    "positive_decimal",
    "quantity_or_dollar_amount",
    "ref_id_of",
]

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_CENT = Decimal("0.01")
_MIN_DOLLAR_AMOUNT = Decimal(1)

_E = TypeVar("_E", bound=StrEnum)


def invalid(field: str, message: str) -> VenueError:
    return VenueError("INVALID_ARGUMENT", message, field=field)


def ref_id_of(args: Mapping[str, Any], *, blank_is_absent: bool = True) -> str | None:
    """The request's ``ref_id``; ``None`` when absent; ``INVALID_ARGUMENT`` unless a UUID.

    ``blank_is_absent=False`` refuses an empty ``ref_id`` instead (the equity desk does).
    """
    ref_id = args.get("ref_id")
    if ref_id is None or (blank_is_absent and ref_id == ""):
        return None
    text = str(ref_id)
    if not _UUID.match(text):
        raise invalid("ref_id", "ref_id must be a UUID")
    return text


def parse_enum(kind: type[_E], field: str, value: object, default: _E | None = None) -> _E:
    """The enum member spelled ``value``; absent (or empty) → ``default``; else refused."""
    if (value is None or value == "") and default is not None:
        return default
    try:
        return kind(str(value))
    except ValueError:
        allowed = " | ".join(member.value for member in kind)
        raise invalid(field, f"{field} must be one of {allowed}") from None


def positive_decimal(field: str, value: object) -> Decimal | None:
    """A positive decimal string, ``None`` when absent; unparseable or ≤ 0 is refused."""
    try:
        parsed = parse_decimal(field, value)
    except DecimalFieldError:
        raise invalid(field, f"{field} must be a decimal number") from None
    if parsed is not None and parsed <= 0:
        raise invalid(field, f"{field} must be greater than zero")
    return parsed


def quantity_or_dollar_amount(args: Mapping[str, Any]) -> tuple[Decimal | None, Decimal | None]:
    """``(quantity, dollar_amount)``: exactly one of them given, and positive."""
    quantity = positive_decimal("quantity", args.get("quantity"))
    dollar_amount = positive_decimal("dollar_amount", args.get("dollar_amount"))
    if (quantity is None) == (dollar_amount is None):
        raise invalid("quantity", "give exactly one of quantity or dollar_amount")
    return quantity, dollar_amount


def check_price_fields(
    order_type: StrEnum,
    *,
    needs_limit: bool,
    needs_stop: bool,
    limit_price: Decimal | None,
    stop_price: Decimal | None,
) -> None:
    """A ``limit_price`` exactly where the type needs one, a ``stop_price`` likewise."""
    if needs_limit and limit_price is None:
        raise invalid("limit_price", f"limit_price is required for {order_type}")
    if not needs_limit and limit_price is not None:
        raise invalid("limit_price", f"limit_price does not apply to {order_type}")
    if needs_stop and stop_price is None:
        raise invalid("stop_price", f"stop_price is required for {order_type}")
    if not needs_stop and stop_price is not None:
        raise invalid("stop_price", f"stop_price does not apply to {order_type}")


def check_dollar_amount(dollar_amount: Decimal, *, market: bool) -> None:
    """Dollar amounts are for market orders only, in whole cents, at least 1.00."""
    if not market:
        raise invalid("dollar_amount", "dollar_amount is only for market orders")
    if dollar_amount % _CENT != 0 or dollar_amount < _MIN_DOLLAR_AMOUNT:
        raise invalid("dollar_amount", "dollar_amount must be whole cents and at least 1.00")
