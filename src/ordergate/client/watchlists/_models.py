"""Response models of the watchlist tools.

Inventoried without an output schema: the models follow what the sandbox answers, keep every
field optional except identifiers, and keep unknown keys. Prices follow the Decimal rules.
"""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from ordergate.client._decimals import OptionalMoney
from ordergate.client._fields import NullableList, WireBool
from ordergate.client._models import WireModel

__all__ = [
    "OptionWatchItem",
    "OptionWatchlistAdded",
    "OptionWatchlistRemoved",
    "Watchlist",
    "WatchlistAdded",
    "WatchlistContents",
    "WatchlistItem",
    "WatchlistRemoved",
]


class Watchlist(WireModel):
    """A watchlist: the user's own (``owner_type`` ``custom``) or a curated Robinhood list
    (``robinhood``; ``following`` says whether the user follows it)."""

    id: str
    display_name: str | None = None
    display_description: str | None = None
    icon_emoji: str | None = None
    owner_type: str | None = None
    following: WireBool | None = None
    item_count: int | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None


class WatchlistItem(WireModel):
    """An equity (``instrument``), crypto pair (``currency_pair``) or ``index`` on a list."""

    id: str
    object_type: str | None = None
    object_id: str | None = None
    symbol: str | None = None
    name: str | None = None
    price: OptionalMoney = None
    previous_close: OptionalMoney = None
    one_day_percent_change: OptionalMoney = None
    created_at: dt.datetime | None = None


class WatchlistContents(WireModel):
    list_id: str
    display_name: str | None = None
    owner_type: str | None = None
    items: NullableList[WatchlistItem] = Field(default_factory=list)


class WatchlistAdded(WireModel):
    """Items added; those already on the list and unknown symbols/ids are listed apart."""

    list_id: str
    added: NullableList[WatchlistItem] = Field(default_factory=list)
    already_in_list: NullableList[str] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)
    item_count: int | None = None


class WatchlistRemoved(WireModel):
    list_id: str
    removed: NullableList[str] = Field(default_factory=list)
    not_in_list: NullableList[str] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)
    item_count: int | None = None


class OptionWatchItem(WireModel):
    id: str
    option_id: str | None = None
    chain_symbol: str | None = None
    type: str | None = None
    strike_price: OptionalMoney = None
    expiration_date: dt.date | None = None
    mark_price: OptionalMoney = None
    position_type: str | None = None
    created_at: dt.datetime | None = None


class OptionWatchlistAdded(WireModel):
    added: NullableList[OptionWatchItem] = Field(default_factory=list)
    already_in_list: NullableList[str] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)
    item_count: int | None = None


class OptionWatchlistRemoved(WireModel):
    removed: NullableList[str] = Field(default_factory=list)
    not_in_list: NullableList[str] = Field(default_factory=list)
    item_count: int | None = None
