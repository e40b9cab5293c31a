"""The crypto desk's records: validated order terms, orders, executions and approvals
(the fields every desk's records share are in ``_order_model``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ordergate.core import (
    ZERO,
    CryptoOrderState,
    CryptoOrderType,
    CryptoTimeInForce,
    Side,
)
from ordergate.sandbox.market import CryptoPair
from ordergate.sandbox.venue._order_model import Approval, PartlyFilled

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


@dataclass(slots=True, kw_only=True)
class CryptoOrder(PartlyFilled[CryptoTerms, CryptoOrderState, CryptoExecution]):
    """One crypto order and everything that has happened to it."""

    state: CryptoOrderState = CryptoOrderState.QUEUED

    @property
    def executed_notional(self) -> Decimal:
        return sum((e.notional for e in self.executions), ZERO)

    @property
    def average_price(self) -> Decimal | None:
        return self.average_price_to(self.terms.pair.quote_increment)

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES


CryptoApproval = Approval[CryptoTerms]
