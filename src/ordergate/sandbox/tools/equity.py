"""Equity tools: tradability, review / place / cancel / list orders, positions and tax lots.

Every handler works on the venue's ``EquityDesk``. Writes (review, place, cancel) need the
agentic account; reads answer for any of the user's accounts.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import ZERO, OrderState, Side, to_wire, wire_money, wire_quantity, wire_time
from ordergate.sandbox.tools._order_tools import (
    APPROVAL_REQUIRED_REASON,
    buying_power_check,
    offset_listing,
    order_id_check,
    order_page,
    placed_agent_check,
    placed_wire,
    state_check,
)
from ordergate.sandbox.tools._registry import VenueError, tool
from ordergate.sandbox.venue._equity import EquityDesk, OrderReview, equity_desk
from ordergate.sandbox.venue._equity_market import EquityListing, session_window
from ordergate.sandbox.venue._equity_model import EquityOrder
from ordergate.sandbox.venue._equity_rules import MARKET_BUY_COLLAR, quote_unavailable
from ordergate.sandbox.venue._equity_wire import approval_wire, order_wire, quote_wire

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "MAX_TRADABILITY_SYMBOLS",
    "cancel_equity_order",
    "get_equity_orders",
    "get_equity_positions",
    "get_equity_tax_lots",
    "get_equity_tradability",
    "place_equity_order",
    "review_equity_order",
]

MAX_TRADABILITY_SYMBOLS = 10
MARKET_DATA_DISCLOSURE = (
    "Market data is simulated by the ordergate sandbox venue and is not investment advice. "
    "Quotes may differ from the price at which an order executes."
)
_ORDERS_CURSOR = "equity-orders"


def _tradability(flag: bool) -> str:
    return "tradable" if flag else "untradable"


def _tradability_wire(listing: EquityListing, account_type: str) -> dict[str, Any]:
    return {
        "symbol": listing.symbol,
        "name": listing.name,
        "simple_name": listing.simple_name,
        "state": listing.state,
        "country": listing.country,
        "tradeable": listing.tradeable,
        "fractional_tradability": _tradability(listing.tradeable and listing.fractional),
        "extended_hours_fractional_tradability": False,
        "all_day_tradability": _tradability(listing.tradeable and listing.all_day),
        "twenty_four_seven_tradability": "untradable",
        "short_selling_tradability": "untradable",
        "account_type_tradabilities": [
            {
                "account_type": account_type,
                "account_type_tradability": _tradability(listing.tradeable),
            }
        ],
    }


@tool(
    "get_equity_tradability",
    description="Whether up to 10 symbols can be traded, in fractions, and in which sessions.",
    guide="Symbols that are not listed come back in not_found. Fractional shares trade as "
    "market orders in regular hours only.",
)
def get_equity_tradability(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    symbols = args.get("symbols") or []
    if not symbols:
        raise VenueError("INVALID_ARGUMENT", "give at least one symbol", field="symbols")
    if len(symbols) > MAX_TRADABILITY_SYMBOLS:
        raise VenueError(
            "INVALID_ARGUMENT",
            f"at most {MAX_TRADABILITY_SYMBOLS} symbols per call",
            field="symbols",
        )
    desk = equity_desk(venue)
    results: list[dict[str, Any]] = []
    not_found: list[str] = []
    for symbol in symbols:
        listing = desk.listing(symbol)
        if listing is None:
            not_found.append(symbol)
        else:
            results.append(_tradability_wire(listing, account.type))
    return {"results": results, "not_found": not_found}


def _warnings(desk: EquityDesk, review: OrderReview, now: datetime) -> list[str]:
    terms = review.terms
    warnings: list[str] = []
    window = session_window(desk.market.calendar, now, terms.market_hours)
    if window.opens_at > now:
        warnings.append(
            f"The market is closed for {terms.market_hours} orders; this order would wait "
            f"until {wire_time(window.opens_at)}."
        )
    if terms.side is Side.BUY and terms.limit_price is None:
        collar = to_wire(MARKET_BUY_COLLAR * 100)
        warnings.append(f"Market buys are collared at {collar}% above the ask.")
    if terms.side is Side.SELL:
        warnings.append("Sells pay SEC and FINRA regulatory fees.")
    if not review.buying_power_ok:
        warnings.append("Not enough buying power for this order.")
    return warnings


def _order_checks(desk: EquityDesk, review: OrderReview, now: datetime) -> dict[str, Any]:
    terms = review.terms
    window = session_window(desk.market.calendar, now, terms.market_hours)
    estimate = "estimated_cost" if terms.side is Side.BUY else "estimated_credit"
    return {
        "passed": review.buying_power_ok,
        "buying_power": buying_power_check(review),
        estimate: wire_money(terms.estimated_cost),
        "estimated_price": to_wire(terms.estimated_price),
        "estimated_quantity": wire_quantity(terms.quantity),
        "estimated_fees": wire_money(review.estimated_fees),
        "session": {
            "current": str(desk.market.calendar.session_at(now)),
            "executable_now": window.opens_at <= now,
            "next_execution_at": wire_time(window.opens_at),
        },
        "warnings": _warnings(desk, review, now),
    }


@tool(
    "review_equity_order",
    description="Check an equity order without placing it: order checks, quote, disclosures.",
    guide="Review places nothing. Place the same terms with place_equity_order and a fresh "
    "ref_id (a UUID) when order_checks.passed is true.",
)
def review_equity_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = equity_desk(venue)
    review = desk.review(args)
    terms = review.terms
    now = venue.now()
    quote = review.quote
    lagged = venue.faults.quote_instant(terms.symbol, now)
    if lagged != now:
        quote = desk.market.quote(terms.symbol, lagged)
    if quote is None:
        raise quote_unavailable(terms.symbol)
    data: dict[str, Any] = {
        "symbol": terms.symbol,
        "side": str(terms.side),
        "type": str(terms.type),
        "quantity": wire_quantity(terms.quantity),
        "order_checks": _order_checks(desk, review, now),
        "quote_data": quote_wire(quote, state=terms.listing.state),
        "market_data_disclosure": MARKET_DATA_DISCLOSURE,
        "customer_approval_required": review.approval_required,
    }
    if terms.dollar_amount is not None:
        data["dollar_amount"] = wire_money(terms.dollar_amount)
    if terms.limit_price is not None:
        data["limit_price"] = to_wire(terms.limit_price)
    if terms.stop_price is not None:
        data["stop_price"] = to_wire(terms.stop_price)
    if review.approval_required:
        data["customer_approval_required_reason"] = APPROVAL_REQUIRED_REASON
    return data


@tool(
    "place_equity_order",
    description="Place an equity order (market, limit, stop_market or stop_limit).",
    guide="Orders fill asynchronously: read get_equity_orders for the state. On a transport "
    "failure, send the same ref_id again; it returns the same order, never a second one.",
)
def place_equity_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return placed_wire(equity_desk(venue).place(args), order_wire, approval_wire)


@tool(
    "cancel_equity_order",
    description="Ask to cancel an open equity order.",
    guide="A cancelled order keeps whatever filled before the cancel; read get_equity_orders "
    "for its final state.",
)
def cancel_equity_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    equity_desk(venue).cancel(args["account_number"], args["order_id"])
    return {"accepted": True}


def _instant(field: str, value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise VenueError(
            "INVALID_ARGUMENT", f"{field} must be an ISO-8601 timestamp", field=field
        ) from None
    if parsed.tzinfo is None:
        raise VenueError("INVALID_ARGUMENT", f"{field} must carry a timezone (e.g. Z)", field=field)
    return parsed


def _order_filter(args: dict[str, Any]) -> list[Callable[[EquityOrder], bool] | None]:
    checks: list[Callable[[EquityOrder], bool] | None] = [
        order_id_check(args),
        state_check(args, OrderState, unknown="unknown order state"),
    ]
    if args.get("symbol"):
        symbol = str(args["symbol"]).strip().upper()
        checks.append(lambda o: o.symbol == symbol)
    if args.get("created_at_gte"):
        since = _instant("created_at_gte", args["created_at_gte"])
        checks.append(lambda o: o.created_at >= since)
    checks.append(placed_agent_check(args))
    return checks


@tool(
    "get_equity_orders",
    description="Equity orders of an account, newest first, with filters and pagination.",
    guide="Pass next back as cursor for older orders. Each order shows its executions; "
    "cumulative_quantity and average_price describe what actually filled.",
)
def get_equity_orders(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    return order_page(
        _ORDERS_CURSOR,
        args.get("cursor"),
        lambda: equity_desk(venue).listed(account.account_number, args.get("order_id")),
        _order_filter(args),
        order_wire,
    )


def _average(cost: Decimal, shares: Decimal) -> Decimal:
    return (cost / shares).quantize(Decimal("0.0001")) if shares else ZERO


@tool(
    "get_equity_positions",
    description="Open equity positions of an account at current prices.",
    guide="shares_available_for_sells excludes shares held by open sell orders.",
)
def get_equity_positions(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    desk = equity_desk(venue)
    number = account.account_number
    now = venue.now()
    rows: list[dict[str, Any]] = []
    for symbol in desk.positions.symbols(number):
        lots = desk.positions.lots(number, symbol)
        shares = sum((lot.quantity for lot in lots), ZERO)
        cost = sum((lot.quantity * lot.price for lot in lots), ZERO)
        last = desk.last_price(symbol, now)
        value = shares * last
        held = desk.held_for_sells(number, symbol)
        rows.append(
            {
                "account_number": number,
                "symbol": symbol,
                "instrument_id": lots[0].instrument_id,
                "quantity": wire_quantity(shares),
                "average_buy_price": to_wire(_average(cost, shares)),
                "cost_basis": wire_money(cost),
                "last_trade_price": to_wire(last),
                "market_value": wire_money(value),
                "unrealized_pnl": wire_money(value - cost),
                "shares_held_for_buys": wire_quantity(desk.held_for_buys(number, symbol)),
                "shares_held_for_sells": wire_quantity(held),
                "shares_available_for_sells": wire_quantity(shares - held),
                "created_at": wire_time(lots[0].acquired_at),
                "updated_at": wire_time(max(lot.acquired_at for lot in lots)),
            }
        )
    return offset_listing("equity-positions", "positions", rows, args.get("cursor"))


@tool(
    "get_equity_tax_lots",
    description="Open tax lots of one equity position, oldest first.",
    guide="Sell specific lots by passing tax_lots (open_lot_id and quantity) to "
    "place_equity_order.",
)
def get_equity_tax_lots(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    desk = equity_desk(venue)
    symbol = str(args["symbol"]).strip().upper()
    if desk.listing(symbol) is None:
        raise VenueError("NOT_FOUND", f"no equity is listed as {symbol!r}", field="symbol")
    now = venue.now()
    last = desk.last_price(symbol, now)
    rows = [
        {
            "open_lot_id": lot.lot_id,
            "symbol": symbol,
            "instrument_id": lot.instrument_id,
            "quantity": wire_quantity(lot.quantity),
            "original_quantity": wire_quantity(lot.original_quantity),
            "cost_basis_per_share": to_wire(lot.price),
            "cost_basis": wire_money(lot.quantity * lot.price),
            "market_value": wire_money(lot.quantity * last),
            "unrealized_pnl": wire_money(lot.quantity * (last - lot.price)),
            "acquired_at": wire_time(lot.acquired_at),
            "holding_period": lot.holding_period(now),
            "order_id": lot.order_id,
        }
        for lot in desk.positions.lots(account.account_number, symbol)
    ]
    return offset_listing("equity-tax-lots", "tax_lots", rows, args.get("cursor"), symbol=symbol)
