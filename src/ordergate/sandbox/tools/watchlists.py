"""Watchlist tools: the user's own lists, Robinhood's curated lists, and the option watchlist.

The user's lists live on the venue's lists desk (``venue/_lists.py``). Curated lists are
Robinhood's: their ids are the same in every sandbox, their members are worked out from the
market when read (the movers list changes with the tape), and they can be followed but not
edited. Items are equities by symbol, crypto pairs by pair id and indexes by index id;
anything the market does not list comes back in ``not_found`` rather than failing the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ordergate.core import to_wire
from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools._curated_lists import CURATED, CURATED_BY_ID, CURATED_SINCE, Curated
from ordergate.sandbox.tools._prose_rules import choice, invalid, text
from ordergate.sandbox.tools._registry import VenueError, tool
from ordergate.sandbox.tools._wire_format import iso
from ordergate.sandbox.venue._ids import stable_uuid
from ordergate.sandbox.venue._lists import Lists, OptionWatchItem, Watchlist, WatchlistItem

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "add_option_to_watchlist",
    "add_to_watchlist",
    "create_watchlist",
    "follow_watchlist",
    "get_option_watchlist",
    "get_popular_watchlists",
    "get_watchlist_items",
    "get_watchlists",
    "remove_from_watchlist",
    "remove_option_from_watchlist",
    "unfollow_watchlist",
    "update_watchlist",
]

MAX_LISTS = 50
MAX_ITEMS_PER_LIST = 200
MAX_ITEMS_PER_CALL = 50
MAX_OPTIONS_PER_CALL = 20
MAX_OPTION_ITEMS = 100
_NAME_LENGTH = 50
_DESCRIPTION_LENGTH = 280
_POSITION_TYPES = ("long", "short")
_GUIDE_READ = "Use list ids from get_watchlists or get_popular_watchlists with get_watchlist_items."
_GUIDE_WRITE = "Read the list back with get_watchlist_items to see its current contents."


# ---------------------------------------------------------------------------------- helpers


def _desk(venue: Venue) -> Lists:
    return Lists.of(venue)


def _own_list(venue: Venue, list_id: str) -> Watchlist:
    """A list the user may edit; curated lists are refused, unknown ids are not found."""
    found = _desk(venue).watchlists.get(list_id.strip().lower())
    if found is not None:
        return found
    if list_id.strip().lower() in CURATED_BY_ID:
        raise VenueError(
            "PERMISSION_DENIED",
            "Curated lists cannot be edited; follow them instead.",
            field="list_id",
        )
    raise VenueError("NOT_FOUND", f"No watchlist with id {list_id}.", field="list_id")


def _curated(list_id: str) -> Curated:
    found = CURATED_BY_ID.get(list_id.strip().lower())
    if found is None:
        raise VenueError("NOT_FOUND", f"No curated watchlist with id {list_id}.", field="list_id")
    return found


def _summary_of_own(watchlist: Watchlist) -> dict[str, Any]:
    return {
        "id": watchlist.id,
        "display_name": watchlist.display_name,
        "display_description": watchlist.display_description,
        "icon_emoji": watchlist.icon_emoji,
        "owner_type": "custom",
        "following": None,
        "item_count": len(watchlist.items),
        "created_at": iso(watchlist.created_at),
        "updated_at": iso(watchlist.updated_at),
    }


def _summary_of_curated(venue: Venue, curated: Curated) -> dict[str, Any]:
    return {
        "id": curated.id,
        "display_name": curated.display_name,
        "display_description": curated.display_description,
        "icon_emoji": curated.icon_emoji,
        "owner_type": "robinhood",
        "following": curated.id in _desk(venue).followed,
        "item_count": len(curated.members(venue)),
        "created_at": iso(CURATED_SINCE),
        "updated_at": iso(CURATED_SINCE),
    }


def _priced(venue: Venue, item: WatchlistItem, item_id: str) -> dict[str, Any]:
    price: str | None = None
    previous: str | None = None
    change: str | None = None
    if item.object_type == "instrument":
        listed = mv.equity(venue, item.symbol)
        if listed is not None:
            quote = mv.equity_price(venue, listed)
            price, previous = to_wire(quote.last), to_wire(quote.previous_close)
            change = to_wire(quote.percent_change)
    elif item.object_type == "currency_pair":
        pair = mv.pair_by_id(venue, item.object_id)
        if pair is not None:
            crypto = mv.crypto_price(venue, pair)
            price, previous = to_wire(crypto.last), to_wire(crypto.previous_close)
            change = to_wire(crypto.percent_change)
    else:
        index = mv.index_by_id(venue, item.object_id)
        if index is not None:
            level = mv.index_price(venue, index)
            price, previous = to_wire(level.last), to_wire(level.previous_close)
            change = to_wire(level.percent_change)
    return {
        "id": item_id,
        "object_type": item.object_type,
        "object_id": item.object_id,
        "symbol": item.symbol,
        "name": item.name,
        "price": price,
        "previous_close": previous,
        "one_day_percent_change": change,
        "created_at": iso(item.created_at),
    }


def _strings(args: dict[str, Any], field: str) -> list[str]:
    values: list[str] = []
    for raw in args.get(field) or []:
        value = str(raw).strip()
        if not value:
            raise invalid(field, f"{field} must not contain empty values")
        if value not in values:
            values.append(value)
    return values


@dataclass(slots=True)
class _Resolved:
    items: list[WatchlistItem]
    not_found: list[str]


def _resolve_items(venue: Venue, args: dict[str, Any], now: datetime) -> _Resolved:
    symbols = list(dict.fromkeys(s.upper() for s in _strings(args, "symbols")))
    pair_ids = _strings(args, "currency_pair_ids")
    index_ids = _strings(args, "index_ids")
    total = len(symbols) + len(pair_ids) + len(index_ids)
    if total == 0:
        raise invalid("symbols", "give at least one of symbols, currency_pair_ids or index_ids")
    if total > MAX_ITEMS_PER_CALL:
        raise invalid("symbols", f"at most {MAX_ITEMS_PER_CALL} items per call")
    resolved = _Resolved([], [])
    for symbol in symbols:
        listed = mv.equity(venue, symbol)
        if listed is None:
            resolved.not_found.append(symbol)
        else:
            resolved.items.append(
                WatchlistItem("instrument", listed.instrument_id, listed.symbol, listed.name, now)
            )
    for pair_id in pair_ids:
        pair = mv.pair_by_id(venue, pair_id)
        if pair is None:
            resolved.not_found.append(pair_id)
        else:
            resolved.items.append(
                WatchlistItem("currency_pair", pair.id, pair.symbol, pair.name, now)
            )
    for index_id in index_ids:
        index = mv.index_by_id(venue, index_id)
        if index is None:
            resolved.not_found.append(index_id)
        else:
            resolved.items.append(
                WatchlistItem("index", index.instrument_id, index.symbol, index.name, now)
            )
    return resolved


def _emoji(args: dict[str, Any], *, default: str | None) -> str | None:
    value = text(args, "icon_emoji", max_length=8)
    if value is None:
        return default
    if not value or any(ch.isascii() for ch in value):
        raise invalid("icon_emoji", "icon_emoji must be a single emoji")
    return value


def _item_id(list_id: str, object_id: str) -> str:
    return stable_uuid("watchlist_item", list_id, object_id)


# ------------------------------------------------------------------------------------ tools


@tool(
    "get_watchlists",
    description=(
        "List the user's watchlists and the curated Robinhood lists they follow, with item counts."
    ),
    guide=_GUIDE_READ,
)
def get_watchlists(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    lists = [_summary_of_own(w) for w in desk.watchlists.values()]
    lists.extend(_summary_of_curated(venue, CURATED_BY_ID[i]) for i in desk.followed)
    return {"watchlists": lists}


@tool(
    "get_watchlist_items",
    description=(
        "Show the items of one watchlist (the user's own or a curated one): symbol, name, "
        "type, last price and the day's percent change."
    ),
    guide=_GUIDE_READ,
)
def get_watchlist_items(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    list_id = str(args["list_id"]).strip().lower()
    own = _desk(venue).watchlists.get(list_id)
    if own is not None:
        summary = _summary_of_own(own)
        items = own.items
    else:
        curated = _curated(list_id)
        summary = _summary_of_curated(venue, curated)
        items = curated.members(venue)
    return {
        "list_id": summary["id"],
        "display_name": summary["display_name"],
        "owner_type": summary["owner_type"],
        "items": [_priced(venue, item, _item_id(summary["id"], item.object_id)) for item in items],
    }


@tool(
    "create_watchlist",
    description=(
        "Create a watchlist. display_name is required (up to 50 characters); "
        "display_description (up to 280) and icon_emoji (one emoji) are optional."
    ),
    guide="Add items with add_to_watchlist using the returned id.",
)
def create_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    name = text(args, "display_name", max_length=_NAME_LENGTH, required=True)
    description = text(args, "display_description", max_length=_DESCRIPTION_LENGTH) or ""
    emoji = _emoji(args, default="📋")
    if len(desk.watchlists) >= MAX_LISTS:
        raise invalid("display_name", f"you can have at most {MAX_LISTS} watchlists")
    now = venue.now()
    watchlist = Watchlist(
        id=venue.ids.next("watchlist"),
        display_name=name or "",
        display_description=description,
        icon_emoji=emoji or "📋",
        created_at=now,
        updated_at=now,
    )
    desk.watchlists[watchlist.id] = watchlist
    return {"watchlist": _summary_of_own(watchlist)}


@tool(
    "update_watchlist",
    description="Rename a watchlist or change its description or emoji.",
    guide=_GUIDE_WRITE,
)
def update_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    watchlist = _own_list(venue, args["list_id"])
    name = text(args, "display_name", max_length=_NAME_LENGTH)
    description = text(args, "display_description", max_length=_DESCRIPTION_LENGTH)
    emoji = _emoji(args, default=None)
    if name is None and description is None and emoji is None:
        raise invalid("display_name", "give display_name, display_description or icon_emoji")
    if name is not None:
        if not name:
            raise invalid("display_name", "display_name must not be empty")
        watchlist.display_name = name
    if description is not None:
        watchlist.display_description = description
    if emoji is not None:
        watchlist.icon_emoji = emoji
    watchlist.updated_at = venue.now()
    return {"watchlist": _summary_of_own(watchlist)}


@tool(
    "add_to_watchlist",
    description=(
        "Add equities (symbols), crypto pairs (currency_pair_ids) or indexes (index_ids) to one "
        "of the user's watchlists, up to 50 per call and 200 per list. Unknown symbols and ids "
        "are returned in not_found; items already on the list are left as they are."
    ),
    guide=_GUIDE_WRITE,
)
def add_to_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    watchlist = _own_list(venue, args["list_id"])
    now = venue.now()
    resolved = _resolve_items(venue, args, now)
    fresh = [item for item in resolved.items if not watchlist.has(item.object_id)]
    present_already = [item.symbol for item in resolved.items if watchlist.has(item.object_id)]
    if len(watchlist.items) + len(fresh) > MAX_ITEMS_PER_LIST:
        raise invalid("symbols", f"a watchlist holds at most {MAX_ITEMS_PER_LIST} items")
    watchlist.items.extend(fresh)
    if fresh:
        watchlist.updated_at = now
    return {
        "list_id": watchlist.id,
        "added": [_priced(venue, item, _item_id(watchlist.id, item.object_id)) for item in fresh],
        "already_in_list": present_already,
        "not_found": resolved.not_found,
        "item_count": len(watchlist.items),
    }


@tool(
    "remove_from_watchlist",
    description=(
        "Remove equities (symbols), crypto pairs (currency_pair_ids) or indexes (index_ids) from "
        "one of the user's watchlists."
    ),
    guide=_GUIDE_WRITE,
)
def remove_from_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    watchlist = _own_list(venue, args["list_id"])
    resolved = _resolve_items(venue, args, venue.now())
    doomed = {item.object_id for item in resolved.items if watchlist.has(item.object_id)}
    removed = [item.symbol for item in watchlist.items if item.object_id in doomed]
    absent = [item.symbol for item in resolved.items if item.object_id not in doomed]
    watchlist.items = [item for item in watchlist.items if item.object_id not in doomed]
    if doomed:
        watchlist.updated_at = venue.now()
    return {
        "list_id": watchlist.id,
        "removed": removed,
        "not_in_list": absent,
        "not_found": resolved.not_found,
        "item_count": len(watchlist.items),
    }


@tool(
    "follow_watchlist",
    description="Follow a curated Robinhood list so it shows with the user's own watchlists.",
    guide="Followed lists appear in get_watchlists.",
)
def follow_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    if args["list_id"].strip().lower() in desk.watchlists:
        raise invalid("list_id", "your own watchlists cannot be followed")
    curated = _curated(args["list_id"])
    if curated.id not in desk.followed:
        desk.followed.append(curated.id)
    return {"watchlist": _summary_of_curated(venue, curated)}


@tool(
    "unfollow_watchlist",
    description="Stop following a curated Robinhood list.",
    guide="Followed lists appear in get_watchlists.",
)
def unfollow_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    if args["list_id"].strip().lower() in desk.watchlists:
        raise invalid("list_id", "your own watchlists cannot be unfollowed")
    curated = _curated(args["list_id"])
    if curated.id in desk.followed:
        desk.followed.remove(curated.id)
    return {"watchlist": _summary_of_curated(venue, curated)}


@tool(
    "get_popular_watchlists",
    description="List Robinhood's curated watchlists, with whether the user follows each.",
    guide="Open one with get_watchlist_items, or follow it with follow_watchlist.",
)
def get_popular_watchlists(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return {"watchlists": [_summary_of_curated(venue, curated) for curated in CURATED]}


# --------------------------------------------------------------------------- option watchlist


def _option_ids(args: dict[str, Any]) -> list[str]:
    ids = [value.lower() for value in _strings(args, "option_ids")]
    if not ids:
        raise invalid("option_ids", "option_ids must name at least one option")
    if len(ids) > MAX_OPTIONS_PER_CALL:
        raise invalid("option_ids", f"at most {MAX_OPTIONS_PER_CALL} options per call")
    return ids


def _option_key(option_id: str, position_type: str) -> str:
    return f"{option_id}|{position_type}"


def _option_row(venue: Venue, item: OptionWatchItem) -> dict[str, Any]:
    option = mv.option(venue, item.option_id)
    return {
        "id": stable_uuid("option_watchlist_item", item.option_id, item.position_type),
        "option_id": item.option_id,
        "chain_symbol": option.chain_symbol if option else None,
        "type": option.type if option else None,
        "strike_price": to_wire(option.strike_price) if option else None,
        "expiration_date": option.expiration_date.isoformat() if option else None,
        "mark_price": to_wire(option.mark_price) if option and option.mark_price else None,
        "position_type": item.position_type,
        "created_at": iso(item.created_at),
    }


@tool(
    "add_option_to_watchlist",
    description=(
        "Watch option contracts by option id (up to 20 per call), as a long (default) or short "
        "position. Unknown ids are returned in not_found."
    ),
    guide="Read the option watchlist back with get_option_watchlist.",
)
def add_option_to_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    position = choice(args, "position_type", _POSITION_TYPES, default="long") or "long"
    now = venue.now()
    added: list[OptionWatchItem] = []
    already: list[str] = []
    not_found: list[str] = []
    for option_id in _option_ids(args):
        key = _option_key(option_id, position)
        if mv.option(venue, option_id) is None:
            not_found.append(option_id)
        elif key in desk.option_items:
            already.append(option_id)
        else:
            added.append(OptionWatchItem(option_id, position, now))
    if len(desk.option_items) + len(added) > MAX_OPTION_ITEMS:
        raise invalid("option_ids", f"the option watchlist holds at most {MAX_OPTION_ITEMS} items")
    for item in added:
        desk.option_items[_option_key(item.option_id, position)] = item
    return {
        "added": [_option_row(venue, item) for item in added],
        "already_in_list": already,
        "not_found": not_found,
        "item_count": len(desk.option_items),
    }


@tool(
    "remove_option_from_watchlist",
    description=(
        "Stop watching option contracts by option id, for the given position_type "
        "(long by default)."
    ),
    guide="Read the option watchlist back with get_option_watchlist.",
)
def remove_option_from_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    position = choice(args, "position_type", _POSITION_TYPES, default="long") or "long"
    removed: list[str] = []
    absent: list[str] = []
    for option_id in _option_ids(args):
        if desk.option_items.pop(_option_key(option_id, position), None) is None:
            absent.append(option_id)
        else:
            removed.append(option_id)
    return {"removed": removed, "not_in_list": absent, "item_count": len(desk.option_items)}


@tool(
    "get_option_watchlist",
    description="Show the watched option contracts with strike, expiration, type and mark price.",
    guide="Remove contracts with remove_option_from_watchlist.",
)
def get_option_watchlist(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    items = _desk(venue).option_items.values()
    return {"items": [_option_row(venue, item) for item in items]}
