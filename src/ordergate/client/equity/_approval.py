"""What the order-writing tools answer: an order or an approval to wait for; a cancel ack.

``PlaceResult`` makes the two outcomes explicit: exactly one of ``order`` and ``approval`` is
set, and ``ref_id`` is the idempotency key that was sent, so a retry after a
``TransportError`` can send the very same one. Shared by equity, options and crypto.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, Field

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client._models import Money, OptionalMoney, WireModel, parse_model
from ordergate.client.equity._wire import NULL_AS_EMPTY, OptionalTime
from ordergate.core import ZERO

__all__ = [
    "Amount",
    "Approval",
    "ApprovalLeg",
    "PlaceResult",
    "ProposedOrder",
    "check_cancel_accepted",
    "parse_place_result",
]

OrderT = TypeVar("OrderT", bound=BaseModel)

# States in which a venue has refused an order outright at placement.
_REFUSED_STATES = frozenset({"rejected", "failed"})


class Amount(WireModel):
    """A money object: ``{"amount": "12.30", "currency_code": "USD"}``."""

    amount: Money = ZERO
    currency_code: str | None = None


class ApprovalLeg(WireModel):
    """One ``sub_orders`` item of a proposed multi-leg order."""

    asset_class: str
    side: str
    quantity: Money = ZERO
    order_type: str
    trigger: str | None = None
    limit_price: Amount | None = None
    stop_price: Amount | None = None
    time_in_force: str | None = None
    is_primary: bool = False


class ProposedOrder(WireModel):
    """The order an approval would place (or placed, as ``actual_order``)."""

    asset_class: str
    symbol: str | None = None
    side: str | None = None
    order_type: str | None = None
    time_in_force: str | None = None
    market_hours: str | None = None
    trigger: str | None = None
    quantity: OptionalMoney = None
    dollar_amount: Amount | None = None
    limit_price: Amount | None = None
    stop_price: Amount | None = None
    estimated_cost: Amount | None = None
    estimated_credit: Amount | None = None
    estimated_quantity: OptionalMoney = None
    strike_price: Amount | None = None
    expiration_date: date | None = None
    option_type: str | None = None
    position_effect: str | None = None
    sub_orders: Annotated[list[ApprovalLeg], NULL_AS_EMPTY] = Field(default_factory=list)


class Approval(WireModel):
    """An order waiting for the account holder's approval in the Robinhood app."""

    approval_id: str
    account_number: str
    asset_class: str
    state: str
    is_edited: bool
    rationale: str | None = None
    proposed_order: ProposedOrder | None = None
    actual_order: ProposedOrder | None = None
    expires_at: OptionalTime = None
    created_at: OptionalTime = None
    updated_at: OptionalTime = None


@dataclass(frozen=True, slots=True)
class PlaceResult(Generic[OrderT]):
    """Exactly one of ``order`` (placed) and ``approval`` (waiting for a person) is set."""

    ref_id: str
    order: OrderT | None = None
    approval: Approval | None = None

    def __post_init__(self) -> None:
        if (self.order is None) == (self.approval is None):
            raise ValueError("a place result holds exactly one of an order and an approval")

    @property
    def needs_approval(self) -> bool:
        return self.approval is not None


class _Placed(WireModel, Generic[OrderT]):
    order: OrderT | None = None
    approval: Approval | None = None


def parse_place_result(
    model: type[OrderT], data: Any, *, tool: str, ref_id: str
) -> PlaceResult[OrderT]:
    """The ``data`` of a place tool as a ``PlaceResult``.

    Raises ``ResponseParseError`` unless exactly one of ``order`` and ``approval`` is there,
    and ``BusinessError`` (``ORDER_REJECTED``) when the order came back already refused.
    """
    placed = parse_model(_Placed[model], data, tool=tool)  # type: ignore[valid-type]
    if (placed.order is None) == (placed.approval is None):
        raise ResponseParseError(
            "expected exactly one of order and approval", tool=tool, field="order"
        )
    order: Any = placed.order
    if order is not None and str(getattr(order, "state", "")) in _REFUSED_STATES:
        reason = getattr(order, "reject_reason", None) or "no reason given"
        raise BusinessError(
            f"order {getattr(order, 'id', '?')} was {order.state}: {reason}",
            tool=tool,
            code="ORDER_REJECTED",
        )
    return PlaceResult(ref_id=ref_id, order=placed.order, approval=placed.approval)


def check_cancel_accepted(data: Any, *, tool: str) -> None:
    """A cancel answer that says ``accepted: true``; ``BusinessError`` when it says not."""
    accepted = data.get("accepted") if isinstance(data, dict) else None
    if not isinstance(accepted, bool):
        raise ResponseParseError("accepted: expected a boolean", tool=tool, field="accepted")
    if not accepted:
        raise BusinessError("the venue did not accept the cancel", tool=tool, code="CANCEL_REFUSED")
