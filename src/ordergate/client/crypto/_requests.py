"""``CryptoOrderRequest``: the terms of one crypto order, checked before anything is sent.

Rules (reference README "Other families"), each refusal a ``ValidationError`` located at
the field at fault:

- exactly one of ``quantity`` (units of the asset) and ``dollar_amount`` (neither →
  ``quantity``; both → ``dollar_amount``); ``dollar_amount`` only with ``market``;
- ``limit_price`` required for ``limit`` and ``stop_limit``, refused for the others;
  ``stop_price`` required for ``stop_loss`` and ``stop_limit``, refused for the others;
- every amount > 0.

Tax-lot selection is not offered for crypto (the field is refused as unknown). ``ref_id``
is the idempotency key (see ``OrderRequest``); a preview sends the terms without it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ordergate.client._decimals import PositiveDecimal
from ordergate.client._order_requests import OrderRequest, check_prices, check_size
from ordergate.core import CryptoOrderType, CryptoTimeInForce, Side

__all__ = ["CryptoOrderRequest"]

_LIMIT_TYPES = frozenset({CryptoOrderType.LIMIT, CryptoOrderType.STOP_LIMIT})
_STOP_TYPES = frozenset({CryptoOrderType.STOP_LOSS, CryptoOrderType.STOP_LIMIT})


class CryptoOrderRequest(OrderRequest):
    rhs_account_number: str = Field(min_length=1)
    symbol: str = Field(min_length=1)
    side: Side
    type: CryptoOrderType
    quantity: PositiveDecimal | None = None
    dollar_amount: PositiveDecimal | None = None
    limit_price: PositiveDecimal | None = None
    stop_price: PositiveDecimal | None = None
    time_in_force: CryptoTimeInForce | None = None

    @model_validator(mode="after")
    def _rules(self) -> CryptoOrderRequest:
        check_size(self.quantity, self.dollar_amount, market=self.type is CryptoOrderType.MARKET)
        check_prices(
            self.type,
            (
                ("limit_price", self.type in _LIMIT_TYPES, self.limit_price),
                ("stop_price", self.type in _STOP_TYPES, self.stop_price),
            ),
        )
        return self

    def preview_arguments(self) -> dict[str, Any]:
        """The arguments of ``preview_crypto_order``: the terms, without ``ref_id``."""
        return self.terms()
