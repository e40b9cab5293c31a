"""Base models for typed requests and responses, with the Decimal rules built in.

- ``Money`` / ``OptionalMoney``: a wire amount (string or number in) parsed by
  ``ordergate.core.parse_decimal``; unparseable is an error naming the field, never zero.
- ``WireModel``: a response object. Unknown keys are kept (``model_extra``), so nothing the
  venue adds is lost; a bad field raises ``ResponseParseError`` naming it.
- ``RequestModel``: a request. Unknown fields are refused; ``arguments()`` gives the wire
  arguments with Decimals as canonical strings and unset optional fields omitted.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer, ValidationError
from pydantic_core import PydanticCustomError

from ordergate.client._errors import ResponseParseError
from ordergate.core import DecimalFieldError, parse_decimal, to_wire

__all__ = [
    "Money",
    "OptionalMoney",
    "RequestModel",
    "WireModel",
    "field_name",
    "parse_model",
]

M = TypeVar("M", bound=BaseModel)


def _optional(value: object) -> Decimal | None:
    try:
        return parse_decimal("value", value)
    except DecimalFieldError:
        raise PydanticCustomError("decimal", "not a decimal number") from None


def _required(value: object) -> Decimal:
    parsed = _optional(value)
    return Decimal(0) if parsed is None else parsed


_wire = PlainSerializer(to_wire, return_type=str, when_used="always")

Money = Annotated[Decimal, BeforeValidator(_required), _wire]
"""A required amount: absent, ``null`` or ``""`` → zero."""

OptionalMoney = Annotated[Decimal | None, BeforeValidator(_optional), _wire]
"""An optional amount: absent, ``null`` or ``""`` → ``None``."""


def field_name(loc: tuple[int | str, ...]) -> str:
    """``("orders", 0, "price")`` → ``"orders[0].price"``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


class WireModel(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


class RequestModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def arguments(self) -> dict[str, Any]:
        """Wire arguments: Decimals as strings, enums as values, unset optional fields omitted."""
        dumped: dict[str, Any] = self.model_dump(mode="json", exclude_none=True, by_alias=True)
        return dumped


def parse_model(model: type[M], data: Any, *, tool: str) -> M:
    """``data`` as ``model``; a bad field raises ``ResponseParseError`` naming it."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        name = field_name(tuple(first["loc"]))
        raise ResponseParseError(
            f"{name or 'data'}: {first['msg']}", tool=tool, field=name or None
        ) from None
