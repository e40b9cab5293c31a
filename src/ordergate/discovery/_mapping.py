"""Canonical order fields mapped onto whatever property names a tool's input schema advertises.

ordergate speaks of an order in ten canonical fields (``symbol``, ``side``, ``quantity``,
``notional``, ``type``, ``limit``, ``stop``, ``time_in_force``, ``session``, ``account``, plus
``ref_id``); the upstream names them as it likes (``pair``, ``order_type``, ``amount``,
``rhs_account_number``). Each canonical field has a list of synonyms, most usual first; the
first one the schema advertises is the target.

Mapping fails loudly rather than sending a malformed order::

    ToolError (ordergate.core)
    ├── UnsupportedField   a canonical field was given but the schema has no property for it
    └── UnmappedField      a required schema property that no given field maps onto

Values are renamed, never translated: ``type="stop_market"`` stays ``"stop_market"`` (the crypto
family spells it ``stop_loss``; choosing the value is the caller's business). Amounts
(``quantity``, ``notional``, ``limit``, ``stop``) follow the Decimal rules: a canonical
decimal string where the schema types the property as a string (or not at all), an ``int``
where it types it as an integer or number — only a whole value can be a JSON number, since
nothing ordergate sends is a binary float.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import Any

from ordergate.core import DecimalFieldError, ToolError, parse_decimal, to_wire

__all__ = [
    "AMOUNT_FIELDS",
    "CANONICAL_FIELDS",
    "SYNONYMS",
    "UnmappedField",
    "UnsupportedField",
    "canonical_of",
    "map_order",
    "property_for",
]

SYNONYMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "symbol": ("symbol", "pair", "ticker", "currency_pair_id", "currency_pair", "instrument"),
        "side": ("side", "order_side"),
        "quantity": ("quantity", "qty", "asset_quantity", "shares"),
        "notional": ("dollar_amount", "notional", "amount", "quote_amount", "notional_usd"),
        "type": ("type", "order_type"),
        "limit": ("limit_price", "price"),
        "stop": ("stop_price", "trigger_price"),
        "time_in_force": ("time_in_force", "tif"),
        "session": ("market_hours", "session", "trading_session"),
        "account": ("account_number", "rhs_account_number", "account_id", "account"),
        "ref_id": ("ref_id", "client_order_id", "idempotency_key"),
    }
)
CANONICAL_FIELDS: tuple[str, ...] = tuple(SYNONYMS)
AMOUNT_FIELDS: frozenset[str] = frozenset({"quantity", "notional", "limit", "stop"})

_CANONICAL_OF: Mapping[str, str] = MappingProxyType(
    {synonym: field for field, synonyms in SYNONYMS.items() for synonym in synonyms}
)


class UnsupportedField(ToolError):
    """A given field cannot be sent: the schema has no property for it, it is not a canonical
    field, or its value cannot take the type the schema gives the property."""

    code = "unsupported_field"

    def __init__(
        self,
        field: str,
        *,
        tool: str | None = None,
        reason: str = "the tool's schema has no property for this field",
    ) -> None:
        self.field = field
        super().__init__(f"{field}: {reason}", tool=tool)


class UnmappedField(ToolError):
    """A property the schema requires that no given field maps onto.

    ``field`` is the schema's property name; ``canonical`` the canonical field that would
    have filled it, or ``None`` when the property is one ordergate has no name for (an
    unforeseen rename or a new required input).
    """

    code = "unmapped_required_field"

    def __init__(self, field: str, *, canonical: str | None, tool: str | None = None) -> None:
        self.field = field
        self.canonical = canonical
        reason = (
            f"the {canonical} field was not given"
            if canonical
            else "no canonical field maps onto it"
        )
        super().__init__(f"{field}: required by the tool's schema, but {reason}", tool=tool)


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, Mapping) else {}


def _required(schema: Mapping[str, Any]) -> tuple[str, ...]:
    required = schema.get("required")
    if not isinstance(required, list):
        return ()
    return tuple(name for name in required if isinstance(name, str))


def property_for(field: str, schema: Mapping[str, Any]) -> str | None:
    """The property of ``schema`` that canonical ``field`` maps onto, or ``None``."""
    properties = _properties(schema)
    return next((name for name in SYNONYMS.get(field, ()) if name in properties), None)


def canonical_of(property_name: str) -> str | None:
    """The canonical field a schema property name stands for, or ``None``."""
    return _CANONICAL_OF.get(property_name)


def _types(subschema: object) -> frozenset[str]:
    if not isinstance(subschema, Mapping):
        return frozenset()
    declared = subschema.get("type")
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list):
        return frozenset(kind for kind in declared if isinstance(kind, str))
    return frozenset()


def _amount(field: str, value: object, subschema: object, tool: str | None) -> str | int:
    if isinstance(value, float):
        # A binary float cannot say "12.30"; amounts come as Decimal, int or text.
        raise DecimalFieldError(field, value)
    parsed = parse_decimal(field, value)
    if parsed is None:
        raise DecimalFieldError(field, value)
    types = _types(subschema)
    if "string" in types or not types & {"number", "integer"}:
        return to_wire(parsed)
    if parsed != parsed.to_integral_value():
        raise UnsupportedField(
            field, tool=tool, reason="the schema wants a JSON number; only whole values can be one"
        )
    return int(parsed)


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    return value


def map_order(
    fields: Mapping[str, object],
    schema: Mapping[str, Any],
    *,
    extra: Mapping[str, object] | None = None,
    tool: str | None = None,
) -> dict[str, Any]:
    """Wire arguments for ``schema`` from canonical ``fields`` (``None`` values are absent).

    ``extra`` passes arguments the canonical fields do not cover (``tax_lots``, ``legs``)
    under their wire names; each must be a property of the schema.

    Raises ``UnsupportedField`` for a canonical field (or extra) the schema has no property
    for, or an unknown canonical name; ``UnmappedField`` for a required property nothing
    maps onto; ``DecimalFieldError`` for an amount that is not a decimal number.
    """
    properties = _properties(schema)
    wire: dict[str, Any] = {}
    for field, value in fields.items():
        if value is None:
            continue
        # The synonym lists are disjoint, so two fields never land on one property.
        target = property_for(field, schema)
        if target is None:
            raise UnsupportedField(field, tool=tool)
        if field in AMOUNT_FIELDS:
            wire[target] = _amount(field, value, properties[target], tool)
        else:
            wire[target] = _plain(value)
    for name, value in (extra or {}).items():
        if value is None:
            continue
        if name not in properties or name in wire:
            raise UnsupportedField(name, tool=tool)
        wire[name] = _plain(value)
    for name in _required(schema):
        if name not in wire:
            raise UnmappedField(name, canonical=canonical_of(name), tool=tool)
    return wire
