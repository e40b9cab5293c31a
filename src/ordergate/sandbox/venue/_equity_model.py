"""The equity desk's records: validated order terms, orders, executions and approvals."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from ordergate.core import (
    ZERO,
    MarketHours,
    OrderState,
    OrderType,
    PlacedAgent,
    Side,
    TimeInForce,
)
from ordergate.sandbox.venue._equity_market import EquityListing

__all__ = ["EquityApproval", "EquityOrder", "Execution", "OrderTerms"]


@dataclass(frozen=True, slots=True)
class OrderTerms:
    """An order request that passed every rule. ``quantity`` is known even for dollar orders
    (shares computed from the last trade price when the terms were checked)."""

    account_number: str
    listing: EquityListing
    side: Side
    type: OrderType
    quantity: Decimal
    dollar_amount: Decimal | None
    limit_price: Decimal | None
    stop_price: Decimal | None
    time_in_force: TimeInForce
    market_hours: MarketHours
    tax_lots: tuple[tuple[str, Decimal], ...] | None
    estimated_price: Decimal
    """Per-share price used for the buying-power hold and the estimated cost."""

    @property
    def symbol(self) -> str:
        return self.listing.symbol

    @property
    def estimated_cost(self) -> Decimal:
        return self.quantity * self.estimated_price


@dataclass(frozen=True, slots=True)
class Execution:
    id: str
    price: Decimal
    quantity: Decimal
    timestamp: datetime
    fees: Decimal


@dataclass(slots=True)
class EquityOrder:
    """One order and everything that has happened to it."""

    id: str
    ref_id: str
    terms: OrderTerms
    created_at: datetime
    confirm_at: datetime
    expires_at: datetime | None
    state: OrderState = OrderState.QUEUED
    placed_agent: PlacedAgent = PlacedAgent.AGENTIC
    updated_at: datetime | None = None
    next_check: datetime | None = None
    triggered: bool = False
    executions: list[Execution] = field(default_factory=list)
    lots_left: list[tuple[str, Decimal]] | None = None
    reject_reason: str | None = None
    doomed_reason: str | None = None
    sequence: int = 0

    @property
    def account_number(self) -> str:
        return self.terms.account_number

    @property
    def symbol(self) -> str:
        return self.terms.symbol

    @property
    def side(self) -> Side:
        return self.terms.side

    @property
    def cumulative_quantity(self) -> Decimal:
        return sum((e.quantity for e in self.executions), ZERO)

    @property
    def remaining(self) -> Decimal:
        return self.terms.quantity - self.cumulative_quantity

    @property
    def fees(self) -> Decimal:
        return sum((e.fees for e in self.executions), ZERO)

    @property
    def average_price(self) -> Decimal | None:
        filled = self.cumulative_quantity
        if not filled:
            return None
        notional = sum((e.price * e.quantity for e in self.executions), ZERO)
        return (notional / filled).quantize(Decimal("0.0001"))

    @property
    def last_transaction_at(self) -> datetime | None:
        return self.executions[-1].timestamp if self.executions else self.updated_at

    @property
    def is_open(self) -> bool:
        return not self.state.is_terminal


@dataclass(frozen=True, slots=True)
class EquityApproval:
    """An order waiting for the account holder's approval instead of being placed."""

    approval_id: str
    ref_id: str
    terms: OrderTerms
    created_at: datetime
    expires_at: datetime
    state: str = "pending"
