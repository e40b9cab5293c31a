"""The root of ordergate's exception tree.

Every error ordergate raises derives from ``OrdergateError``::

    OrdergateError
    ├── DecimalFieldError        a money/price/quantity field present but unparseable
    ├── ConfigError              a bad setting, file or flag, naming the key
    └── ToolError                anything that went wrong calling a Robinhood tool
        (subclassed by the client: transport, HTTP status, JSON-RPC, business, parse)

Each exception carries context (the field, the tool, the reason code) as attributes so
callers assert on codes, never on message text.
"""

from __future__ import annotations

__all__ = ["ConfigError", "DecimalFieldError", "OrdergateError", "ToolError"]


class OrdergateError(Exception):
    """Root of every exception ordergate raises."""

    code: str = "ordergate_error"


class DecimalFieldError(OrdergateError, ValueError):
    """A money, price or quantity field is present but is not a finite decimal number."""

    code = "invalid_decimal"

    def __init__(self, field: str, value: object) -> None:
        self.field = field
        self.value_type = type(value).__name__
        super().__init__(
            f"{field}: expected a decimal number or numeric string, got {self.value_type}"
        )


class ConfigError(OrdergateError, ValueError):
    """A configuration value is invalid; ``key`` names it."""

    code = "invalid_config"

    def __init__(self, key: str, reason: str) -> None:
        self.key = key
        self.reason = reason
        super().__init__(f"{key}: {reason}")


class ToolError(OrdergateError):
    """A Robinhood tool call failed; ``tool`` names it when known."""

    code = "tool_error"

    def __init__(self, message: str, *, tool: str | None = None, code: str | None = None) -> None:
        self.tool = tool
        if code is not None:
            self.code = code
        super().__init__(message)
