"""The advanced (one-cancels-other bracket) order tools.

Robinhood lists these tools, but every call observed live was answered "cannot be found":
expect ``BusinessError`` with code ``NOT_FOUND`` from each method (after the venue has
checked the arguments: a malformed call is ``INVALID_ARGUMENT``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from ordergate.client._caller import Caller
from ordergate.client._models import data_object, parse_model
from ordergate.client._pages import MAX_PAGES, walk_pages
from ordergate.client.advanced._models import AdvancedOrder, AdvancedOrderReview, AdvancedOrdersPage
from ordergate.client.advanced._requests import AdvancedOrderRequest, AdvancedOrdersRequest

__all__ = ["AdvancedClient"]

TOOL_REVIEW_ORDER = "review_advanced_order"
TOOL_PLACE_ORDER = "place_advanced_order"
TOOL_CANCEL_ORDER = "cancel_advanced_order"
TOOL_ORDERS = "get_advanced_orders"


def _order(data: Any, *, tool: str) -> AdvancedOrder:
    body = data_object(data, tool=tool)
    return parse_model(AdvancedOrder, body.get("order", body), tool=tool)


class AdvancedClient:
    """Typed advanced order tools (see the module docstring: the live venue refuses them)."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def review_order(self, request: AdvancedOrderRequest) -> AdvancedOrderReview:
        """Review a bracket without placing it (``review_advanced_order``)."""
        data = await self._caller.call(TOOL_REVIEW_ORDER, request.review_arguments())
        return parse_model(AdvancedOrderReview, data, tool=TOOL_REVIEW_ORDER)

    async def place_order(self, request: AdvancedOrderRequest) -> AdvancedOrder:
        """Place a bracket under the request's ``ref_id`` (``place_advanced_order``)."""
        data = await self._caller.call(TOOL_PLACE_ORDER, request.arguments())
        return _order(data, tool=TOOL_PLACE_ORDER)

    async def cancel_order(self, account_number: str, order_id: str) -> AdvancedOrder:
        """Cancel an open bracket (``cancel_advanced_order``)."""
        data = await self._caller.call(
            TOOL_CANCEL_ORDER, {"account_number": account_number, "order_id": order_id}
        )
        return _order(data, tool=TOOL_CANCEL_ORDER)

    async def orders(
        self,
        account_number: str,
        *,
        contingency_type: str | None = None,
        created_at_gte: datetime | None = None,
        order_id: str | None = None,
        cursor: str | None = None,
    ) -> AdvancedOrdersPage:
        """One page of bracket orders, newest first (``get_advanced_orders``)."""
        request = AdvancedOrdersRequest.model_validate(
            {
                "account_number": account_number,
                "contingency_type": contingency_type,
                "created_at_gte": created_at_gte,
                "order_id": order_id,
                "cursor": cursor,
            }
        )
        data = await self._caller.call(TOOL_ORDERS, request.arguments())
        return parse_model(AdvancedOrdersPage, data, tool=TOOL_ORDERS)

    async def iter_orders(
        self,
        account_number: str,
        *,
        contingency_type: str | None = None,
        created_at_gte: datetime | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[AdvancedOrder]:
        """Every bracket order matching the filters, across pages (bounded)."""

        async def fetch(cursor: str | None) -> AdvancedOrdersPage:
            return await self.orders(
                account_number,
                contingency_type=contingency_type,
                created_at_gte=created_at_gte,
                cursor=cursor,
            )

        async for page in walk_pages(fetch, tool=TOOL_ORDERS, max_pages=max_pages):
            for order in page.orders:
                yield order
