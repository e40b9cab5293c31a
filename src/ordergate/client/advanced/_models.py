"""Response models of the advanced order tools.

The live venue lists these tools but answers every call with "cannot be found", so no answer
has ever been seen: the models name the fields a bracket order would plausibly carry, all
optional, and keep whatever the venue sends.
"""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from ordergate.client._decimals import OptionalMoney
from ordergate.client._fields import NextCursor, NullableList
from ordergate.client._models import WireModel

__all__ = ["AdvancedOrder", "AdvancedOrderReview", "AdvancedOrdersPage"]


class AdvancedOrder(WireModel):
    id: str | None = None
    ref_id: str | None = None
    account_number: str | None = None
    symbol: str | None = None
    side: str | None = None
    quantity: OptionalMoney = None
    take_profit_limit_price: OptionalMoney = None
    stop_loss_stop_price: OptionalMoney = None
    contingency_type: str | None = None
    state: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None


class AdvancedOrderReview(WireModel):
    """A review's answer, kept whole (its shape was never observed)."""


class AdvancedOrdersPage(WireModel):
    orders: NullableList[AdvancedOrder] = Field(default_factory=list)
    next: NextCursor = None
