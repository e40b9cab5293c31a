"""The market-data tools: equity quotes, books and historicals; indexes; instrument search."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import TypeAdapter

from ordergate.client._caller import Caller
from ordergate.client._fields import name_list
from ordergate.client._models import parse_model, parse_with
from ordergate.client.market._enums import AssetType, Bounds, Interval
from ordergate.client.market._models import (
    EquityHistoricals,
    EquityQuotes,
    Indexes,
    IndexHistoricals,
    IndexQuotes,
    PriceBooks,
    SearchResults,
)
from ordergate.client.market._requests import (
    HistoricalsRequest,
    IndexHistoricalsRequest,
    SearchRequest,
)

__all__ = ["MarketClient"]

TOOL_QUOTES = "get_equity_quotes"
TOOL_HISTORICALS = "get_equity_historicals"
TOOL_PRICE_BOOK = "get_equity_price_book"
TOOL_INDEXES = "get_indexes"
TOOL_INDEX_QUOTES = "get_index_quotes"
TOOL_INDEX_HISTORICALS = "get_index_historicals"
TOOL_SEARCH = "search"

# Built once, so a call does no schema work: validating a one-symbol answer through it
# measured about 9.5 us (20 symbols: about 160 us) against parse_model's 10 us.
_QUOTES = TypeAdapter(EquityQuotes)


class MarketClient:
    """Typed market-data tools. Every method raises a ``ToolError`` subclass on failure
    (``BusinessError`` for a venue refusal, ``ResponseParseError`` for an unreadable answer)
    and ``pydantic.ValidationError`` (a ``ValueError``) naming the field for a bad request."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def quotes(self, symbols: Sequence[str]) -> EquityQuotes:
        """Quotes in the order asked (``get_equity_quotes``); up to 20 symbols also get their
        latest close, more come without closes and with ``closes_error`` saying why."""
        # The hot path: no request model, one validation of the whole answer.
        wanted = name_list("symbols", symbols)
        data = await self._caller.call(TOOL_QUOTES, {"symbols": wanted})
        return parse_with(_QUOTES, data, tool=TOOL_QUOTES)

    async def historicals(
        self,
        symbols: Sequence[str],
        *,
        start_time: datetime,
        end_time: datetime | None = None,
        interval: Interval | str | None = None,
        bounds: Bounds | str | None = None,
        adjustment_type: str | None = None,
    ) -> EquityHistoricals:
        """OHLCV bars (``get_equity_historicals``); only what is given is sent."""
        request = HistoricalsRequest.model_validate(
            {
                "symbols": symbols,
                "start_time": start_time,
                "end_time": end_time,
                "interval": interval,
                "bounds": bounds,
                "adjustment_type": adjustment_type,
            }
        )
        data = await self._caller.call(TOOL_HISTORICALS, request.arguments())
        return parse_model(EquityHistoricals, data, tool=TOOL_HISTORICALS)

    async def price_book(self, symbols: Sequence[str]) -> PriceBooks:
        """Order books, best prices first (``get_equity_price_book``)."""
        wanted = name_list("symbols", symbols)
        data = await self._caller.call(TOOL_PRICE_BOOK, {"symbols": wanted})
        return parse_model(PriceBooks, data, tool=TOOL_PRICE_BOOK)

    async def indexes(self, symbols: Sequence[str] | None = None) -> Indexes:
        """Market indexes and their ids (``get_indexes``); every index when ``symbols`` is
        ``None``. The wire takes one comma-separated string."""
        arguments: dict[str, str] = {}
        if symbols is not None:
            arguments["symbols"] = ",".join(name_list("symbols", symbols))
        data = await self._caller.call(TOOL_INDEXES, arguments)
        return parse_model(Indexes, data, tool=TOOL_INDEXES)

    async def index_quotes(self, instrument_ids: Sequence[str]) -> IndexQuotes:
        """Current index values by instrument id (``get_index_quotes``)."""
        ids = name_list("instrument_ids", instrument_ids)
        data = await self._caller.call(TOOL_INDEX_QUOTES, {"instrument_ids": ids})
        return parse_model(IndexQuotes, data, tool=TOOL_INDEX_QUOTES)

    async def index_historicals(
        self,
        instrument_ids: Sequence[str],
        *,
        start_time: datetime,
        interval: Interval | str,
        end_time: datetime | None = None,
    ) -> IndexHistoricals:
        """Index bars by instrument id (``get_index_historicals``)."""
        request = IndexHistoricalsRequest.model_validate(
            {
                "instrument_ids": instrument_ids,
                "start_time": start_time,
                "interval": interval,
                "end_time": end_time,
            }
        )
        data = await self._caller.call(TOOL_INDEX_HISTORICALS, request.arguments())
        return parse_model(IndexHistoricals, data, tool=TOOL_INDEX_HISTORICALS)

    async def search(
        self, query: str, *, asset_type: AssetType | str | None = None, limit: int | None = None
    ) -> SearchResults:
        """Equities, crypto pairs and indexes by symbol or name (``search``)."""
        request = SearchRequest.model_validate(
            {"query": query, "asset_type": asset_type, "limit": limit}
        )
        data = await self._caller.call(TOOL_SEARCH, request.arguments())
        return parse_model(SearchResults, data, tool=TOOL_SEARCH)
