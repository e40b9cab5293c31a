"""The watchlist tools: the user's lists, Robinhood's curated lists, the option watchlist."""

from __future__ import annotations

from collections.abc import Sequence

from ordergate.client._caller import Caller
from ordergate.client._models import parse_list, parse_member, parse_model
from ordergate.client.watchlists._enums import PositionType
from ordergate.client.watchlists._models import (
    OptionWatchItem,
    OptionWatchlistAdded,
    OptionWatchlistRemoved,
    Watchlist,
    WatchlistAdded,
    WatchlistContents,
    WatchlistRemoved,
)
from ordergate.client.watchlists._requests import (
    CreateWatchlistRequest,
    OptionItemsRequest,
    UpdateWatchlistRequest,
    WatchlistItemsRequest,
)

__all__ = ["WatchlistsClient"]

TOOL_LISTS = "get_watchlists"
TOOL_ITEMS = "get_watchlist_items"
TOOL_OPTION_LIST = "get_option_watchlist"
TOOL_POPULAR = "get_popular_watchlists"
TOOL_CREATE = "create_watchlist"
TOOL_UPDATE = "update_watchlist"
TOOL_FOLLOW = "follow_watchlist"
TOOL_UNFOLLOW = "unfollow_watchlist"
TOOL_ADD = "add_to_watchlist"
TOOL_REMOVE = "remove_from_watchlist"
TOOL_ADD_OPTION = "add_option_to_watchlist"
TOOL_REMOVE_OPTION = "remove_option_from_watchlist"


class WatchlistsClient:
    """Typed watchlist tools. Every method raises a ``ToolError`` subclass on failure
    (``BusinessError`` for a venue refusal: ``NOT_FOUND`` for an unknown list,
    ``PERMISSION_DENIED`` for editing a curated one; ``ResponseParseError`` for an unreadable
    answer) and ``pydantic.ValidationError`` (a ``ValueError``) naming the field for a bad
    request."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def lists(self) -> list[Watchlist]:
        """The user's lists and the curated lists they follow (``get_watchlists``)."""
        data = await self._caller.call(TOOL_LISTS, {})
        return parse_list(Watchlist, data, "watchlists", tool=TOOL_LISTS)

    async def items(self, list_id: str) -> WatchlistContents:
        """One list's items with prices (``get_watchlist_items``)."""
        data = await self._caller.call(TOOL_ITEMS, {"list_id": list_id})
        return parse_model(WatchlistContents, data, tool=TOOL_ITEMS)

    async def option_list(self) -> list[OptionWatchItem]:
        """The watched option contracts (``get_option_watchlist``)."""
        data = await self._caller.call(TOOL_OPTION_LIST, {})
        return parse_list(OptionWatchItem, data, "items", tool=TOOL_OPTION_LIST)

    async def popular(self) -> list[Watchlist]:
        """Robinhood's curated lists (``get_popular_watchlists``)."""
        data = await self._caller.call(TOOL_POPULAR, {})
        return parse_list(Watchlist, data, "watchlists", tool=TOOL_POPULAR)

    async def create(
        self,
        display_name: str,
        *,
        display_description: str | None = None,
        icon_emoji: str | None = None,
    ) -> Watchlist:
        """A new list (``create_watchlist``)."""
        request = CreateWatchlistRequest.model_validate(
            {
                "display_name": display_name,
                "display_description": display_description,
                "icon_emoji": icon_emoji,
            }
        )
        data = await self._caller.call(TOOL_CREATE, request.arguments())
        return parse_member(Watchlist, data, "watchlist", tool=TOOL_CREATE)

    async def update(
        self,
        list_id: str,
        *,
        display_name: str | None = None,
        display_description: str | None = None,
        icon_emoji: str | None = None,
    ) -> Watchlist:
        """Rename a list or change its description or emoji (``update_watchlist``)."""
        request = UpdateWatchlistRequest.model_validate(
            {
                "list_id": list_id,
                "display_name": display_name,
                "display_description": display_description,
                "icon_emoji": icon_emoji,
            }
        )
        data = await self._caller.call(TOOL_UPDATE, request.arguments())
        return parse_member(Watchlist, data, "watchlist", tool=TOOL_UPDATE)

    async def follow(self, list_id: str) -> Watchlist:
        """Follow a curated list (``follow_watchlist``)."""
        data = await self._caller.call(TOOL_FOLLOW, {"list_id": list_id})
        return parse_member(Watchlist, data, "watchlist", tool=TOOL_FOLLOW)

    async def unfollow(self, list_id: str) -> Watchlist:
        """Stop following a curated list (``unfollow_watchlist``)."""
        data = await self._caller.call(TOOL_UNFOLLOW, {"list_id": list_id})
        return parse_member(Watchlist, data, "watchlist", tool=TOOL_UNFOLLOW)

    async def add(
        self,
        list_id: str,
        *,
        symbols: Sequence[str] | None = None,
        currency_pair_ids: Sequence[str] | None = None,
        index_ids: Sequence[str] | None = None,
    ) -> WatchlistAdded:
        """Add equities, crypto pairs or indexes to one of the user's lists
        (``add_to_watchlist``)."""
        request = WatchlistItemsRequest.model_validate(
            {
                "list_id": list_id,
                "symbols": symbols,
                "currency_pair_ids": currency_pair_ids,
                "index_ids": index_ids,
            }
        )
        data = await self._caller.call(TOOL_ADD, request.arguments())
        return parse_model(WatchlistAdded, data, tool=TOOL_ADD)

    async def remove(
        self,
        list_id: str,
        *,
        symbols: Sequence[str] | None = None,
        currency_pair_ids: Sequence[str] | None = None,
        index_ids: Sequence[str] | None = None,
    ) -> WatchlistRemoved:
        """Remove equities, crypto pairs or indexes from one of the user's lists
        (``remove_from_watchlist``)."""
        request = WatchlistItemsRequest.model_validate(
            {
                "list_id": list_id,
                "symbols": symbols,
                "currency_pair_ids": currency_pair_ids,
                "index_ids": index_ids,
            }
        )
        data = await self._caller.call(TOOL_REMOVE, request.arguments())
        return parse_model(WatchlistRemoved, data, tool=TOOL_REMOVE)

    async def add_option(
        self, option_ids: Sequence[str], *, position_type: PositionType | str | None = None
    ) -> OptionWatchlistAdded:
        """Watch option contracts by id (``add_option_to_watchlist``)."""
        request = OptionItemsRequest.model_validate(
            {"option_ids": option_ids, "position_type": position_type}
        )
        data = await self._caller.call(TOOL_ADD_OPTION, request.arguments())
        return parse_model(OptionWatchlistAdded, data, tool=TOOL_ADD_OPTION)

    async def remove_option(
        self, option_ids: Sequence[str], *, position_type: PositionType | str | None = None
    ) -> OptionWatchlistRemoved:
        """Stop watching option contracts (``remove_option_from_watchlist``)."""
        request = OptionItemsRequest.model_validate(
            {"option_ids": option_ids, "position_type": position_type}
        )
        data = await self._caller.call(TOOL_REMOVE_OPTION, request.arguments())
        return parse_model(OptionWatchlistRemoved, data, tool=TOOL_REMOVE_OPTION)
