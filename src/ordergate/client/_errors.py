"""The client's exception tree, rooted in ``ordergate.ToolError``::

    ToolError (ordergate.core)
    ├── TransportError        no answer: connect failure, timeout, reset (the order may be live)
    ├── HTTPStatusError       an HTTP status ≥ 300 (``status``)
    ├── RpcError              a JSON-RPC error object (``rpc_code``)
    ├── BusinessError         the tool answered ``isError: true`` (``code``, ``field``)
    ├── ResponseParseError    an answer that cannot be read, or a field that is not a number
    └── LoginRequired         no usable tokens: run ``ordergate login``
        └── WrongServer       the saved tokens were issued for another server (``_servers``)

A rejection, "insufficient buying power" or any other business failure is always raised,
never returned as a normal result. Every error names the tool (``tool``) when there is one,
and none ever carries a token.
"""

from __future__ import annotations

from ordergate.core import ToolError, command_hint

__all__ = [
    "BusinessError",
    "HTTPStatusError",
    "LoginRequired",
    "ResponseParseError",
    "RpcError",
    "ToolError",
    "TransportError",
]


class TransportError(ToolError):
    """The request got no answer. For an order this means *unanswered*, not refused."""

    code = "transport"


class HTTPStatusError(ToolError):
    code = "http_status"

    def __init__(self, message: str, *, tool: str | None = None, status: int) -> None:
        self.status = status
        super().__init__(message, tool=tool)


class RpcError(ToolError):
    code = "jsonrpc"

    def __init__(self, message: str, *, tool: str | None = None, rpc_code: int) -> None:
        self.rpc_code = rpc_code
        super().__init__(message, tool=tool)


class BusinessError(ToolError):
    """The venue refused: ``code`` is its reason (``INSUFFICIENT_BUYING_POWER``, …)."""

    def __init__(
        self, message: str, *, tool: str | None = None, code: str, field: str | None = None
    ) -> None:
        self.field = field
        super().__init__(message, tool=tool, code=code)


class ResponseParseError(ToolError):
    code = "parse"

    def __init__(self, message: str, *, tool: str | None = None, field: str | None = None) -> None:
        self.field = field
        super().__init__(message, tool=tool)


class LoginRequired(ToolError):
    code = "login_required"

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason}; run `{command_hint('login')}` to sign in to Robinhood")
