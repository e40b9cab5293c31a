"""Option trading tools: review / place / cancel / list orders, positions, exercises.

Every handler works on the venue's ``OptionsDesk``. Writes (review, place, cancel, exercise)
need the agentic account; reads answer for any of the user's accounts. Results of the
contract tools follow their captured output schemas exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ordergate.calendar import NyseCalendar
from ordergate.core import OptionDirection, OrderState, Side, to_wire, wire_money, wire_time
from ordergate.sandbox.market import MULTIPLIER
from ordergate.sandbox.tools._option_wire import option_quote_wire
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
from ordergate.sandbox.tools._prose_rules import invalid, iso_date, iso_instant
from ordergate.sandbox.tools._registry import tool
from ordergate.sandbox.venue._options import OptionReview, OptionsDesk, options_desk
from ordergate.sandbox.venue._options_book import OptionPosition
from ordergate.sandbox.venue._options_cover import cover, opened
from ordergate.sandbox.venue._options_model import OptionOrder
from ordergate.sandbox.venue._options_wire import (
    approval_wire,
    exercise_wire,
    order_wire,
    position_wire,
)

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "cancel_option_exercise",
    "cancel_option_order",
    "exercise_option",
    "get_option_orders",
    "get_option_positions",
    "place_option_order",
    "review_option_order",
]

_ORDERS_CURSOR = "option-orders"
_ZERO_FEE = {"fee_rate": "0.00", "fee": "0.00"}
_INSTRUMENT_URL = "https://api.robinhood.com/instruments/{}/"


def _fees() -> dict[str, Any]:
    """Robinhood charges no commission on options; the sandbox passes no fees through."""
    return {
        "occ_fee": dict(_ZERO_FEE),
        "or_fee": dict(_ZERO_FEE),
        "contract_fee": dict(_ZERO_FEE),
        "exchange_fee": dict(_ZERO_FEE),
        "cat_fee": dict(_ZERO_FEE),
        "gold_fee_savings": {"fee_saving_rate": "0.00", "fee_total_savings": "0.00"},
        "sales_taxes": [],
        "is_gold": False,
        "total_fee": "0.00",
    }


def _collateral(venue: Venue, review: OptionReview) -> dict[str, Any] | None:
    terms = review.terms
    if not terms.collateral and not any(leg.opens_short for leg in terms.legs):
        return None
    # Short calls a long call of the order does not cover are covered by shares.
    calls = sum(cover(opened(terms.legs, terms.quantity)).calls.values())
    equities: list[dict[str, Any]] = []
    if calls:
        underlying = _underlying_instrument_id(venue, review)
        equities.append(
            {
                "instrument_id": underlying,
                "instrument": _INSTRUMENT_URL.format(underlying),
                "symbol": terms.chain_symbol,
                "quantity": to_wire(MULTIPLIER * calls),
                "direction": "debit",
                "uncovered_shares": "0",
            }
        )
    return {
        "account_number": terms.account_number,
        "cash": {
            "amount": wire_money(terms.collateral) if terms.collateral else None,
            "direction": "debit",
            "infinite": False,
        },
        "equities": equities,
    }


def _underlying_instrument_id(venue: Venue, review: OptionReview) -> str:
    """The underlying's instrument id, from its option chain; when the desk's market lists
    no chain of it, from the shares' listing (the shares cover the calls), as an exercise
    books them."""
    desk = options_desk(venue)
    symbol = review.terms.chain_symbol
    chain = desk.market.chain(symbol)
    if chain is not None:
        return chain.underlying_instrument_id
    equity = desk.equity_desk()
    listing = None if equity is None else equity.listing(symbol)
    fallback = review.terms.legs[0].instrument.chain_id
    return listing.instrument_id if listing is not None else fallback


def _warnings(review: OptionReview) -> list[str]:
    warnings: list[str] = []
    if not review.executable_now:
        warnings.append(
            "Options trade in regular hours only; this order would wait until "
            f"{wire_time(review.next_execution_at)}."
        )
    if review.terms.collateral:
        warnings.append(
            "Short puts are secured by cash (strike x 100 per contract), a spread by its width."
        )
    if not review.buying_power_ok:
        warnings.append("Not enough buying power for this order.")
    return warnings


def _order_checks(review: OptionReview) -> dict[str, Any]:
    terms = review.terms
    estimate = "estimated_cost" if terms.direction is OptionDirection.DEBIT else "estimated_credit"
    if not review.buying_power_ok:
        alert = "insufficient_buying_power"
    elif not review.executable_now:
        alert = "market_closed"
    else:
        alert = "none"
    return {
        "alertType": alert,
        "details": {
            "passed": review.buying_power_ok,
            "buying_power": buying_power_check(review),
            estimate: wire_money(terms.estimated_premium),
            "estimated_price": to_wire(terms.estimated_price),
            "collateral": wire_money(terms.collateral),
            "session": {
                "executable_now": review.executable_now,
                "next_execution_at": wire_time(review.next_execution_at),
            },
            "warnings": _warnings(review),
        },
    }


@tool(
    "review_option_order",
    description="Check an option order (1 to 4 legs) without placing it: checks, quotes, fees.",
    guide="Review places nothing. Place the same terms with place_option_order and a fresh "
    "ref_id (a UUID) when order_checks.alertType is none.",
)
def review_option_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    review = options_desk(venue).review(args)
    terms = review.terms
    data: dict[str, Any] = {
        "account_number": terms.account_number,
        "type": str(terms.type),
        "direction": str(terms.direction),
        "quantity": str(terms.quantity),
        "time_in_force": str(terms.time_in_force),
        "market_hours": "regular_hours",
        "legs": [
            {
                "option_id": leg.option_id,
                "side": str(leg.side),
                "position_effect": str(leg.position_effect),
                "ratio_quantity": leg.ratio_quantity,
            }
            for leg in terms.legs
        ],
        "order_checks": _order_checks(review),
        "option_quotes": [option_quote_wire(quote) for quote in review.quotes],
        "fees": _fees(),
        "collateral": _collateral(venue, review),
        "customer_approval_required": review.approval_required,
    }
    if terms.price is not None:
        data["price"] = to_wire(terms.price)
    if review.approval_required:
        data["customer_approval_required_reason"] = APPROVAL_REQUIRED_REASON
    return data


@tool(
    "place_option_order",
    description="Place an option order: 1 to 4 legs, limit (price) or market (one leg).",
    guide="Orders fill asynchronously in regular hours: read get_option_orders for the state. "
    "On a transport failure, send the same ref_id again; it returns the same order.",
)
def place_option_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    calendar = venue.market.calendar
    placed = options_desk(venue).place(args)
    return placed_wire(placed, lambda order: order_wire(order, calendar), approval_wire)


@tool(
    "cancel_option_order",
    description="Ask to cancel an open option order.",
    guide="Read get_option_orders for the order's final state.",
)
def cancel_option_order(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    options_desk(venue).cancel(args["account_number"], args["order_id"])
    return {"accepted": True}


def _id_list(args: dict[str, Any], field: str) -> set[str] | None:
    raw = args.get(field)
    if raw is None or raw == "":
        return None
    ids = {part.strip().lower() for part in str(raw).split(",") if part.strip()}
    if not ids:
        raise invalid(field, f"{field} must list ids separated by commas")
    return ids


def _order_filter(args: dict[str, Any]) -> list[Callable[[OptionOrder], bool] | None]:
    checks: list[Callable[[OptionOrder], bool] | None] = [
        order_id_check(args),
        state_check(args, OrderState, unknown="unknown order state"),
    ]
    since = iso_instant(args, "created_at_gte")
    if since is not None:
        checks.append(lambda o: o.created_at >= since)
    chains = _id_list(args, "chain_ids")
    if chains is not None:
        checks.append(lambda o: o.terms.chain_id in chains)
    if args.get("underlying_type"):
        underlying = str(args["underlying_type"])
        if underlying not in ("equity", "index"):
            raise invalid("underlying_type", "underlying_type must be one of equity | index")
        checks.append(lambda o: o.terms.legs[0].instrument.underlying_type == underlying)
    checks.append(placed_agent_check(args))
    return checks


@tool(
    "get_option_orders",
    description="Option orders of an account, newest first, with filters and pagination.",
    guide="Pass next back as cursor for older orders. Each leg shows its executions; "
    "processed_premium is what actually filled.",
)
def get_option_orders(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    calendar = venue.market.calendar
    return order_page(
        _ORDERS_CURSOR,
        args.get("cursor"),
        lambda: options_desk(venue).listed(account.account_number, args.get("order_id")),
        _order_filter(args),
        lambda order: order_wire(order, calendar),
    )


def _position_filter(args: dict[str, Any]) -> list[Callable[[OptionPosition], bool]]:
    checks: list[Callable[[OptionPosition], bool]] = []
    if args.get("nonzero") is not False:
        checks.append(lambda p: p.quantity != 0)
    chains = _id_list(args, "chain_ids")
    if chains is not None:
        checks.append(lambda p: p.instrument.chain_id in chains)
    options = _id_list(args, "option_ids")
    if options is not None:
        checks.append(lambda p: p.option_id in options)
    if args.get("type"):
        side = str(args["type"])
        if side not in ("long", "short"):
            raise invalid("type", "type must be one of long | short")
        checks.append(lambda p: (p.quantity >= 0) == (side == "long"))
    if args.get("option_type"):
        kind = str(args["option_type"])
        if kind not in ("call", "put"):
            raise invalid("option_type", "option_type must be one of call | put")
        checks.append(lambda p: p.instrument.type == kind)
    exactly = iso_date(args, "expiration_date")
    if exactly is not None:
        checks.append(lambda p: p.instrument.expiration_date == exactly)
    latest = iso_date(args, "expiration_date_lte")
    if latest is not None:
        checks.append(lambda p: p.instrument.expiration_date <= latest)
    earliest = iso_date(args, "expiration_date_gte")
    if earliest is not None:
        checks.append(lambda p: p.instrument.expiration_date >= earliest)
    return checks


def _position_row(
    desk: OptionsDesk, position: OptionPosition, calendar: NyseCalendar, now: datetime
) -> dict[str, Any]:
    number, option_id = position.account_number, position.option_id
    return position_wire(
        position,
        calendar=calendar,
        now=now,
        pending_buy=desk.pending(number, option_id, Side.BUY),
        pending_sell=desk.pending(number, option_id, Side.SELL),
        pending_exercise=desk.pending_exercise(number, option_id),
    )


@tool(
    "get_option_positions",
    description="Option positions of an account (open ones unless nonzero is false).",
    guide="average_price is per contract (premium x 100). At their expiration close, a short "
    "call covered by shares or a cash-secured put in the money is assigned in shares at the "
    "strike; other positions still open settle in cash at intrinsic value. Exercise before "
    "then to take or deliver shares for a long contract.",
)
def get_option_positions(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    desk = options_desk(venue)
    checks = _position_filter(args)
    now = venue.now()
    calendar = venue.market.calendar
    rows = [
        _position_row(desk, position, calendar, now)
        for position in desk.positions.of(account.account_number)
        if all(check(position) for check in checks)
    ]
    return offset_listing("option-positions", "positions", rows, args.get("cursor"))


@tool(
    "exercise_option",
    description="Exercise long option contracts; carried out at the next regular close.",
    guide="A call exercise pays strike x 100 a contract for the shares; a put exercise "
    "delivers 100 shares a contract at the strike. cancel_option_exercise withdraws it "
    "before the close.",
)
def exercise_option(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return {"exercise": exercise_wire(options_desk(venue).exercise(args))}


@tool(
    "cancel_option_exercise",
    description="Withdraw the pending exercises of one option before the close.",
    guide="Only exercises not yet carried out (before the regular close) can be withdrawn.",
)
def cancel_option_exercise(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    cancelled = options_desk(venue).cancel_exercise(args["account_number"], args["option_id"])
    return {"accepted": True, "exercises": [exercise_wire(e) for e in cancelled]}
