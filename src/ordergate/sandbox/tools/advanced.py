"""Advanced (one-cancels-other bracket) order tools, as Robinhood serves them: listed, not callable.

The live server lists ``review_advanced_order``, ``place_advanced_order``,
``cancel_advanced_order`` and ``get_advanced_orders`` in ``tools/list``, but every call was
answered with a business error saying the tool cannot be found (see the reference README,
"Advanced (OCO) orders were listed but answered 'cannot be found' when called"). The sandbox
reproduces exactly that, so client code learns to handle a listed-but-absent tool. Arguments
are still checked first, as the live server validates input before dispatching: a malformed
call fails with ``INVALID_ARGUMENT`` and a well-formed one with ``NOT_FOUND``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from ordergate.sandbox.tools._prose_rules import (
    choice,
    invalid,
    iso_instant,
    positive_decimal,
    present,
    text,
    uuid_text,
)
from ordergate.sandbox.tools._registry import VenueError, tool

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "cancel_advanced_order",
    "get_advanced_orders",
    "place_advanced_order",
    "review_advanced_order",
]

_GUIDE = "Advanced orders are not available; use review_equity_order and place_equity_order."
_SIDES = ("buy", "sell")
_TIME_IN_FORCE = ("gfd", "gtc")
_MARKET_HOURS = ("regular_hours", "extended_hours", "all_day_hours")
_CONTINGENCY_TYPES = ("oco",)


def _absent(name: str) -> NoReturn:
    raise VenueError("NOT_FOUND", f"Tool {name} cannot be found.")


def _check_bracket(args: dict[str, Any]) -> None:
    text(args, "account_number", max_length=32, required=True)
    text(args, "symbol", max_length=16, required=True)
    side = choice(args, "side", _SIDES)
    if side is None:
        raise invalid("side", "side must be one of: buy, sell")
    positive_decimal(args, "quantity")
    take_profit = positive_decimal(args, "take_profit_limit_price")
    stop_loss = positive_decimal(args, "stop_loss_stop_price")
    # A sell bracket closes a long: profit above, stop below; a buy bracket mirrors it.
    if side == "sell" and take_profit <= stop_loss:
        raise invalid(
            "take_profit_limit_price",
            "for a sell bracket take_profit_limit_price must be above stop_loss_stop_price",
        )
    if side == "buy" and take_profit >= stop_loss:
        raise invalid(
            "take_profit_limit_price",
            "for a buy bracket take_profit_limit_price must be below stop_loss_stop_price",
        )
    choice(args, "time_in_force", _TIME_IN_FORCE)
    choice(args, "market_hours", _MARKET_HOURS)


@tool(
    "review_advanced_order",
    description=(
        "Review a one-cancels-other bracket (take-profit limit plus stop-loss stop) on an equity "
        "position without placing it."
    ),
    guide=_GUIDE,
)
def review_advanced_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    _check_bracket(args)
    _absent("review_advanced_order")


@tool(
    "place_advanced_order",
    description=(
        "Place a one-cancels-other bracket (take-profit limit plus stop-loss stop) on an equity "
        "position. ref_id is a UUID the server deduplicates on."
    ),
    guide=_GUIDE,
)
def place_advanced_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    _check_bracket(args)
    if present(args, "ref_id"):
        uuid_text(args, "ref_id")
    _absent("place_advanced_order")


@tool(
    "cancel_advanced_order",
    description="Cancel an open one-cancels-other bracket order by its order id.",
    guide=_GUIDE,
)
def cancel_advanced_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    text(args, "account_number", max_length=32, required=True)
    uuid_text(args, "order_id")
    _absent("cancel_advanced_order")


@tool(
    "get_advanced_orders",
    description=(
        "List one-cancels-other bracket orders of an account, newest first, optionally one order "
        "or those created since a time."
    ),
    guide=_GUIDE,
)
def get_advanced_orders(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    text(args, "account_number", max_length=32, required=True)
    choice(args, "contingency_type", _CONTINGENCY_TYPES)
    iso_instant(args, "created_at_gte")
    if present(args, "order_id"):
        uuid_text(args, "order_id")
    _absent("get_advanced_orders")
