"""The options desk's records: validated terms, orders, leg executions, approvals, exercises.

Prices are per share of premium (``2.35``); a contract is ``MULTIPLIER`` (100) shares, so
one contract at ``2.35`` moves $235.00. A multi-leg order's ``price`` is the net premium per
unit of the strategy (one unit = ``ratio_quantity`` contracts of every leg), paid for a
``debit`` and received for a ``credit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from ordergate.core import (
    ZERO,
    OptionDirection,
    OptionPositionEffect,
    OrderState,
    Side,
    TimeInForce,
)
from ordergate.sandbox.market import MULTIPLIER, OptionInstrument
from ordergate.sandbox.venue._order_model import Approval, Order

__all__ = [
    "MULTIPLIER",
    "ExerciseState",
    "OptionApproval",
    "OptionExecution",
    "OptionExercise",
    "OptionLeg",
    "OptionOrder",
    "OptionOrderType",
    "OptionTerms",
]


class OptionOrderType(StrEnum):
    LIMIT = "limit"
    MARKET = "market"


class ExerciseState(StrEnum):
    PENDING = "pending"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class OptionLeg:
    instrument: OptionInstrument
    side: Side
    position_effect: OptionPositionEffect
    ratio_quantity: int

    @property
    def option_id(self) -> str:
        return self.instrument.id

    @property
    def sign(self) -> int:
        """+1 for a buy (premium paid), -1 for a sell (premium received)."""
        return 1 if self.side is Side.BUY else -1

    @property
    def opens_short(self) -> bool:
        return self.side is Side.SELL and self.position_effect is OptionPositionEffect.OPEN


@dataclass(frozen=True, slots=True)
class OptionTerms:
    """An option order request that passed every rule."""

    account_number: str
    legs: tuple[OptionLeg, ...]
    direction: OptionDirection
    type: OptionOrderType
    quantity: int
    price: Decimal | None
    time_in_force: TimeInForce
    estimated_price: Decimal
    """Net premium per unit used for the hold and the estimate: the limit, else the quote
    (collared for a market buy)."""
    collateral: Decimal
    """Cash that secures the puts this order sells to open (strike x 100 per contract)."""

    @property
    def chain_symbol(self) -> str:
        return self.legs[0].instrument.chain_symbol

    @property
    def chain_id(self) -> str:
        return self.legs[0].instrument.chain_id

    @property
    def estimated_premium(self) -> Decimal:
        """Dollars paid (debit) or received (credit) for the whole order at the estimate."""
        return self.estimated_price * MULTIPLIER * self.quantity

    @property
    def required(self) -> Decimal:
        """Buying power the order holds while it works."""
        paid = self.estimated_premium if self.direction is OptionDirection.DEBIT else ZERO
        return paid + self.collateral

    def contracts(self, leg: OptionLeg) -> int:
        return self.quantity * leg.ratio_quantity


@dataclass(frozen=True, slots=True)
class OptionExecution:
    id: str
    price: Decimal
    quantity: int
    timestamp: datetime


@dataclass(slots=True, kw_only=True)
class OptionOrder(Order[OptionTerms, OrderState, list[OptionExecution]]):
    """One option order and everything that has happened to it. A fill of some units
    appends one execution to each leg's list in ``executions`` (``ratio_quantity``
    contracts of the leg a unit), so the legs' lists grow together."""

    leg_ids: tuple[str, ...]
    expires_at: datetime
    state: OrderState = OrderState.QUEUED
    net_price: Decimal | None = None

    @property
    def is_open(self) -> bool:
        return not self.state.is_terminal

    @property
    def processed_quantity(self) -> int:
        """Units filled so far (each leg's first execution list counts them)."""
        first = self.terms.legs[0]
        contracts = sum(e.quantity for e in self.executions[0]) if self.executions else 0
        return contracts // first.ratio_quantity

    @property
    def remaining(self) -> int:
        """Units still to fill."""
        return self.terms.quantity - self.processed_quantity

    @property
    def processed_premium(self) -> Decimal:
        """Dollars paid (debit) or received (credit) for the units filled: each fill's legs,
        ``sign x price x contracts``, x 100."""
        paid = sum(
            (
                leg.sign * execution.price * execution.quantity
                for leg, executions in zip(self.terms.legs, self.executions, strict=True)
                for execution in executions
            ),
            ZERO,
        )
        if self.terms.direction is OptionDirection.CREDIT:
            paid = -paid
        return paid * MULTIPLIER

    @property
    def canceled_quantity(self) -> int:
        ended = self.state.is_terminal and self.state is not OrderState.FILLED
        return self.remaining if ended else 0

    @property
    def pending_quantity(self) -> int:
        return self.remaining if self.is_open else 0

    @property
    def last_transaction_at(self) -> datetime | None:
        filled = [e.timestamp for leg in self.executions for e in leg]
        return max(filled) if filled else self.updated_at


OptionApproval = Approval[OptionTerms]


@dataclass(slots=True)
class OptionExercise:
    """A request to exercise long contracts, carried out at the regular close."""

    id: str
    ref_id: str
    account_number: str
    instrument: OptionInstrument
    quantity: int
    created_at: datetime
    process_at: datetime
    reason: str | None
    state: ExerciseState = ExerciseState.PENDING
    updated_at: datetime | None = None
    failure_reason: str | None = None
    sequence: int = 0

    @property
    def is_pending(self) -> bool:
        return self.state is ExerciseState.PENDING

    @property
    def shares(self) -> Decimal:
        return MULTIPLIER * self.quantity

    @property
    def strike_value(self) -> Decimal:
        """Dollars paid (call) or received (put) for the shares."""
        return self.instrument.strike_price * self.shares
