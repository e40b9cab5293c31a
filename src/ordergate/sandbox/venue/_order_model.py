"""What the records of every order desk share: an order's placement and lifecycle fields, and
the approval an order becomes while the account holder must approve trades.

Each desk's order subclasses ``Order`` with its own terms, state enum (crypto spells
``canceled``) and executions. ``PartlyFilled`` adds the fill bookkeeping of the desks whose
orders fill in pieces (equity, crypto); option orders fill all at once, leg by leg.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Generic, Protocol, TypeVar

from ordergate.core import ZERO, PlacedAgent, Side

__all__ = ["Approval", "Fill", "Order", "PartlyFilled", "PieceTerms", "Terms"]


class Terms(Protocol):
    """Validated order terms: whatever the asset class, they name the brokerage account."""

    @property
    def account_number(self) -> str: ...


class PieceTerms(Terms, Protocol):
    """Terms of an order that fills in pieces: a side and a quantity to fill."""

    @property
    def side(self) -> Side: ...

    @property
    def quantity(self) -> Decimal: ...


class Fill(Protocol):
    """One execution of an order that fills in pieces."""

    @property
    def price(self) -> Decimal: ...

    @property
    def quantity(self) -> Decimal: ...

    @property
    def timestamp(self) -> datetime: ...


TermsT = TypeVar("TermsT", bound=Terms)
PieceTermsT = TypeVar("PieceTermsT", bound=PieceTerms)
StateT = TypeVar("StateT", bound=StrEnum)
ExecutionT = TypeVar("ExecutionT")
FillT = TypeVar("FillT", bound=Fill)


@dataclass(slots=True, kw_only=True)
class Order(Generic[TermsT, StateT, ExecutionT]):
    """One order and everything that has happened to it.

    ``doomed_reason`` is set at acceptance by the forced-rejection fault and shows as
    ``reject_reason`` when the order is rejected at its confirmation; ``next_check`` is the
    instant of the order's next look at the market; ``sequence`` is its place in the desk.
    """

    id: str
    ref_id: str
    terms: TermsT
    created_at: datetime
    confirm_at: datetime
    expires_at: datetime | None
    state: StateT
    placed_agent: PlacedAgent = PlacedAgent.AGENTIC
    updated_at: datetime | None = None
    next_check: datetime | None = None
    executions: list[ExecutionT] = field(default_factory=list)
    reject_reason: str | None = None
    doomed_reason: str | None = None
    sequence: int = 0

    @property
    def account_number(self) -> str:
        return self.terms.account_number

    @property
    def is_open(self) -> bool:
        raise NotImplementedError


@dataclass(slots=True, kw_only=True)
class PartlyFilled(Order[PieceTermsT, StateT, FillT]):
    """An order that fills in pieces, each look at the market taking at most one execution.

    ``triggered`` turns true once a stop order's stop has been crossed (at once for others).
    """

    triggered: bool = False

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
    def last_transaction_at(self) -> datetime | None:
        return self.executions[-1].timestamp if self.executions else self.updated_at

    def average_price_to(self, increment: Decimal) -> Decimal | None:
        """The quantity-weighted price of the executions so far, to ``increment``."""
        filled = self.cumulative_quantity
        if not filled:
            return None
        notional = sum((e.price * e.quantity for e in self.executions), ZERO)
        return (notional / filled).quantize(increment)


@dataclass(frozen=True, slots=True)
class Approval(Generic[TermsT]):
    """An order waiting for the account holder's approval instead of being placed."""

    approval_id: str
    ref_id: str
    terms: TermsT
    created_at: datetime
    expires_at: datetime
    state: str = "pending"
