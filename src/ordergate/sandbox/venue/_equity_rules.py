"""The rules an equity order request must pass before the desk reviews or places it.

Each refusal is a ``VenueError`` naming the argument at fault. The rules are Robinhood's, as
its tool guides state them: sides and types spelled exactly; exactly one of ``quantity`` and
``dollar_amount``; prices only where the type uses them; extended and 24-hour sessions for
limit orders only; fractional shares and dollar amounts only for market orders in regular
hours; no short sales; tax lots only on sells; no market, stop or dollar order without a
usable quote (``UNAVAILABLE``). Buying power is not checked here: review reports it and place
refuses on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from ordergate.core import (
    MarketHours,
    OrderType,
    Side,
    TimeInForce,
)
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._equity_market import EquityListing, EquityQuote
from ordergate.sandbox.venue._equity_model import OrderTerms
from ordergate.sandbox.venue._order_rules import (
    check_dollar_amount,
    check_price_fields,
    parse_enum,
    positive_decimal,
    quantity_or_dollar_amount,
)

__all__ = [
    "MARKET_BUY_COLLAR",
    "MAX_TAX_LOTS",
    "Holdings",
    "check_terms",
    "parse_enum",
    "positive_decimal",
    "quote_unavailable",
]

MAX_TAX_LOTS = 30
# A market buy is held (and executes) up to 5% above the ask, as Robinhood collars them,
# so a price spike between review and fill cannot spend more than was held.
MARKET_BUY_COLLAR = Decimal("0.05")
_SHARE_STEP = Decimal("0.000001")
_CENT = Decimal("0.01")
_SUB_DOLLAR_TICK = Decimal("0.0001")


@dataclass(frozen=True, slots=True)
class Holdings:
    """What the account can sell of one symbol right now (net of its open sell orders)."""

    shares: Decimal
    lots: Mapping[str, Decimal]


def quote_unavailable(symbol: str) -> VenueError:
    """The refusal of whatever needs a price of ``symbol`` its market cannot give now."""
    return VenueError(
        "UNAVAILABLE", f"no usable quote for {symbol} right now; try again", field="symbol"
    )


def _is_multiple(value: Decimal, step: Decimal) -> bool:
    return value % step == 0


def _price(field: str, value: object) -> Decimal | None:
    price = positive_decimal(field, value)
    if price is None:
        return None
    tick = _CENT if price >= 1 else _SUB_DOLLAR_TICK
    if not _is_multiple(price, tick):
        raise VenueError(
            "INVALID_ARGUMENT",
            f"{field} must be a multiple of {tick} at this price",
            field=field,
        )
    return price


def _collared(price: Decimal) -> Decimal:
    return (price * (1 + MARKET_BUY_COLLAR)).quantize(_CENT, rounding=ROUND_CEILING)


def check_terms(
    args: Mapping[str, Any],
    *,
    listing_of: Callable[[str], EquityListing | None],
    quote_of: Callable[[str], EquityQuote | None],
    holdings_of: Callable[[str], Holdings],
) -> OrderTerms:
    """Validated terms of an order request, or ``VenueError`` naming the first bad field.

    ``account_number`` must already have been checked by the caller.
    """
    symbol = str(args["symbol"]).strip().upper()
    listing = listing_of(symbol)
    if listing is None:
        raise VenueError("NOT_FOUND", f"no equity is listed as {symbol!r}", field="symbol")
    if not listing.tradeable:
        raise VenueError("SYMBOL_NOT_TRADEABLE", f"{symbol} cannot be traded", field="symbol")
    side = parse_enum(Side, "side", args["side"])
    order_type = parse_enum(OrderType, "type", args["type"])
    time_in_force = parse_enum(
        TimeInForce, "time_in_force", args.get("time_in_force") or None, TimeInForce.GFD
    )
    market_hours = parse_enum(
        MarketHours, "market_hours", args.get("market_hours") or None, MarketHours.REGULAR_HOURS
    )
    quantity, dollar_amount = quantity_or_dollar_amount(args)
    limit_price = _price("limit_price", args.get("limit_price"))
    stop_price = _price("stop_price", args.get("stop_price"))
    check_price_fields(
        order_type,
        needs_limit=order_type.needs_limit_price,
        needs_stop=order_type.needs_stop_price,
        limit_price=limit_price,
        stop_price=stop_price,
    )
    if market_hours is not MarketHours.REGULAR_HOURS and order_type is not OrderType.LIMIT:
        raise VenueError(
            "INVALID_ARGUMENT",
            f"{market_hours} orders must be limit orders; market and stop orders trade in "
            "regular hours only",
            field="market_hours",
        )
    if market_hours is MarketHours.ALL_DAY_HOURS and not listing.all_day:
        raise VenueError(
            "INVALID_ARGUMENT", f"{symbol} does not trade in 24-hour sessions", field="market_hours"
        )
    quote = quote_of(symbol)
    if quote is None and (dollar_amount is not None or limit_price is None):
        # A market or stop order (or a dollar amount) is priced from the quote: without a
        # usable one there is nothing to hold buying power at, so it is refused. A limit
        # order is held at its limit and waits for a quote to fill against.
        raise quote_unavailable(symbol)
    if dollar_amount is not None:
        assert quote is not None
        quantity = _dollar_quantity(order_type, dollar_amount, quote)
    assert quantity is not None
    _check_fractional(quantity, dollar_amount, order_type, market_hours, listing)
    holdings = holdings_of(symbol) if side is Side.SELL else Holdings(Decimal(0), {})
    tax_lots = _tax_lots(args.get("tax_lots"), side, quantity, dollar_amount, holdings)
    if side is Side.SELL and quantity > holdings.shares:
        raise VenueError(
            "INSUFFICIENT_SHARES",
            f"the account can sell {holdings.shares} {symbol}; short sales are not allowed",
            field="dollar_amount" if dollar_amount is not None else "quantity",
        )
    return OrderTerms(
        account_number=str(args["account_number"]),
        listing=listing,
        side=side,
        type=order_type,
        quantity=quantity,
        dollar_amount=dollar_amount,
        limit_price=limit_price,
        stop_price=stop_price,
        time_in_force=time_in_force,
        market_hours=market_hours,
        tax_lots=tax_lots,
        estimated_price=_estimate(side, order_type, limit_price, stop_price, quote),
    )


def _dollar_quantity(order_type: OrderType, dollar_amount: Decimal, quote: EquityQuote) -> Decimal:
    check_dollar_amount(dollar_amount, market=order_type is OrderType.MARKET)
    quantity = (dollar_amount / quote.last).quantize(_SHARE_STEP, rounding=ROUND_FLOOR)
    if quantity <= 0:
        raise VenueError(
            "INVALID_ARGUMENT",
            "dollar_amount buys less than one millionth of a share",
            field="dollar_amount",
        )
    return quantity


def _check_fractional(
    quantity: Decimal,
    dollar_amount: Decimal | None,
    order_type: OrderType,
    market_hours: MarketHours,
    listing: EquityListing,
) -> None:
    field = "dollar_amount" if dollar_amount is not None else "quantity"
    if not _is_multiple(quantity, _SHARE_STEP):
        raise VenueError(
            "INVALID_ARGUMENT", "quantity allows at most 6 decimal places", field="quantity"
        )
    if dollar_amount is None and _is_multiple(quantity, Decimal(1)):
        return
    if order_type is not OrderType.MARKET or market_hours is not MarketHours.REGULAR_HOURS:
        raise VenueError(
            "INVALID_ARGUMENT",
            "fractional and dollar orders must be market orders in regular hours",
            field=field,
        )
    if not listing.fractional:
        raise VenueError(
            "INVALID_ARGUMENT", f"{listing.symbol} does not trade in fractions", field=field
        )


def _tax_lots(
    raw: object,
    side: Side,
    quantity: Decimal,
    dollar_amount: Decimal | None,
    holdings: Holdings,
) -> tuple[tuple[str, Decimal], ...] | None:
    if raw is None or raw == []:
        return None
    assert isinstance(raw, list)  # the input schema types it
    if side is not Side.SELL:
        raise VenueError("INVALID_ARGUMENT", "tax_lots apply to sell orders only", field="tax_lots")
    if dollar_amount is not None:
        raise VenueError(
            "INVALID_ARGUMENT", "tax_lots need a quantity, not a dollar_amount", field="tax_lots"
        )
    if len(raw) > MAX_TAX_LOTS:
        raise VenueError(
            "INVALID_ARGUMENT", f"at most {MAX_TAX_LOTS} tax lots per order", field="tax_lots"
        )
    pairs: list[tuple[str, Decimal]] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        lot_id = str(item["open_lot_id"])
        field = f"tax_lots[{index}]"
        take = positive_decimal(f"{field}.quantity", item["quantity"])
        if take is None:
            raise VenueError(
                "INVALID_ARGUMENT", f"{field}.quantity is required", field=f"{field}.quantity"
            )
        if lot_id in seen:
            raise VenueError(
                "INVALID_ARGUMENT", f"lot {lot_id} is named twice", field=f"{field}.open_lot_id"
            )
        seen.add(lot_id)
        available = holdings.lots.get(lot_id)
        if available is None:
            raise VenueError("NOT_FOUND", f"no open tax lot {lot_id}", field=f"{field}.open_lot_id")
        if take > available:
            raise VenueError(
                "INVALID_ARGUMENT",
                f"lot {lot_id} has {available} shares available",
                field=f"{field}.quantity",
            )
        pairs.append((lot_id, take))
    if sum(take for _, take in pairs) != quantity:
        raise VenueError(
            "INVALID_ARGUMENT", "tax_lots quantities must add up to quantity", field="tax_lots"
        )
    return tuple(pairs)


def _estimate(
    side: Side,
    order_type: OrderType,
    limit_price: Decimal | None,
    stop_price: Decimal | None,
    quote: EquityQuote | None,
) -> Decimal:
    """Per-share price an order is held at (buys) or expected to get (sells)."""
    if limit_price is not None:
        return limit_price
    assert quote is not None  # check_terms refuses an order priced from a missing quote
    if side is Side.SELL:
        return quote.bid
    reference = quote.ask if stop_price is None else max(stop_price, quote.ask)
    return _collared(reference)
