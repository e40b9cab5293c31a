"""The crypto desk's records: validated order terms, orders, executions and approvals."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from ordergate.core import (
    ZERO,
    CryptoOrderState,
    CryptoOrderType,
    CryptoTimeInForce,
    PlacedAgent,
    Side,
)
from ordergate.sandbox.market import CryptoPair

__all__ = ["OPEN_STATES", "CryptoApproval", "CryptoExecution", "CryptoOrder", "CryptoTerms"]

OPEN_STATES = frozenset(
    {CryptoOrderState.QUEUED, CryptoOrderState.CONFIRMED, CryptoOrderState.PARTIALLY_FILLED}
)


@dataclass(frozen=True, slots=True)
class CryptoTerms:
    """A crypto order request that passed every rule. ``quantity`` is in units of the asset,
    computed from the quote for a ``dollar_amount`` order."""

    account_number: str
    rhs_account_number: str
    pair: CryptoPair
    side: Side
    type: CryptoOrderType
    quantity: Decimal
    dollar_amount: Decimal | None
    limit_price: Decimal | None
    stop_price: Decimal | None
    time_in_force: CryptoTimeInForce
    estimated_price: Decimal
    """Price per unit used for the buying-power hold and the estimate."""

    @property
    def symbol(self) -> str:
        return self.pair.symbol

    @property
    def estimated_cost(self) -> Decimal:
        return self.quantity * self.estimated_price

    @property
    def has_limit(self) -> bool:
        return self.type in (CryptoOrderType.LIMIT, CryptoOrderType.STOP_LIMIT)


@dataclass(frozen=True, slots=True)
class CryptoExecution:
    id: str
    price: Decimal
    quantity: Decimal
    notional: Decimal
    timestamp: datetime


@dataclass(slots=True)
class CryptoOrder:
    """One crypto order and everything that has happened to it."""

    id: str
    ref_id: str
    terms: CryptoTerms
    created_at: datetime
    confirm_at: datetime
    expires_at: datetime | None
    state: CryptoOrderState = CryptoOrderState.QUEUED
    placed_agent: PlacedAgent = PlacedAgent.AGENTIC
    updated_at: datetime | None = None
    next_check: datetime | None = None
    triggered: bool = False
    executions: list[CryptoExecution] = field(default_factory=list)
    reject_reason: str | None = None
    doomed_reason: str | None = None
    sequence: int = 0

    @property
    def account_number(self) -> str:
        return self.terms.account_number

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
    def executed_notional(self) -> Decimal:
        return sum((e.notional for e in self.executions), ZERO)

    @property
    def average_price(self) -> Decimal | None:
        filled = self.cumulative_quantity
        if not filled:
            return None
        notional = sum((e.price * e.quantity for e in self.executions), ZERO)
        return (notional / filled).quantize(self.terms.pair.quote_increment)

    @property
    def last_transaction_at(self) -> datetime | None:
        return self.executions[-1].timestamp if self.executions else self.updated_at

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES


@dataclass(frozen=True, slots=True)
class CryptoApproval:
    """A crypto order waiting for the account holder's approval instead of being placed."""

    approval_id: str
    ref_id: str
    terms: CryptoTerms
    created_at: datetime
    expires_at: datetime
    state: str = "pending"
