"""Typed advanced (one-cancels-other bracket) order tools; the live venue refuses them."""

from ordergate.client.advanced._client import AdvancedClient
from ordergate.client.advanced._models import (
    AdvancedOrder,
    AdvancedOrderReview,
    AdvancedOrdersPage,
)
from ordergate.client.advanced._requests import AdvancedOrderRequest, AdvancedOrdersRequest

__all__ = [
    "AdvancedClient",
    "AdvancedOrder",
    "AdvancedOrderRequest",
    "AdvancedOrderReview",
    "AdvancedOrdersPage",
    "AdvancedOrdersRequest",
]
