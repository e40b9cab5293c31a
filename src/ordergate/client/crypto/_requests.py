"""``CryptoOrderRequest``: the terms of one crypto order, checked before anything is sent.

Rules (reference README "Other families"), each refusal a ``ValidationError`` located at
the field at fault:

- exactly one of ``quantity`` (units of the asset) and ``dollar_amount`` (neither →
  ``quantity``; both → ``dollar_amount``); ``dollar_amount`` only with ``market``;
- ``limit_price`` required for ``limit`` and ``stop_limit``, refused for the others;
  ``stop_price`` required for ``stop_loss`` and ``stop_limit``, refused for the others;
- every amount > 0.

Tax-lot selection is not offered for crypto (the field is refused as unknown). ``ref_id``
is the idempotency key, a fresh UUID unless given; a preview sends the terms without it.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from pydantic import Field, field_serializer, model_validator

from ordergate.client._models import RequestModel
from ordergate.client.equity._wire import PositiveDecimal, refuse
from ordergate.core import CryptoOrderType, CryptoTimeInForce, Side

__all__ = ["CryptoOrderRequest"]

_LIMIT_TYPES = frozenset({CryptoOrderType.LIMIT, CryptoOrderType.STOP_LIMIT})
_STOP_TYPES = frozenset({CryptoOrderType.STOP_LOSS, CryptoOrderType.STOP_LIMIT})


class CryptoOrderRequest(RequestModel):
    rhs_account_number: str = Field(min_length=1)
    symbol: str = Field(min_length=1)
    side: Side
    type: CryptoOrderType
    quantity: PositiveDecimal | None = None
    dollar_amount: PositiveDecimal | None = None
    limit_price: PositiveDecimal | None = None
    stop_price: PositiveDecimal | None = None
    time_in_force: CryptoTimeInForce | None = None
    ref_id: UUID = Field(default_factory=uuid4)

    @field_serializer("ref_id")
    def _ref_text(self, value: UUID) -> str:
        return str(value)

    @model_validator(mode="after")
    def _rules(self) -> CryptoOrderRequest:
        if self.quantity is None and self.dollar_amount is None:
            raise refuse("quantity", "give exactly one of quantity or dollar_amount")
        if self.quantity is not None and self.dollar_amount is not None:
            raise refuse("dollar_amount", "give exactly one of quantity or dollar_amount")
        if self.dollar_amount is not None and self.type is not CryptoOrderType.MARKET:
            raise refuse("dollar_amount", "dollar_amount is only for market orders")
        for field, needed, value in (
            ("limit_price", self.type in _LIMIT_TYPES, self.limit_price),
            ("stop_price", self.type in _STOP_TYPES, self.stop_price),
        ):
            if needed and value is None:
                raise refuse(field, f"{field} is required for {self.type} orders")
            if not needed and value is not None:
                raise refuse(field, f"{field} does not apply to {self.type} orders", str(value))
        return self

    def preview_arguments(self) -> dict[str, Any]:
        """The arguments of ``preview_crypto_order``: the terms, without ``ref_id``."""
        arguments = self.arguments()
        del arguments["ref_id"]
        return arguments
