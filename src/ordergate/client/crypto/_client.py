"""The crypto tools (24/7): pairs, quotes, holdings, orders, preview / place / cancel.

Accounts are named by ``rhs_account_number``. Every method raises what the ``Caller``
raises (``TransportError``, ``BusinessError`` …) and ``ResponseParseError`` for an answer it
cannot read. Business refusals are always raised, never returned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime

from ordergate.client._arguments import present, text, wire_time
from ordergate.client._caller import Caller
from ordergate.client._models import WireModel, parse_model
from ordergate.client._orders import (
    PlaceResult,
    check_cancel_accepted,
    parse_place_result,
    single_order,
)
from ordergate.client._pages import MAX_PAGES, walk_pages
from ordergate.client.crypto._models import (
    CryptoOrder,
    CryptoOrdersPage,
    CryptoPosition,
    CryptoPositionsPage,
    CryptoPreview,
    CryptoQuotes,
    CurrencyPair,
    CurrencyPairsPage,
)
from ordergate.client.crypto._requests import CryptoOrderRequest
from ordergate.core import CryptoOrderState, Side

__all__ = ["CryptoClient"]

TOOL_PAIRS = "get_currency_pairs"
TOOL_QUOTES = "get_crypto_quotes"
TOOL_POSITIONS = "get_crypto_positions"
TOOL_ORDERS = "get_crypto_orders"
TOOL_PREVIEW_ORDER = "preview_crypto_order"
TOOL_PLACE_ORDER = "place_crypto_order"
TOOL_CANCEL_ORDER = "cancel_crypto_order"


class _Cancelled(WireModel):
    order: CryptoOrder


class CryptoClient:
    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def pairs(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> CurrencyPairsPage:
        """One page of tradable pairs with sizes and increments (``get_currency_pairs``)."""
        data = await self._caller.call(TOOL_PAIRS, present(limit=limit, cursor=cursor))
        return parse_model(CurrencyPairsPage, data, tool=TOOL_PAIRS)

    async def iter_pairs(
        self, *, limit: int | None = None, max_pages: int = MAX_PAGES
    ) -> AsyncIterator[CurrencyPair]:
        """Every pair across pages of ``limit`` (bounded, see ``walk_pages``)."""

        async def fetch(cursor: str | None) -> CurrencyPairsPage:
            return await self.pairs(limit=limit, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_PAIRS, max_pages=max_pages):
            for pair in page.results:
                yield pair

    async def quotes(
        self,
        symbols: Sequence[str],
        *,
        rhs_account_number: str | None = None,
        timezone: str | None = None,
    ) -> CryptoQuotes:
        """Quotes of up to 20 pairs (``BTC-USD`` or ``BTC``); unknown ones in ``not_found``."""
        arguments = present(
            symbols=list(symbols), rhs_account_number=rhs_account_number, timezone=timezone
        )
        data = await self._caller.call(TOOL_QUOTES, arguments)
        return parse_model(CryptoQuotes, data, tool=TOOL_QUOTES)

    async def positions(
        self, rhs_account_number: str, *, cursor: str | None = None
    ) -> CryptoPositionsPage:
        """One page of holdings at current marks (``get_crypto_positions``)."""
        data = await self._caller.call(
            TOOL_POSITIONS, present(rhs_account_number=rhs_account_number, cursor=cursor)
        )
        return parse_model(CryptoPositionsPage, data, tool=TOOL_POSITIONS)

    async def iter_positions(
        self, rhs_account_number: str, *, max_pages: int = MAX_PAGES
    ) -> AsyncIterator[CryptoPosition]:
        async def fetch(cursor: str | None) -> CryptoPositionsPage:
            return await self.positions(rhs_account_number, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_POSITIONS, max_pages=max_pages):
            for position in page.positions:
                yield position

    async def orders(
        self,
        rhs_account_number: str,
        *,
        order_id: str | None = None,
        side: Side | None = None,
        state: CryptoOrderState | None = None,
        state_group: str | None = None,
        symbol: str | None = None,
        created_at_gte: datetime | None = None,
        updated_at_gte: datetime | None = None,
        cursor: str | None = None,
    ) -> CryptoOrdersPage:
        """One page of orders, newest first; ``state_group`` is ``open`` or ``closed``."""
        arguments = present(
            rhs_account_number=rhs_account_number,
            order_id=order_id,
            side=text(side),
            state=text(state),
            state_group=state_group,
            symbol=symbol,
            created_at_gte=wire_time("created_at_gte", created_at_gte),
            updated_at_gte=wire_time("updated_at_gte", updated_at_gte),
            cursor=cursor,
        )
        data = await self._caller.call(TOOL_ORDERS, arguments)
        return parse_model(CryptoOrdersPage, data, tool=TOOL_ORDERS)

    async def iter_orders(
        self,
        rhs_account_number: str,
        *,
        side: Side | None = None,
        state: CryptoOrderState | None = None,
        state_group: str | None = None,
        symbol: str | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[CryptoOrder]:
        """Every matching order, newest first, across pages (bounded)."""

        async def fetch(cursor: str | None) -> CryptoOrdersPage:
            return await self.orders(
                rhs_account_number,
                side=side,
                state=state,
                state_group=state_group,
                symbol=symbol,
                cursor=cursor,
            )

        async for page in walk_pages(fetch, tool=TOOL_ORDERS, max_pages=max_pages):
            for order in page.orders:
                yield order

    async def order(self, rhs_account_number: str, order_id: str) -> CryptoOrder:
        """One order by id; ``ResponseParseError`` when the listing does not hold exactly it."""
        page = await self.orders(rhs_account_number, order_id=order_id)
        return single_order(page.orders, order_id, tool=TOOL_ORDERS)

    async def preview_order(self, request: CryptoOrderRequest) -> CryptoPreview:
        """Estimated price, cost and checks for ``request``; places nothing."""
        data = await self._caller.call(TOOL_PREVIEW_ORDER, request.preview_arguments())
        return parse_model(CryptoPreview, data, tool=TOOL_PREVIEW_ORDER)

    async def place_order(self, request: CryptoOrderRequest) -> PlaceResult[CryptoOrder]:
        """Place ``request`` under its ``ref_id``: the order, or an approval to wait for.

        After a ``TransportError``, place the same request again: the same ``ref_id`` gets
        the same order back. Refusals raise ``BusinessError`` (``ORDER_REJECTED`` included).
        """
        data = await self._caller.call(TOOL_PLACE_ORDER, request.arguments())
        return parse_place_result(
            CryptoOrder, data, tool=TOOL_PLACE_ORDER, ref_id=str(request.ref_id)
        )

    async def cancel_order(self, rhs_account_number: str, order_id: str) -> CryptoOrder:
        """Cancel an open order; the order as the cancel left it. ``BusinessError`` if refused."""
        data = await self._caller.call(
            TOOL_CANCEL_ORDER, {"rhs_account_number": rhs_account_number, "order_id": order_id}
        )
        check_cancel_accepted(data, tool=TOOL_CANCEL_ORDER)
        return parse_model(_Cancelled, data, tool=TOOL_CANCEL_ORDER).order
