"""The equity trading tools: positions, tax lots, orders, tradability, review / place / cancel.

Every method raises what the ``Caller`` raises (``TransportError``, ``BusinessError`` …) and
``ResponseParseError`` for an answer it cannot read. Business refusals (insufficient buying
power, an order rejected at placement) are always raised, never returned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime

from ordergate.client._arguments import present, text, wire_time
from ordergate.client._caller import Caller
from ordergate.client._models import parse_model
from ordergate.client._orders import (
    PlaceResult,
    check_cancel_accepted,
    parse_place_result,
    single_order,
)
from ordergate.client._pages import MAX_PAGES, walk_pages
from ordergate.client.equity._models import (
    EquityOrder,
    EquityOrdersPage,
    EquityPosition,
    EquityPositionsPage,
    EquityReview,
    TaxLot,
    TaxLotsPage,
    TradabilityResult,
)
from ordergate.client.equity._requests import EquityOrderRequest
from ordergate.core import OrderState, PlacedAgent

__all__ = ["EquityClient"]

TOOL_POSITIONS = "get_equity_positions"
TOOL_TAX_LOTS = "get_equity_tax_lots"
TOOL_ORDERS = "get_equity_orders"
TOOL_TRADABILITY = "get_equity_tradability"
TOOL_REVIEW_ORDER = "review_equity_order"
TOOL_PLACE_ORDER = "place_equity_order"
TOOL_CANCEL_ORDER = "cancel_equity_order"


class EquityClient:
    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def positions(
        self, account_number: str, *, cursor: str | None = None
    ) -> EquityPositionsPage:
        """One page of open positions at current prices (``get_equity_positions``)."""
        data = await self._caller.call(
            TOOL_POSITIONS, present(account_number=account_number, cursor=cursor)
        )
        return parse_model(EquityPositionsPage, data, tool=TOOL_POSITIONS)

    async def iter_positions(
        self, account_number: str, *, max_pages: int = MAX_PAGES
    ) -> AsyncIterator[EquityPosition]:
        """Every open position, page after page (see ``walk_pages`` for the bounds)."""

        async def fetch(cursor: str | None) -> EquityPositionsPage:
            return await self.positions(account_number, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_POSITIONS, max_pages=max_pages):
            for position in page.positions:
                yield position

    async def tax_lots(
        self, account_number: str, symbol: str, *, cursor: str | None = None
    ) -> TaxLotsPage:
        """One page of the open tax lots of ``symbol``, oldest first (``get_equity_tax_lots``)."""
        data = await self._caller.call(
            TOOL_TAX_LOTS, present(account_number=account_number, symbol=symbol, cursor=cursor)
        )
        return parse_model(TaxLotsPage, data, tool=TOOL_TAX_LOTS)

    async def iter_tax_lots(
        self, account_number: str, symbol: str, *, max_pages: int = MAX_PAGES
    ) -> AsyncIterator[TaxLot]:
        async def fetch(cursor: str | None) -> TaxLotsPage:
            return await self.tax_lots(account_number, symbol, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_TAX_LOTS, max_pages=max_pages):
            for lot in page.tax_lots:
                yield lot

    async def orders(
        self,
        account_number: str,
        *,
        order_id: str | None = None,
        state: OrderState | None = None,
        symbol: str | None = None,
        created_at_gte: datetime | None = None,
        placed_agent: PlacedAgent | None = None,
        cursor: str | None = None,
    ) -> EquityOrdersPage:
        """One page of orders, newest first, filtered (``get_equity_orders``).

        ``created_at_gte`` must be timezone-aware (``ValueError`` otherwise).
        """
        arguments = present(
            account_number=account_number,
            order_id=order_id,
            state=text(state),
            symbol=symbol,
            created_at_gte=wire_time("created_at_gte", created_at_gte),
            placed_agent=text(placed_agent),
            cursor=cursor,
        )
        data = await self._caller.call(TOOL_ORDERS, arguments)
        return parse_model(EquityOrdersPage, data, tool=TOOL_ORDERS)

    async def iter_orders(
        self,
        account_number: str,
        *,
        state: OrderState | None = None,
        symbol: str | None = None,
        created_at_gte: datetime | None = None,
        placed_agent: PlacedAgent | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[EquityOrder]:
        """Every order matching the filters, newest first, across pages (bounded)."""

        async def fetch(cursor: str | None) -> EquityOrdersPage:
            return await self.orders(
                account_number,
                state=state,
                symbol=symbol,
                created_at_gte=created_at_gte,
                placed_agent=placed_agent,
                cursor=cursor,
            )

        async for page in walk_pages(fetch, tool=TOOL_ORDERS, max_pages=max_pages):
            for order in page.orders:
                yield order

    async def order(self, account_number: str, order_id: str) -> EquityOrder:
        """One order by id; ``ResponseParseError`` when the listing does not hold exactly it."""
        page = await self.orders(account_number, order_id=order_id)
        return single_order(page.orders, order_id, tool=TOOL_ORDERS)

    async def tradability(self, account_number: str, symbols: Sequence[str]) -> TradabilityResult:
        """Whether up to 10 symbols trade, in fractions, in which sessions."""
        data = await self._caller.call(
            TOOL_TRADABILITY, {"account_number": account_number, "symbols": list(symbols)}
        )
        return parse_model(TradabilityResult, data, tool=TOOL_TRADABILITY)

    async def review_order(self, request: EquityOrderRequest) -> EquityReview:
        """Checks, quote and disclosures for ``request``; places nothing."""
        data = await self._caller.call(TOOL_REVIEW_ORDER, request.review_arguments())
        return parse_model(EquityReview, data, tool=TOOL_REVIEW_ORDER)

    async def place_order(self, request: EquityOrderRequest) -> PlaceResult[EquityOrder]:
        """Place ``request`` under its ``ref_id``: the order, or an approval to wait for.

        On a ``TransportError`` the order may be live: place the same request again (same
        ``ref_id``) and the venue answers with that order instead of making a second.
        Raises ``BusinessError`` for a refusal (``INSUFFICIENT_BUYING_POWER`` …, or
        ``ORDER_REJECTED`` when the order comes back already rejected).
        """
        data = await self._caller.call(TOOL_PLACE_ORDER, request.arguments())
        return parse_place_result(
            EquityOrder, data, tool=TOOL_PLACE_ORDER, ref_id=str(request.ref_id)
        )

    async def cancel_order(self, account_number: str, order_id: str) -> None:
        """Ask to cancel an open order; read it back for its final state.

        Raises ``BusinessError`` when refused (``ORDER_NOT_CANCELLABLE`` …, or
        ``CANCEL_REFUSED`` when the venue answers ``accepted: false``).
        """
        data = await self._caller.call(
            TOOL_CANCEL_ORDER, {"account_number": account_number, "order_id": order_id}
        )
        check_cancel_accepted(data, tool=TOOL_CANCEL_ORDER)
