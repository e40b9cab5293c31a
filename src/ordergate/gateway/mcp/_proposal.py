"""A call to the equity order tool, read as a ``Proposal`` of the filing's own fields only.

The gateway forwards what it files and nothing else. The fields a filing names are the
order's symbol, side, quantity or dollar amount, type, limit and stop prices, time in force,
session and account, under the names the tool's schema gives them (``quantity``,
``dollar_amount``, ``limit_price`` …). ``ref_id`` is the agent's own key for the order (a
UUID, the same one on a retry: ``agent_key``): the guard files it beside the filing and a
retry under it answers the first filing; the venue's ``ref_id`` is still the filing's id. Any
other argument — a tax-lot pick, a second instrument — is refused before anything is filed,
naming the argument. So are a value that is not what its field takes and
a field the tool requires that the gateway cannot file, and a symbol or account with space or
a control character around it (refused, never stripped). Nothing is defaulted that changes
what is bought: a missing type, quantity or price refuses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any
from uuid import UUID

from ordergate.core import DecimalFieldError, MarketHours, OrderType, Side, TimeInForce
from ordergate.core import parse_decimal as _parse_decimal
from ordergate.discovery import canonical_of, property_for
from ordergate.policy import Proposal, ProposalError, is_padded

__all__ = [
    "AGENT_KEY",
    "FILED_FIELDS",
    "NotFiled",
    "agent_key",
    "filed_properties",
    "proposal_from_arguments",
    "shown_name",
]

FILED_FIELDS: tuple[str, ...] = (
    "symbol",
    "side",
    "quantity",
    "notional",
    "type",
    "limit",
    "stop",
    "time_in_force",
    "session",
    "account",
)
"""The canonical fields (``ordergate.discovery.SYNONYMS``) a filing names."""

_ENUMS: dict[str, type[StrEnum]] = {
    "side": Side,
    "type": OrderType,
    "time_in_force": TimeInForce,
    "session": MarketHours,
}
_AMOUNTS = ("quantity", "notional", "limit", "stop")
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]{0,63}")

AGENT_KEY = "ref_id"
"""The argument that carries the agent's own key for the order (the venue's name for it)."""
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


class NotFiled(Exception):
    """The call cannot become a filing: nothing was filed or sent. ``message`` is a fixed
    sentence for the agent (it names an argument only when the name is a plain word)."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(message)


def shown_name(name: str) -> str:
    """``name`` quoted when it is a plain word; otherwise words that do not repeat it."""
    return f"`{name}`" if _PLAIN_NAME.fullmatch(name) else "an argument with an unreadable name"


def filed_properties(schema: Mapping[str, Any]) -> dict[str, str]:
    """The schema's property for each filed field it has: ``{"dollar_amount": "notional", …}``."""
    found: dict[str, str] = {}
    for field in FILED_FIELDS:
        name = property_for(field, schema)
        if name is not None:
            found[name] = field
    return found


def _listing(properties: Mapping[str, str]) -> str:
    return ", ".join(properties) or "none"


def _value(field: str, name: str, value: object) -> object:
    if field in _AMOUNTS:
        try:
            return _parse_decimal(field, value)
        except DecimalFieldError:
            raise NotFiled(
                "INVALID_ARGUMENT",
                f"{shown_name(name)} must be a decimal number. Nothing was filed.",
            ) from None
    if field in _ENUMS:
        kind = _ENUMS[field]
        try:
            if not isinstance(value, str):
                raise ValueError(field)
            return kind(value)
        except ValueError:
            choices = ", ".join(member.value for member in kind)
            raise NotFiled(
                "INVALID_ARGUMENT",
                f"{shown_name(name)} must be one of {choices}. Nothing was filed.",
            ) from None
    if not isinstance(value, str) or not value.strip():
        raise NotFiled("INVALID_ARGUMENT", f"{shown_name(name)} must be text. Nothing was filed.")
    if is_padded(value):
        # Never stripped: " AAPL" or "AAPL\u00a0" is not quietly filed as AAPL.
        raise NotFiled(
            "INVALID_ARGUMENT",
            f"{shown_name(name)} must not have space or a control character around it. Nothing "
            "was filed.",
        )
    return value


def agent_key(arguments: Mapping[str, Any]) -> UUID | None:
    """The agent's key for the order (``ref_id``: a UUID in its 8-4-4-4-12 form, any case);
    ``None`` when absent; ``NotFiled`` when it is anything else."""
    value = arguments.get(AGENT_KEY)
    if value is None:
        return None
    if not isinstance(value, str) or not _UUID.fullmatch(value):
        raise NotFiled(
            "INVALID_ARGUMENT",
            f"`{AGENT_KEY}` must be a UUID (a fresh one per order, the same one on a retry). "
            "Nothing was filed.",
        )
    return UUID(value)


def proposal_from_arguments(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> Proposal:
    """The ``Proposal`` these arguments describe (``ref_id`` aside: see ``agent_key``);
    ``NotFiled`` when they name anything a filing cannot, or do not describe an order."""
    properties = filed_properties(schema)
    for name in arguments:
        if name not in properties and name != AGENT_KEY:
            raise NotFiled(
                "ARGUMENT_NOT_FILED",
                f"The gateway sends only the fields it files ({_listing(properties)}); "
                f"{shown_name(name)} is not one of them, so nothing was filed or sent.",
            )
    required = schema.get("required")
    for name in required if isinstance(required, list) else ():
        if name == AGENT_KEY:
            continue  # the gateway sends the filing's id as the venue's ref_id
        if not isinstance(name, str) or name not in properties:
            shown = shown_name(name) if isinstance(name, str) else "a field"
            raise NotFiled(
                "TOOL_NOT_FILEABLE",
                f"The order tool requires {shown}, which the gateway cannot file, so nothing "
                "was filed or sent.",
            )
        if arguments.get(name) is None:
            raise NotFiled(
                "MISSING_ARGUMENT", f"{shown_name(name)} is required. Nothing was filed."
            )
    values = {
        properties[name]: _value(properties[name], name, value)
        for name, value in arguments.items()
        if value is not None and name != AGENT_KEY
    }
    if "type" not in values:
        raise NotFiled("MISSING_ARGUMENT", "The order's type is required. Nothing was filed.")
    if "symbol" not in values or "side" not in values:
        raise NotFiled(
            "MISSING_ARGUMENT", "The order's symbol and side are required. Nothing was filed."
        )
    terms: dict[str, Any] = {
        "symbol": values["symbol"],
        "side": values["side"],
        "quantity": values.get("quantity"),
        "notional": values.get("notional"),
        "order_type": values["type"],
        "limit_price": values.get("limit"),
        "stop_price": values.get("stop"),
        "account": values.get("account"),
    }
    if "time_in_force" in values:
        terms["time_in_force"] = values["time_in_force"]
    if "session" in values:
        terms["market_hours"] = values["session"]
    try:
        return Proposal(**terms)
    except ProposalError as error:
        raise NotFiled(
            "INVALID_ORDER",
            f"The order cannot be filed ({_field_name(error.field, properties)}: "
            f"{error.reason}). Nothing was filed or sent.",
        ) from None


def _field_name(field: str, properties: Mapping[str, str]) -> str:
    """The schema's name for the ``Proposal`` field a ``ProposalError`` names."""
    canonical = {"order_type": "type", "limit_price": "limit", "stop_price": "stop"}.get(
        field, canonical_of(field) or field
    )
    for name, filed in properties.items():
        if filed == canonical:
            return name
    return field
