"""Decimal rules for every money, price and quantity field on the wire.

- absent, JSON ``null`` or ``""`` → absent: ``None`` for optional fields, zero for required;
- ``0``, ``"0"``, ``"0.0"`` → zero;
- a number or numeric string → its exact value (ints and numeric strings parse exactly);
- anything else present (``"n/a"``, an object, a bool, an array, NaN, Infinity) →
  ``DecimalFieldError`` naming the field. Never silently zero, never silently ``None``.

Values go back on the wire as canonical decimal strings (``to_wire``): plain notation,
no exponent, no trailing fractional zeros beyond what the value's quantum keeps.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from ordergate.core._errors import DecimalFieldError

__all__ = ["ZERO", "optional_decimal", "parse_decimal", "required_decimal", "to_wire"]

ZERO = Decimal(0)


def _is_absent(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def parse_decimal(field: str, value: object) -> Decimal | None:
    """Parse one wire value; ``None`` when absent, ``DecimalFieldError`` when unparseable."""
    if _is_absent(value):
        return None
    # bool is an int subclass: True must not become 1.
    if isinstance(value, bool):
        raise DecimalFieldError(field, value)
    if isinstance(value, Decimal):
        parsed = value
    elif isinstance(value, int):
        parsed = Decimal(value)
    elif isinstance(value, str):
        try:
            parsed = Decimal(value.strip())
        except InvalidOperation:
            raise DecimalFieldError(field, value) from None
    elif isinstance(value, float):
        # JSON numbers may arrive as binary floats; repr gives the shortest round-tripping text.
        try:
            parsed = Decimal(repr(value))
        except InvalidOperation:
            raise DecimalFieldError(field, value) from None
    else:
        raise DecimalFieldError(field, value)
    if not parsed.is_finite():
        raise DecimalFieldError(field, value)
    return parsed


def optional_decimal(field: str, value: object) -> Decimal | None:
    """An optional field: absent → ``None``."""
    return parse_decimal(field, value)


def required_decimal(field: str, value: object) -> Decimal:
    """A required field: absent → zero (the wire's way of saying "none yet")."""
    parsed = parse_decimal(field, value)
    return ZERO if parsed is None else parsed


def to_wire(value: Decimal) -> str:
    """Canonical decimal string: plain notation, never an exponent, ``-0`` as ``0``."""
    if not value.is_finite():
        raise ValueError("only finite decimals go on the wire")
    if value.is_zero():
        exponent = value.as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return "0" if places == 0 else "0." + "0" * places
    return format(value, "f")
