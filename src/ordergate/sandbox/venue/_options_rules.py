"""The rules an option order request must pass before the desk reviews or places it.

Each refusal is a ``VenueError`` naming the argument at fault (``legs[i].option_id`` …):

- 1 to 4 ``legs``, each ``{option_id, side (buy|sell), position_effect (open|close),
  ratio_quantity (whole number ≥ 1, default 1)}``, on distinct, tradable contracts of one
  underlying; ``quantity`` a whole number ≥ 1 (units of the strategy);
- ``type`` ``limit`` (the default; ``price`` required, a multiple of the contract's tick for
  one leg, of a cent for several) or ``market`` (one leg only, no ``price``); no stop orders;
- ``time_in_force`` ``gfd`` (default) or ``gtc``; ``market_hours`` ``regular_hours`` only;
- ``direction`` ``debit`` or ``credit``: required with 2+ legs and consistent with the legs at
  current marks; for one leg it follows the side (buy = debit);
- option level (the captured tool descriptions of 2026-09-21): ``option_level_1`` may close
  and sell covered; ``option_level_2`` may also buy to open, one leg per order;
  ``option_level_3`` takes 2 to 4 legs (spreads), on a margin account only ("multi-leg is not
  available on cash or retirement accounts": ``ACCOUNT_TYPE_INSUFFICIENT``). Selling to open
  must be covered (``_options_cover``): by a long leg of the same type in the order that
  expires no earlier (a spread, holding the most it can lose), else a call by 100 free
  shares of the underlying per contract (shares not already covering another short call nor
  held by sell orders), a put by cash (strike x 100 per contract, held as buying power).
  Anything else is a naked short and is refused with ``OPTION_LEVEL_INSUFFICIENT``;
- closing more contracts than the position holds (net of other closing orders and pending
  exercises) is refused with ``INSUFFICIENT_POSITION``; opening the other way while a
  position is held is refused too.

Buying power is not checked here: review reports it and place refuses on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_CEILING, Decimal
from typing import Any, Protocol

from ordergate.core import (
    ZERO,
    DecimalFieldError,
    OptionDirection,
    OptionPositionEffect,
    Side,
    TimeInForce,
    parse_decimal,
)
from ordergate.sandbox.market import MULTIPLIER, OptionInstrument, OptionQuote, OptionType
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._options_cover import Holding, cover, opened, uncovered_by_closing
from ordergate.sandbox.venue._options_model import OptionLeg, OptionOrderType, OptionTerms
from ordergate.sandbox.venue._order_rules import invalid

__all__ = ["MARKET_BUY_COLLAR", "MAX_LEGS", "OptionBook", "check_option_terms", "option_level"]

MAX_LEGS = 4
MARKET_BUY_COLLAR = Decimal("0.05")
_CENT = Decimal("0.01")
_BUY_TO_OPEN_LEVEL = 2
_MULTI_LEG_LEVEL = 3


class OptionBook(Protocol):
    """What the rules read about one account and the market, at the current instant."""

    def instrument(self, option_id: str) -> OptionInstrument | None:
        """The contract with this id, or ``None`` when none is listed."""
        ...

    def quote(self, option_id: str) -> OptionQuote: ...

    def position(self, option_id: str) -> int:
        """Signed contracts held (long positive)."""
        ...

    def closing(self, option_id: str) -> int:
        """Contracts already spoken for by open closing orders and pending exercises."""
        ...

    def free_shares(self, symbol: str) -> Decimal:
        """Shares of ``symbol`` that could still cover a short call."""
        ...

    def holdings(self) -> list[Holding]:
        """The account's option positions (signed contracts)."""
        ...


def option_level(level: str) -> int:
    """``option_level_2`` → 2; anything unreadable counts as no options at all."""
    digits = level.rsplit("_", 1)[-1]
    return int(digits) if digits.isdigit() else 0


def _choice(args: Mapping[str, Any], field: str, allowed: tuple[str, ...], default: str) -> str:
    value = args.get(field)
    if value is None or value == "":
        return default
    text = str(value)
    if text not in allowed:
        raise invalid(field, f"{field} must be one of {' | '.join(allowed)}")
    return text


def _whole(field: str, value: object) -> int:
    """A whole number ≥ 1 from a string (quantity) or a JSON integer (ratio_quantity)."""
    try:
        parsed = parse_decimal(field, value)
    except DecimalFieldError:
        parsed = None
    if parsed is None or parsed != parsed.to_integral_value() or parsed < 1:
        raise invalid(field, f"{field} must be a whole number of at least 1")
    return int(parsed)


def _legs(raw: object, book: OptionBook) -> tuple[OptionLeg, ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_LEGS:
        raise invalid("legs", f"an option order has 1 to {MAX_LEGS} legs")
    legs: list[OptionLeg] = []
    for index, item in enumerate(raw):
        at = f"legs[{index}]"
        option_id = str(item["option_id"]).strip().lower()
        instrument = book.instrument(option_id)
        if instrument is None:
            raise VenueError("NOT_FOUND", f"no option {option_id!r}", field=f"{at}.option_id")
        if any(leg.option_id == instrument.id for leg in legs):
            raise invalid(f"{at}.option_id", "each leg must be a different option")
        if legs and instrument.chain_id != legs[0].instrument.chain_id:
            raise invalid(f"{at}.option_id", "every leg must be an option on one underlying")
        if instrument.state != "active":
            raise VenueError(
                "OPTION_NOT_TRADABLE",
                f"option {option_id} is {instrument.state} and cannot be traded",
                field=f"{at}.option_id",
            )
        side_text = str(item.get("side") or "")
        if side_text not in ("buy", "sell"):
            raise invalid(f"{at}.side", f"{at}.side must be one of buy | sell")
        effect_text = str(item.get("position_effect") or "")
        if effect_text not in ("open", "close"):
            raise invalid(f"{at}.position_effect", f"{at}.position_effect must be open | close")
        ratio = item.get("ratio_quantity")
        legs.append(
            OptionLeg(
                instrument=instrument,
                side=Side(side_text),
                position_effect=OptionPositionEffect(effect_text),
                ratio_quantity=1 if ratio is None else _whole(f"{at}.ratio_quantity", ratio),
            )
        )
    return tuple(legs)


def _price(field: str, value: object, tick: Decimal) -> Decimal | None:
    try:
        price = parse_decimal(field, value)
    except DecimalFieldError:
        raise invalid(field, f"{field} must be a decimal number") from None
    if price is None:
        return None
    if price <= 0:
        raise invalid(field, f"{field} must be greater than zero")
    if price % tick != 0:
        raise invalid(field, f"{field} must be a multiple of {tick}")
    return price


def _net_mark(legs: tuple[OptionLeg, ...], book: OptionBook) -> Decimal:
    """Net premium per unit at the marks: positive is a debit."""
    return sum(
        (leg.sign * leg.ratio_quantity * book.quote(leg.option_id).mark_price for leg in legs),
        ZERO,
    )


def _direction(
    args: Mapping[str, Any], legs: tuple[OptionLeg, ...], book: OptionBook
) -> OptionDirection:
    given = args.get("direction") or None
    if given is not None and str(given) not in ("debit", "credit"):
        raise invalid("direction", "direction must be one of debit | credit")
    if len(legs) == 1:
        natural = OptionDirection.DEBIT if legs[0].side is Side.BUY else OptionDirection.CREDIT
        if given is not None and str(given) != natural:
            raise invalid("direction", f"a single {legs[0].side} leg is a {natural}")
        return natural
    if given is None:
        raise invalid("direction", "direction (debit or credit) is required with 2 or more legs")
    direction = OptionDirection(str(given))
    net = _net_mark(legs, book)
    if (net > 0 and direction is OptionDirection.CREDIT) or (
        net < 0 and direction is OptionDirection.DEBIT
    ):
        actual = "debit" if net > 0 else "credit"
        raise invalid("direction", f"at current marks these legs are a {actual}")
    return direction


def _check_multi_leg(legs: tuple[OptionLeg, ...], level: int, margin: bool) -> None:
    if len(legs) < 2:
        return
    if level < _MULTI_LEG_LEVEL:
        raise VenueError(
            "OPTION_LEVEL_INSUFFICIENT",
            f"orders of 2 or more legs need option_level_{_MULTI_LEG_LEVEL} "
            f"(this account is at option_level_{level})",
            field="legs",
        )
    if not margin:
        raise VenueError(
            "ACCOUNT_TYPE_INSUFFICIENT",
            "multi-leg option orders are not available on cash or retirement accounts",
            field="account_number",
        )


def _check_positions(
    legs: tuple[OptionLeg, ...], quantity: int, level: int, book: OptionBook
) -> Decimal:
    """Refuse over-closing, flipping and naked shorts; the cash the sold contracts need."""
    for index, leg in enumerate(legs):
        at = f"legs[{index}]"
        contracts = quantity * leg.ratio_quantity
        held = book.position(leg.option_id)
        if leg.position_effect is OptionPositionEffect.CLOSE:
            holding_side = held > 0 if leg.side is Side.SELL else held < 0
            available = abs(held) - book.closing(leg.option_id) if holding_side else 0
            if contracts > available:
                kind = "long" if leg.side is Side.SELL else "short"
                raise VenueError(
                    "INSUFFICIENT_POSITION",
                    f"{at} closes {contracts} contracts; {max(available, 0)} {kind} contracts "
                    "are available to close",
                    field="quantity",
                )
            continue
        if (held > 0 and leg.side is Side.SELL) or (held < 0 and leg.side is Side.BUY):
            other = "sell" if held > 0 else "buy"
            raise invalid(
                f"{at}.position_effect",
                f"the account already holds the other side of this option; {other} to close",
            )
        if leg.side is Side.BUY and level < _BUY_TO_OPEN_LEVEL:
            raise VenueError(
                "OPTION_LEVEL_INSUFFICIENT",
                f"buying to open needs option_level_{_BUY_TO_OPEN_LEVEL}",
                field=f"{at}.side",
            )
    secured = cover(opened(legs, quantity))
    left = uncovered_by_closing(book.holdings(), legs, quantity)
    for symbol in sorted({*secured.calls, *left.calls}):
        calls = secured.calls.get(symbol, 0) + left.calls.get(symbol, 0)
        needed = MULTIPLIER * calls
        free = book.free_shares(symbol)
        if needed > free:
            naked = next((i for i, leg in enumerate(legs) if _naked_call_on(leg, symbol)), None)
            if naked is None:
                raise VenueError(
                    "OPTION_LEVEL_INSUFFICIENT",
                    f"closing these contracts leaves {calls} short calls of {symbol} uncovered "
                    f"({needed} free shares needed, {free} free); buy the short calls to "
                    "close first or in the same order",
                    field="legs",
                )
            raise VenueError(
                "OPTION_LEVEL_INSUFFICIENT",
                f"selling {calls} calls to open needs {needed} free shares of {symbol} to "
                f"cover them ({free} free); naked calls are not permitted",
                field=f"legs[{naked}].side",
            )
    return secured.total_cash + left.total_cash


def _naked_call_on(leg: OptionLeg, symbol: str) -> bool:
    return (
        leg.opens_short
        and leg.instrument.type is OptionType.CALL
        and leg.instrument.chain_symbol == symbol
    )


def _estimate(
    order_type: OptionOrderType,
    price: Decimal | None,
    legs: tuple[OptionLeg, ...],
    book: OptionBook,
) -> Decimal:
    if price is not None:
        return price
    leg = legs[0]
    quote = book.quote(leg.option_id)
    if leg.side is Side.SELL:
        return quote.bid_price
    return (quote.ask_price * (1 + MARKET_BUY_COLLAR)).quantize(_CENT, rounding=ROUND_CEILING)


def check_option_terms(
    args: Mapping[str, Any], *, account_number: str, level: int, margin: bool, book: OptionBook
) -> OptionTerms:
    """Validated terms of an option order request, or ``VenueError`` naming the bad field.
    ``margin``: the account is a margin account (not cash, not retirement)."""
    legs = _legs(args.get("legs"), book)
    _check_multi_leg(legs, level, margin)
    quantity = _whole("quantity", args.get("quantity"))
    order_type = OptionOrderType(_choice(args, "type", ("limit", "market"), "limit"))
    if order_type is OptionOrderType.MARKET and len(legs) > 1:
        raise invalid("type", "orders of 2 or more legs must be limit orders")
    tick = legs[0].instrument.min_ticks.tick(_parsed_or_zero(args.get("price")))
    price = _price("price", args.get("price"), tick if len(legs) == 1 else _CENT)
    if order_type is OptionOrderType.LIMIT and price is None:
        raise invalid("price", "price is required for limit orders")
    if order_type is OptionOrderType.MARKET and price is not None:
        raise invalid("price", "price does not apply to market orders")
    if args.get("stop_price") not in (None, ""):
        raise invalid("stop_price", "stop orders are not offered for options on this venue")
    time_in_force = TimeInForce(_choice(args, "time_in_force", ("gfd", "gtc"), "gfd"))
    if args.get("market_hours") not in (None, "", "regular_hours"):
        raise invalid("market_hours", "options trade in regular hours only (regular_hours)")
    direction = _direction(args, legs, book)
    collateral = _check_positions(legs, quantity, level, book)
    return OptionTerms(
        account_number=account_number,
        legs=legs,
        direction=direction,
        type=order_type,
        quantity=quantity,
        price=price,
        time_in_force=time_in_force,
        estimated_price=_estimate(order_type, price, legs, book),
        collateral=collateral,
    )


def _parsed_or_zero(value: object) -> Decimal:
    try:
        parsed = parse_decimal("price", value)
    except DecimalFieldError:
        return ZERO
    return ZERO if parsed is None else parsed
