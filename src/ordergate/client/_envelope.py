"""Reading one JSON-RPC answer to ``tools/call``: JSON or one-shot SSE body, result or error.

Robinhood puts ``{data, guide}`` in ``structuredContent`` and a text copy in ``content``;
some answers carry only the text. Business failures are results with ``isError: true`` and
become ``BusinessError`` here, so they can never pass as data.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ordergate.client._errors import BusinessError, ResponseParseError, RpcError
from ordergate.core import decode_json

__all__ = ["decode_body", "result_data", "unwrap_result"]


def _not_json(constant: str) -> Any:
    # NaN, Infinity and -Infinity are Python's extension, not JSON: an answer that carries
    # one is unreadable, never a float that a forwarded read would write back out.
    raise ValueError(f"{constant} is not JSON")


# One for every call, not one a call. Numbers with a fraction or exponent are Decimal.
_DECODER = json.JSONDecoder(parse_float=Decimal, parse_constant=_not_json)


def _loads(text: str | bytes, tool: str | None) -> Any:
    try:
        if isinstance(text, bytes):
            return decode_json(_DECODER, text)
        if text.startswith("\ufeff"):
            raise ValueError("a UTF-8 BOM before the JSON text")
        return _DECODER.decode(text)
    except ValueError:
        raise ResponseParseError("the answer is not JSON", tool=tool) from None


def decode_body(body: bytes, content_type: str, *, tool: str | None) -> dict[str, Any]:
    """The JSON-RPC message in a JSON body or in the ``data:`` lines of one SSE event."""
    if content_type.lower().startswith("text/event-stream"):
        text = body.decode("utf-8", errors="replace")
        events: list[str] = []
        current: list[str] = []
        for line in text.splitlines():
            if line.startswith("data:"):
                current.append(line[5:].removeprefix(" "))
            elif not line and current:
                events.append("\n".join(current))
                current = []
        if current and text.endswith("\n"):
            events.append("\n".join(current))
        for event in events:
            message = _loads(event, tool)
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return message
        raise ResponseParseError("the event stream carried no complete answer", tool=tool)
    message = _loads(body, tool)
    if not isinstance(message, dict):
        raise ResponseParseError("the answer is not a JSON-RPC message", tool=tool)
    return message


def unwrap_result(message: dict[str, Any], *, tool: str) -> Any:
    """The ``data`` of a successful call; raises for JSON-RPC errors and ``isError`` results."""
    if "error" in message:
        error = message["error"]
        if not isinstance(error, dict):
            raise ResponseParseError("malformed JSON-RPC error", tool=tool)
        rpc_code = error.get("code")
        raise RpcError(
            str(error.get("message", "JSON-RPC error")),
            tool=tool,
            rpc_code=rpc_code if isinstance(rpc_code, int) else 0,
        )
    result = message.get("result")
    if not isinstance(result, dict):
        raise ResponseParseError("the answer has no result", tool=tool)
    payload = result.get("structuredContent")
    if payload is None:
        payload = _text_payload(result, tool)
    if result.get("isError") is True:
        raise _business_error(payload, result, tool)
    if result.get("isError") not in (None, False):
        raise ResponseParseError("isError is not a boolean", tool=tool)
    if not isinstance(payload, dict) or "data" not in payload:
        raise ResponseParseError("the result has no data envelope", tool=tool)
    return payload["data"]


def result_data(result: dict[str, Any], *, tool: str) -> Any:
    """The ``data`` of a ``tools/call`` result (a ``CallToolResult`` as a dict), raising as
    a call over the wire does: a simulator's answer reads exactly as the venue's."""
    return unwrap_result({"result": result}, tool=tool)


def _text_payload(result: dict[str, Any], tool: str) -> Any:
    for item in result.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text":
            text = item.get("text")
            if isinstance(text, str):
                try:
                    return _DECODER.decode(text)
                except ValueError:
                    return {"error": {"message": text}}
    return None


def _business_error(payload: Any, result: dict[str, Any], tool: str) -> BusinessError:
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code") or "TOOL_ERROR")
        message = str(error.get("message") or code)
        field = error.get("field")
        return BusinessError(
            message, tool=tool, code=code, field=field if isinstance(field, str) else None
        )
    text = next(
        (
            item.get("text")
            for item in result.get("content") or []
            if isinstance(item, dict) and isinstance(item.get("text"), str)
        ),
        "the tool reported a failure",
    )
    return BusinessError(str(text), tool=tool, code="TOOL_ERROR")
