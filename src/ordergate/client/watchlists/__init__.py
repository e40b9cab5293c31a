"""Typed watchlist tools: the user's lists, curated lists, the option watchlist."""

from ordergate.client.watchlists._client import WatchlistsClient
from ordergate.client.watchlists._enums import PositionType
from ordergate.client.watchlists._models import (
    OptionWatchItem,
    OptionWatchlistAdded,
    OptionWatchlistRemoved,
    Watchlist,
    WatchlistAdded,
    WatchlistContents,
    WatchlistItem,
    WatchlistRemoved,
)
from ordergate.client.watchlists._requests import (
    CreateWatchlistRequest,
    OptionItemsRequest,
    UpdateWatchlistRequest,
    WatchlistItemsRequest,
)

__all__ = [
    "CreateWatchlistRequest",
    "OptionItemsRequest",
    "OptionWatchItem",
    "OptionWatchlistAdded",
    "OptionWatchlistRemoved",
    "PositionType",
    "UpdateWatchlistRequest",
    "Watchlist",
    "WatchlistAdded",
    "WatchlistContents",
    "WatchlistItem",
    "WatchlistItemsRequest",
    "WatchlistRemoved",
    "WatchlistsClient",
]
