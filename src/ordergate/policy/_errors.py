"""The policy package's one exception of its own (``ConfigError`` comes from ``ordergate.core``)."""

from __future__ import annotations

from ordergate.core import OrdergateError

__all__ = ["ProposalError"]


class ProposalError(OrdergateError, ValueError):
    """A proposal the order path cannot name (``field`` says which part, ``reason`` why).

    ``code`` is ``invalid_proposal`` unless the shape has a code of its own (an option order's
    legs on two underlyings is ``option_legs_mixed_underlyings``)."""

    code = "invalid_proposal"

    def __init__(self, field: str, reason: str, *, code: str | None = None) -> None:
        self.field = field
        self.reason = reason
        if code is not None:
            self.code = code
        super().__init__(f"{field}: {reason}")
