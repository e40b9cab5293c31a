"""An option order as the order path can name it, and what it is priced on.

``OptionProposal`` is an option order of one to ``MAX_LEGS`` legs; each ``OptionLeg`` names
its contract (``OptionContract``: underlying, expiry, strike, call or put), a side, a position
effect and a ratio. ``quantity`` is the number of strategy units: every leg trades
``ratio × quantity`` contracts. ``limit_price`` is the net premium per share of one unit,
paid for a ``debit`` and received for a ``credit`` (the venue's convention).

Every value is validated on construction and raises ``ProposalError(field, reason)``; the
shapes an agent may try against the wall have a code of their own:
``option_legs_mixed_underlyings`` (legs on two underlyings), ``option_legs_too_many`` (a
fifth leg), ``option_legs_duplicate`` (one option twice). Nothing here reads an agent's label
for the strategy: there is no field for one.

``OptionQuote`` is one leg's quote (stage A); ``OptionTerms`` are the priced terms the caps
are measured on, estimated from the quotes at stage A (``estimate_option_terms``) or the
terms ``review_option_order`` returned at stage B.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from ordergate.core import (
    ZERO,
    OptionDirection,
    OptionPositionEffect,
    OptionType,
    OrderType,
    Side,
    TimeInForce,
)
from ordergate.policy._errors import ProposalError
from ordergate.policy._symbols import is_padded, normalise_symbol

__all__ = [
    "MAX_LEGS",
    "MULTIPLIER",
    "OptionContract",
    "OptionLeg",
    "OptionProposal",
    "OptionQuote",
    "OptionTerms",
    "estimate_option_terms",
]

MAX_LEGS = 4
"""The most legs the venue takes in one option order (level 3)."""

MULTIPLIER = 100
"""Shares per contract: a premium of 2.35 per share is $235.00 a contract."""

_OPTION_ORDER_TYPES = frozenset({OrderType.LIMIT, OrderType.MARKET})


def _whole(field: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProposalError(field, "must be a whole number")
    if value < low:
        raise ProposalError(field, f"must be at least {low}")
    return value


def _positive(field: str, value: object) -> Decimal:
    if not isinstance(value, Decimal) or not value.is_finite():
        raise ProposalError(field, "must be a finite Decimal")
    if value <= 0:
        raise ProposalError(field, "must be positive")
    return value


def _kind(field: str, value: object, kind: type) -> None:
    if not isinstance(value, kind):
        raise ProposalError(field, f"must be a {kind.__name__}")


@dataclass(frozen=True, slots=True)
class OptionContract:
    """The contract an ``option_id`` names: underlying, expiry date, strike, call or put."""

    underlying: str
    expiry: date
    strike: Decimal
    kind: OptionType

    def __post_init__(self) -> None:
        if not isinstance(self.underlying, str):
            raise ProposalError("underlying", "must be a string")
        if is_padded(self.underlying):
            raise ProposalError("underlying", "has space or a control character around it")
        normal = normalise_symbol(self.underlying)
        if normal is None:
            raise ProposalError("underlying", "must be a plain ticker")
        object.__setattr__(self, "underlying", normal)
        # A datetime is a date too; an expiry is a day, never an instant.
        if not isinstance(self.expiry, date) or isinstance(self.expiry, datetime):
            raise ProposalError("expiry", "must be a date")
        _positive("strike", self.strike)
        _kind("kind", self.kind, OptionType)


@dataclass(frozen=True, slots=True)
class OptionLeg:
    """One leg: ``ratio`` contracts of ``contract`` per unit, bought or sold, to open or close."""

    option_id: str
    contract: OptionContract
    side: Side
    position_effect: OptionPositionEffect
    ratio: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.option_id, str) or not self.option_id:
            raise ProposalError("option_id", "must be a non-empty string")
        if is_padded(self.option_id):
            raise ProposalError("option_id", "has space or a control character around it")
        _kind("contract", self.contract, OptionContract)
        _kind("side", self.side, Side)
        _kind("position_effect", self.position_effect, OptionPositionEffect)
        _whole("ratio", self.ratio, 1)

    @property
    def opens(self) -> bool:
        return self.position_effect is OptionPositionEffect.OPEN

    @property
    def sign(self) -> int:
        """+1 for a buy (premium paid), -1 for a sell (premium received)."""
        return 1 if self.side is Side.BUY else -1


@dataclass(frozen=True, slots=True)
class OptionProposal:
    """One option order: 1 to ``MAX_LEGS`` legs on one underlying, ``quantity`` units.

    A multi-leg order is a limit order (as at the venue); a single leg's ``direction`` is
    its side's (a buy is a debit, a sell a credit)."""

    legs: tuple[OptionLeg, ...]
    quantity: int
    direction: OptionDirection
    order_type: OrderType = OrderType.LIMIT
    limit_price: Decimal | None = None
    time_in_force: TimeInForce = TimeInForce.GFD
    account: str | None = None

    def __post_init__(self) -> None:
        legs = self.legs
        if not isinstance(legs, tuple) or not legs:
            raise ProposalError("legs", "must be a non-empty tuple of legs")
        if len(legs) > MAX_LEGS:
            raise ProposalError(
                "legs", f"at most {MAX_LEGS} legs in one order", code="option_legs_too_many"
            )
        seen: set[str] = set()
        for leg in legs:
            _kind("legs", leg, OptionLeg)
            if leg.option_id in seen:
                raise ProposalError(
                    "legs", "each leg must be a different option", code="option_legs_duplicate"
                )
            seen.add(leg.option_id)
        underlying = legs[0].contract.underlying
        if any(leg.contract.underlying != underlying for leg in legs):
            raise ProposalError(
                "legs",
                "every leg must be on the same underlying",
                code="option_legs_mixed_underlyings",
            )
        _whole("quantity", self.quantity, 1)
        _kind("direction", self.direction, OptionDirection)
        _kind("order_type", self.order_type, OrderType)
        if self.order_type not in _OPTION_ORDER_TYPES:
            raise ProposalError("order_type", "an option order is a limit or a market order")
        if len(legs) > 1 and self.order_type is not OrderType.LIMIT:
            raise ProposalError("order_type", "an order of 2 or more legs must be a limit order")
        if len(legs) == 1:
            natural = OptionDirection.DEBIT if legs[0].side is Side.BUY else OptionDirection.CREDIT
            if self.direction is not natural:
                raise ProposalError("direction", f"a single {legs[0].side} leg is a {natural}")
        if self.order_type is OrderType.LIMIT:
            if self.limit_price is None:
                raise ProposalError("limit_price", "required for a limit order")
            _positive("limit_price", self.limit_price)
        elif self.limit_price is not None:
            raise ProposalError("limit_price", "not for a market order")
        _kind("time_in_force", self.time_in_force, TimeInForce)
        if self.account is not None and (not isinstance(self.account, str) or not self.account):
            raise ProposalError("account", "must be a non-empty string or absent")

    @property
    def underlying(self) -> str:
        return self.legs[0].contract.underlying

    @property
    def opens(self) -> bool:
        """Whether any leg opens a position (an order of closing legs only does not)."""
        return any(leg.opens for leg in self.legs)

    @property
    def contracts(self) -> int:
        """The most contracts any one leg trades: ``quantity`` × its ratio."""
        return self.quantity * max(leg.ratio for leg in self.legs)


@dataclass(frozen=True, slots=True)
class OptionQuote:
    """One option's quote (per share). Non-positive prices count as absent."""

    option_id: str
    bid: Decimal | None
    ask: Decimal | None
    at: datetime | None


@dataclass(frozen=True, slots=True)
class OptionTerms:
    """Priced terms of an option order, what the caps are measured on.

    ``premium`` is the net premium per share of one unit (positive; the order's
    ``direction`` says whether it is paid or received), ``fees`` the order's fees in USD,
    ``collateral`` the cash the venue holds against it, ``buying_power_effect`` what it
    takes from buying power (USD), ``alerts`` the venue's order checks that are not
    ``none``. Unknown figures are ``None``: the checks that need one refuse."""

    premium: Decimal | None
    fees: Decimal = ZERO
    collateral: Decimal | None = None
    buying_power_effect: Decimal | None = None
    alerts: tuple[str, ...] = ()

    def premium_usd(self, proposal: OptionProposal) -> Decimal | None:
        """The order's premium in dollars: per share × 100 × quantity."""
        premium = self.premium
        return None if premium is None else premium * MULTIPLIER * proposal.quantity


def _usable(price: Decimal | None) -> Decimal | None:
    return price if price is not None and price > 0 else None


def estimate_option_terms(
    proposal: OptionProposal, quotes: Mapping[str, OptionQuote]
) -> OptionTerms:
    """Stage A terms: a limit order at its net limit; a market order at the far side of each
    leg's quote (a buy at the ask, a sell at the bid). A leg without a usable price leaves the
    premium unknown; a market order whose far sides net against its direction counts zero."""
    if proposal.limit_price is not None:
        return OptionTerms(premium=proposal.limit_price)
    net = ZERO
    for leg in proposal.legs:
        quote = quotes.get(leg.option_id)
        if quote is None:
            return OptionTerms(premium=None)
        price = _usable(quote.ask if leg.side is Side.BUY else quote.bid)
        if price is None:
            return OptionTerms(premium=None)
        net += leg.sign * leg.ratio * price
    paid = net if proposal.direction is OptionDirection.DEBIT else -net
    return OptionTerms(premium=max(paid, ZERO))
