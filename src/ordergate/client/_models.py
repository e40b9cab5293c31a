"""Base models for typed requests and responses, and reading a tool's ``data`` into them.

- ``WireModel``: a response object. Unknown keys are kept (``model_extra``), so nothing the
  venue adds is lost; a bad field raises ``ResponseParseError`` naming it. Its fields use
  the answer types of ``_decimals`` (amounts) and ``_fields`` (``WireBool`` for every flag).
- ``RequestModel``: a request. Unknown fields are refused; ``arguments()`` gives the wire
  arguments with Decimals as canonical strings and unset optional fields omitted.
- ``parse_model`` / ``parse_with``: ``data`` through a model or a prebuilt ``TypeAdapter``
  (the quotes hot path); ``data_object``, ``parse_list`` and ``parse_member`` for the answers
  whose ``data`` wraps what is wanted.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from ordergate.client._errors import ResponseParseError

__all__ = [
    "RequestModel",
    "WireModel",
    "data_object",
    "field_name",
    "parse_list",
    "parse_member",
    "parse_model",
    "parse_with",
]

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


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


def _unreadable(error: ValidationError, tool: str) -> ResponseParseError:
    first = error.errors()[0]
    name = field_name(tuple(first["loc"]))
    return ResponseParseError(f"{name or 'data'}: {first['msg']}", tool=tool, field=name or None)


def parse_model(model: type[M], data: Any, *, tool: str) -> M:
    """``data`` as ``model``; a bad field raises ``ResponseParseError`` naming it."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise _unreadable(error, tool) from None


def parse_with(adapter: TypeAdapter[T], data: Any, *, tool: str) -> T:
    """``data`` through ``adapter``; a bad field raises ``ResponseParseError`` naming it."""
    try:
        return adapter.validate_python(data)
    except ValidationError as error:
        raise _unreadable(error, tool) from None


def data_object(data: Any, *, tool: str) -> dict[str, Any]:
    """``data`` when it is an object; ``ResponseParseError`` otherwise."""
    if not isinstance(data, dict):
        raise ResponseParseError("data: expected an object", tool=tool, field="data")
    return data


def parse_list(model: type[M], data: Any, key: str, *, tool: str) -> list[M]:
    """The list ``data`` holds under ``key`` (absent or ``null``: empty), each as ``model``."""
    rows = data_object(data, tool=tool).get(key)
    if rows is None:
        return []
    if not isinstance(rows, list):
        raise ResponseParseError(f"{key}: expected a list", tool=tool, field=key)
    return [parse_model(model, row, tool=tool) for row in rows]


def parse_member(model: type[M], data: Any, key: str, *, tool: str) -> M:
    """The object ``data`` holds under ``key``, as ``model``."""
    return parse_model(model, data_object(data, tool=tool).get(key), tool=tool)
