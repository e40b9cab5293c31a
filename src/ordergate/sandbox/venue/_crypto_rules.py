"""The rules a crypto order request must pass before the desk previews or places it.

Each refusal is a ``VenueError`` naming the argument at fault:

- ``symbol`` a listed pair (``BTC-USD``, or ``BTC`` for its USD pair); ``side`` buy | sell;
  ``type`` market | limit | stop_loss | stop_limit; ``time_in_force`` gtc (default) | gfd |
  gfw | gfm;
- exactly one of ``quantity`` (units of the asset) and ``dollar_amount`` (market orders
  only, whole cents, at least 1.00; units are computed from the ask for a buy, the bid for a
  sell, rounded down to the pair's ``asset_increment``);
- a quantity that is a multiple of ``asset_increment``, at least ``min_order_size`` and at
  most ``max_order_size``;
- ``limit_price`` for limit and stop_limit, ``stop_price`` for stop_loss and stop_limit,
  nowhere else; both multiples of the pair's ``quote_increment``;
- no ``tax_lots`` (crypto is sold at average cost on the sandbox venue);
- no selling more than is held net of open sell orders.

Buying power is not checked here: preview reports it and place refuses on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from ordergate.core import (
    CryptoOrderType,
    CryptoTimeInForce,
    Side,
)
from ordergate.sandbox.market import CryptoPair, CryptoQuote, Tradability
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._crypto_model import CryptoTerms
from ordergate.sandbox.venue._order_rules import (
    check_dollar_amount,
    check_price_fields,
    invalid,
    parse_enum,
    positive_decimal,
    quantity_or_dollar_amount,
)

__all__ = ["MARKET_BUY_COLLAR", "check_crypto_terms"]

MARKET_BUY_COLLAR = Decimal("0.05")
_LIMIT_TYPES = (CryptoOrderType.LIMIT, CryptoOrderType.STOP_LIMIT)
_STOP_TYPES = (CryptoOrderType.STOP_LOSS, CryptoOrderType.STOP_LIMIT)


def _price(field: str, value: object, pair: CryptoPair) -> Decimal | None:
    price = positive_decimal(field, value)
    if price is not None and price % pair.quote_increment != 0:
        raise invalid(field, f"{field} must be a multiple of {pair.quote_increment}")
    return price


def _check_size(field: str, quantity: Decimal, pair: CryptoPair) -> None:
    code = pair.asset_code
    if quantity % pair.asset_increment != 0:
        raise invalid(field, f"quantity must be a multiple of {pair.asset_increment} {code}")
    if quantity < pair.min_order_size:
        raise invalid(field, f"the smallest {code} order is {pair.min_order_size} {code}")
    if quantity > pair.max_order_size:
        raise invalid(field, f"the largest {code} order is {pair.max_order_size} {code}")


def _collared(price: Decimal, pair: CryptoPair) -> Decimal:
    raised = price * (1 + MARKET_BUY_COLLAR) / pair.quote_increment
    return raised.to_integral_value(ROUND_CEILING) * pair.quote_increment


def check_crypto_terms(
    args: Mapping[str, Any],
    *,
    account_number: str,
    rhs_account_number: str,
    pair_of: Callable[[str], CryptoPair | None],
    quote_of: Callable[[CryptoPair], CryptoQuote],
    sellable: Callable[[CryptoPair], Decimal],
) -> CryptoTerms:
    """Validated terms of a crypto order request, or ``VenueError`` naming the bad field."""
    symbol = str(args["symbol"]).strip().upper()
    pair = pair_of(symbol)
    if pair is None:
        raise VenueError("NOT_FOUND", f"no crypto pair is listed as {symbol!r}", field="symbol")
    if pair.tradability is not Tradability.TRADABLE:
        raise VenueError("SYMBOL_NOT_TRADEABLE", f"{pair.symbol} cannot be traded", field="symbol")
    side = parse_enum(Side, "side", args["side"])
    order_type = parse_enum(CryptoOrderType, "type", args["type"])
    time_in_force = parse_enum(
        CryptoTimeInForce, "time_in_force", args.get("time_in_force"), CryptoTimeInForce.GTC
    )
    if args.get("tax_lots"):
        raise invalid("tax_lots", "tax lot selection is not offered for crypto orders")
    quantity, dollar_amount = quantity_or_dollar_amount(args)
    limit_price = _price("limit_price", args.get("limit_price"), pair)
    stop_price = _price("stop_price", args.get("stop_price"), pair)
    check_price_fields(
        order_type,
        needs_limit=order_type in _LIMIT_TYPES,
        needs_stop=order_type in _STOP_TYPES,
        limit_price=limit_price,
        stop_price=stop_price,
    )
    quote = quote_of(pair)
    field = "quantity"
    if dollar_amount is not None:
        field = "dollar_amount"
        quantity = _dollar_quantity(order_type, side, dollar_amount, pair, quote)
    assert quantity is not None
    _check_size(field, quantity, pair)
    if side is Side.SELL:
        available = sellable(pair)
        if quantity > available:
            raise VenueError(
                "INSUFFICIENT_HOLDINGS",
                f"the account can sell {available.normalize()} {pair.asset_code}",
                field=field,
            )
    return CryptoTerms(
        account_number=account_number,
        rhs_account_number=rhs_account_number,
        pair=pair,
        side=side,
        type=order_type,
        quantity=quantity,
        dollar_amount=dollar_amount,
        limit_price=limit_price,
        stop_price=stop_price,
        time_in_force=time_in_force,
        estimated_price=_estimate(side, limit_price, stop_price, pair, quote),
    )


def _dollar_quantity(
    order_type: CryptoOrderType,
    side: Side,
    dollar_amount: Decimal,
    pair: CryptoPair,
    quote: CryptoQuote,
) -> Decimal:
    check_dollar_amount(dollar_amount, market=order_type is CryptoOrderType.MARKET)
    price = quote.ask_price if side is Side.BUY else quote.bid_price
    units = (dollar_amount / price / pair.asset_increment).to_integral_value(ROUND_FLOOR)
    return units * pair.asset_increment


def _estimate(
    side: Side,
    limit_price: Decimal | None,
    stop_price: Decimal | None,
    pair: CryptoPair,
    quote: CryptoQuote,
) -> Decimal:
    """Per-unit price an order is held at (buys) or expected to get (sells)."""
    if limit_price is not None:
        return limit_price
    if side is Side.SELL:
        return quote.bid_price
    reference = quote.ask_price if stop_price is None else max(stop_price, quote.ask_price)
    return _collared(reference, pair)
