"""Crypto trading tools: preview / place / cancel / list orders, and positions (24/7).

Every handler works on the venue's ``CryptoDesk`` and names the account by its
``rhs_account_number``. Writes need the agentic account; reads answer for any account.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ordergate.core import CryptoOrderState, Side, to_wire, wire_money, wire_quantity
from ordergate.sandbox.tools._order_tools import (
    APPROVAL_REQUIRED_REASON,
    offset_listing,
    order_id_check,
    order_page,
    placed_wire,
    state_check,
)
from ordergate.sandbox.tools._prose_rules import invalid, iso_instant
from ordergate.sandbox.tools._registry import tool
from ordergate.sandbox.venue._crypto import crypto_desk
from ordergate.sandbox.venue._crypto_model import OPEN_STATES, CryptoOrder
from ordergate.sandbox.venue._crypto_rules import MARKET_BUY_COLLAR
from ordergate.sandbox.venue._crypto_wire import (
    approval_wire,
    holding_wire,
    order_wire,
    quote_wire,
)

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "cancel_crypto_order",
    "get_crypto_orders",
    "get_crypto_positions",
    "place_crypto_order",
    "preview_crypto_order",
]

_ORDERS_CURSOR = "crypto-orders"
_STATE_GROUPS = ("open", "closed")


@tool(
    "preview_crypto_order",
    description="Check a crypto order without placing it: estimated price, cost, checks.",
    guide="Preview places nothing. Place the same terms with place_crypto_order and a fresh "
    "ref_id (a UUID) when order_checks.passed is true.",
)
def preview_crypto_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    preview = crypto_desk(venue).preview(args)
    terms = preview.terms
    estimate = "estimated_cost" if terms.side is Side.BUY else "estimated_credit"
    warnings: list[str] = []
    if terms.side is Side.BUY and not terms.has_limit:
        collar = to_wire(MARKET_BUY_COLLAR * 100)
        warnings.append(f"Market buys are collared at {collar}% above the ask.")
    if not preview.buying_power_ok:
        warnings.append("Not enough buying power for this order.")
    data: dict[str, Any] = {
        "rhs_account_number": terms.rhs_account_number,
        "symbol": terms.symbol,
        "currency_pair_id": terms.pair.id,
        "side": str(terms.side),
        "type": str(terms.type),
        "time_in_force": str(terms.time_in_force),
        "quantity": wire_quantity(terms.quantity),
        "dollar_amount": None if terms.dollar_amount is None else wire_money(terms.dollar_amount),
        "limit_price": None if terms.limit_price is None else to_wire(terms.limit_price),
        "stop_price": None if terms.stop_price is None else to_wire(terms.stop_price),
        "estimated_price": to_wire(terms.estimated_price),
        estimate: wire_money(terms.estimated_cost),
        "fees": "0.00",
        "quote": quote_wire(preview.quote),
        "order_checks": {
            "passed": preview.buying_power_ok,
            "buying_power": {
                "passed": preview.buying_power_ok,
                "required": wire_money(preview.required),
                "available": wire_money(preview.buying_power),
            },
            "increments": {
                "asset_increment": to_wire(terms.pair.asset_increment),
                "quote_increment": to_wire(terms.pair.quote_increment),
                "min_order_size": to_wire(terms.pair.min_order_size),
            },
            "warnings": warnings,
        },
        "customer_approval_required": preview.approval_required,
    }
    if preview.approval_required:
        data["customer_approval_required_reason"] = APPROVAL_REQUIRED_REASON
    return data


@tool(
    "place_crypto_order",
    description="Place a crypto order (market, limit, stop_loss or stop_limit), any hour.",
    guide="Orders fill asynchronously: read get_crypto_orders for the state (crypto spells "
    "it canceled). On a transport failure, send the same ref_id again.",
)
def place_crypto_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return placed_wire(crypto_desk(venue).place(args), order_wire, approval_wire)


@tool(
    "cancel_crypto_order",
    description="Ask to cancel an open crypto order.",
    guide="A canceled order keeps whatever filled before the cancel.",
)
def cancel_crypto_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    order = crypto_desk(venue).cancel(args["rhs_account_number"], args["order_id"])
    return {"accepted": True, "order": order_wire(order)}


def _order_filter(venue: Venue, args: dict[str, Any]) -> list[Callable[[CryptoOrder], bool] | None]:
    checks: list[Callable[[CryptoOrder], bool] | None] = [order_id_check(args)]
    if args.get("side"):
        try:
            side = Side(args["side"])
        except ValueError:
            raise invalid("side", "side must be one of buy | sell") from None
        checks.append(lambda o: o.side is side)
    checks.append(state_check(args, CryptoOrderState, unknown="unknown crypto order state"))
    if args.get("state_group"):
        group = str(args["state_group"])
        if group not in _STATE_GROUPS:
            raise invalid("state_group", "state_group must be one of open | closed")
        checks.append(lambda o: (o.state in OPEN_STATES) == (group == "open"))
    if args.get("symbol"):
        pair = crypto_desk(venue).pair(str(args["symbol"]))
        wanted = None if pair is None else pair.symbol
        checks.append(lambda o: o.terms.symbol == wanted)
    since = iso_instant(args, "created_at_gte")
    if since is not None:
        checks.append(lambda o: o.created_at >= since)
    touched = iso_instant(args, "updated_at_gte")
    if touched is not None:
        checks.append(lambda o: (o.updated_at or o.created_at) >= touched)
    return checks


@tool(
    "get_crypto_orders",
    description="Crypto orders of an account, newest first, with filters and pagination.",
    guide="Pass next back as cursor for older orders. state_group open means queued, "
    "confirmed or partially_filled.",
)
def get_crypto_orders(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get_rhs(args["rhs_account_number"])
    return order_page(
        _ORDERS_CURSOR,
        args.get("cursor"),
        lambda: crypto_desk(venue).listed(account.account_number, args.get("order_id")),
        _order_filter(venue, args),
        order_wire,
    )


@tool(
    "get_crypto_positions",
    description="Crypto holdings of an account at current marks.",
    guide="quantity_available excludes units held by open sell orders.",
)
def get_crypto_positions(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get_rhs(args["rhs_account_number"])
    desk = crypto_desk(venue)
    now = venue.now()
    number = account.account_number
    rows = [
        holding_wire(
            holding,
            mark=desk.quote(holding.pair, now).mark_price,
            held_for_sells=desk.held_for_sells(number, holding.currency_code),
            now=now,
        )
        for holding in desk.holdings.of(number)
    ]
    return offset_listing("crypto-positions", "positions", rows, args.get("cursor"))
