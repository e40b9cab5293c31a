"""The policy package's one exception of its own (``ConfigError`` comes from ``ordergate.core``)."""

from __future__ import annotations

from ordergate.core import OrdergateError

__all__ = ["ProposalError"]


class ProposalError(OrdergateError, ValueError):
    """A proposal the order path cannot name (``field`` says which part, ``reason`` why)."""

    code = "invalid_proposal"

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")
