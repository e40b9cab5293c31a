"""Tool results in Robinhood's envelope: ``{data, guide}`` in ``structuredContent`` and the
same JSON as text content; a refusal is ``{error: {code, message}}`` with ``isError: true``.

``encoded_tool_result`` writes the same result as JSON once (``EncodedResult``): the payload
is encoded one time and put both as the text and as the structured content, and the endpoint
puts the result in its message as it is — where ``tool_result``'s dict is encoded whole by the
endpoint, the payload in it twice. The bytes are those the dict would encode to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any

from ordergate.mcpserve._json import dumps_decimal_strings, loads_json

__all__ = [
    "Asking",
    "EncodedResult",
    "Result",
    "encoded_tool_result",
    "error_result",
    "tool_result",
]

Dumps = Callable[[Any], bytes]


@dataclass(frozen=True, slots=True)
class EncodedResult:
    """A result already written as compact JSON: ``json``, the bytes of the result object,
    which the endpoint sends inside its message unchanged."""

    json: bytes

    def decoded(self) -> dict[str, Any]:
        """The result as the dict it encodes (``Decimal`` numbers)."""
        value: dict[str, Any] = loads_json(self.json)
        return value


Result = dict[str, Any] | EncodedResult
"""What a server's method answers a request with."""


class Asking(dict[str, Any]):
    """A result that first asks the client something (a handshake-era server's requests to
    the client, such as ``elicitation/create``): the transport sends ``requests`` on the
    answer's SSE stream before the result, to a client that takes SSE (to any other, the
    result alone). The client's answers come back as its own POSTs, and are accepted."""

    def __init__(self, result: dict[str, Any], requests: tuple[dict[str, Any], ...]) -> None:
        super().__init__(result)
        self.requests = requests


def tool_result(
    payload: dict[str, Any], *, is_error: bool, dumps: Dumps = dumps_decimal_strings
) -> dict[str, Any]:
    """A ``CallToolResult`` carrying ``payload`` as structured content and as text."""
    return {
        "content": [{"type": "text", "text": dumps(payload).decode()}],
        "structuredContent": payload,
        "isError": is_error,
    }


def encoded_tool_result(
    payload: dict[str, Any], *, is_error: bool, dumps: Dumps = dumps_decimal_strings
) -> EncodedResult:
    """``tool_result(payload, …)`` as the endpoint would encode it, the payload encoded once."""
    text = dumps(payload)
    quoted = encode_basestring_ascii(text.decode()).encode()
    flag = b"true" if is_error else b"false"
    return EncodedResult(
        b'{"content":[{"type":"text","text":%b}],"structuredContent":%b,"isError":%b}'
        % (quoted, text, flag)
    )


def error_result(
    code: str, message: str, *, dumps: Dumps = dumps_decimal_strings
) -> dict[str, Any]:
    """A refusal: ``{"error": {"code": code, "message": message}}`` with ``isError: true``."""
    return tool_result({"error": {"code": code, "message": message}}, is_error=True, dumps=dumps)
