"""The equity desk's records: validated order terms, orders, executions and approvals
(the fields every desk's records share are in ``_order_model``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ordergate.core import (
    ZERO,
    MarketHours,
    OrderState,
    OrderType,
    Side,
    TimeInForce,
)
from ordergate.sandbox.venue._equity_market import EquityListing
from ordergate.sandbox.venue._order_model import Approval, PartlyFilled

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


@dataclass(slots=True, kw_only=True)
class EquityOrder(PartlyFilled[OrderTerms, OrderState, Execution]):
    """One equity order and everything that has happened to it. ``lots_left`` holds the tax
    lots a sell of specific lots still has to close."""

    state: OrderState = OrderState.QUEUED
    lots_left: list[tuple[str, Decimal]] | None = None

    @property
    def symbol(self) -> str:
        return self.terms.symbol

    @property
    def fees(self) -> Decimal:
        return sum((e.fees for e in self.executions), ZERO)

    @property
    def average_price(self) -> Decimal | None:
        return self.average_price_to(Decimal("0.0001"))

    @property
    def is_open(self) -> bool:
        return not self.state.is_terminal


EquityApproval = Approval[OrderTerms]
