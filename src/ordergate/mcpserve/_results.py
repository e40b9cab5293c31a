"""Tool results in Robinhood's envelope: ``{data, guide}`` in ``structuredContent`` and the
same JSON as text content; a refusal is ``{error: {code, message}}`` with ``isError: true``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ordergate.mcpserve._json import dumps_decimal_strings

__all__ = ["error_result", "tool_result"]

Dumps = Callable[[Any], bytes]


def tool_result(
    payload: dict[str, Any], *, is_error: bool, dumps: Dumps = dumps_decimal_strings
) -> dict[str, Any]:
    """A ``CallToolResult`` carrying ``payload`` as structured content and as text."""
    return {
        "content": [{"type": "text", "text": dumps(payload).decode()}],
        "structuredContent": payload,
        "isError": is_error,
    }


def error_result(
    code: str, message: str, *, dumps: Dumps = dumps_decimal_strings
) -> dict[str, Any]:
    """A refusal: ``{"error": {"code": code, "message": message}}`` with ``isError: true``."""
    return tool_result({"error": {"code": code, "message": message}}, is_error=True, dumps=dumps)
