"""Request models of the advanced (one-cancels-other bracket) order tools.

A bracket is a take-profit limit and a stop-loss stop on one equity position. Rules, each
refusal a ``ValidationError`` located at the field:

- ``quantity`` and both prices are decimals greater than zero;
- a sell bracket (closing a long) takes profit above its stop; a buy bracket (closing a
  short) below it (→ ``take_profit_limit_price``).

``ref_id`` is the idempotency key (see ``OrderRequest``); review sends the terms without it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ordergate.client._decimals import PositiveDecimal
from ordergate.client._fields import Instant, refuse
from ordergate.client._models import RequestModel
from ordergate.client._order_requests import OrderRequest
from ordergate.core import MarketHours, Side, TimeInForce

__all__ = ["AdvancedOrderRequest", "AdvancedOrdersRequest"]


class AdvancedOrderRequest(OrderRequest):
    account_number: str = Field(min_length=1)
    symbol: str = Field(min_length=1)
    side: Side
    quantity: PositiveDecimal
    take_profit_limit_price: PositiveDecimal
    stop_loss_stop_price: PositiveDecimal
    time_in_force: TimeInForce | None = None
    market_hours: MarketHours | None = None

    @model_validator(mode="after")
    def _bracket_brackets(self) -> AdvancedOrderRequest:
        profit, stop = self.take_profit_limit_price, self.stop_loss_stop_price
        if self.side == Side.SELL and profit <= stop:
            raise refuse(
                "take_profit_limit_price",
                "a sell bracket takes profit above its stop-loss price",
                profit,
            )
        if self.side == Side.BUY and profit >= stop:
            raise refuse(
                "take_profit_limit_price",
                "a buy bracket takes profit below its stop-loss price",
                profit,
            )
        return self

    def review_arguments(self) -> dict[str, Any]:
        """The arguments of ``review_advanced_order``: the terms, without ``ref_id``."""
        return self.terms()


class AdvancedOrdersRequest(RequestModel):
    account_number: str
    contingency_type: str | None = None
    created_at_gte: Instant | None = None
    order_id: str | None = None
    cursor: str | None = None
