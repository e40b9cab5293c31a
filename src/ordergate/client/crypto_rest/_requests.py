"""An order for the Crypto Trading REST API, checked before anything is sent.

``RestOrderRequest`` holds one order flat (``asset_quantity`` XOR ``quote_amount``, the
prices its type needs and no others) and ``body()`` writes the wire shape: the type's
``<type>_order_config`` object with every amount a canonical decimal string.
"""

from __future__ import annotations

from typing import Any, Self
from uuid import UUID

from pydantic import Field, model_validator

from ordergate.client._decimals import PositiveDecimal
from ordergate.client._models import RequestModel
from ordergate.core import CryptoOrderType, CryptoTimeInForce, Side

__all__ = ["RestOrderRequest"]

_PRICES: dict[CryptoOrderType, frozenset[str]] = {
    CryptoOrderType.MARKET: frozenset(),
    CryptoOrderType.LIMIT: frozenset({"limit_price"}),
    CryptoOrderType.STOP_LOSS: frozenset({"stop_price"}),
    CryptoOrderType.STOP_LIMIT: frozenset({"limit_price", "stop_price"}),
}


class RestOrderRequest(RequestModel):
    """``client_order_id`` is a UUID the caller keeps: it names the order before it has an id.

    A market order takes no time in force; every other type needs one.
    """

    client_order_id: UUID
    symbol: str = Field(pattern=r"^[A-Z0-9]{1,16}-[A-Z]{2,8}$")
    side: Side
    type: CryptoOrderType
    asset_quantity: PositiveDecimal | None = None
    quote_amount: PositiveDecimal | None = None
    limit_price: PositiveDecimal | None = None
    stop_price: PositiveDecimal | None = None
    time_in_force: CryptoTimeInForce | None = None

    @model_validator(mode="after")
    def _fits_its_type(self) -> Self:
        if (self.asset_quantity is None) == (self.quote_amount is None):
            raise ValueError("give exactly one of asset_quantity and quote_amount")
        needed = _PRICES[self.type]
        for name in ("limit_price", "stop_price"):
            given = getattr(self, name) is not None
            if given and name not in needed:
                raise ValueError(f"{name} does not apply to a {self.type} order")
            if not given and name in needed:
                raise ValueError(f"a {self.type} order needs {name}")
        if self.type is CryptoOrderType.MARKET and self.time_in_force is not None:
            raise ValueError("time_in_force does not apply to a market order")
        if self.type is not CryptoOrderType.MARKET and self.time_in_force is None:
            raise ValueError(f"a {self.type} order needs time_in_force")
        return self

    def body(self) -> dict[str, Any]:
        """The wire body: the order's fields and its ``<type>_order_config``."""
        flat = self.arguments()
        head = {key: flat.pop(key) for key in ("client_order_id", "side", "type", "symbol")}
        return {**head, f"{self.type}_order_config": flat}
