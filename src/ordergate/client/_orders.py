"""What the order-writing tools answer, shared by equity, options and crypto.

``PlaceResult`` makes a placement's two outcomes explicit: exactly one of ``order`` and
``approval`` is set, and ``ref_id`` is the idempotency key that was sent, so a retry after
a ``TransportError`` can send the very same one. An ``Approval`` is an order waiting for the
account holder in the Robinhood app; ``Amount`` is the wire's money object. A cancel answer
must say ``accepted: true``, and an order read back by id must be there exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import Annotated, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, Field, PlainValidator

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client._fields import NullableList, OptionalTime, WireBool, known_or_text
from ordergate.client._models import WireModel, parse_model
from ordergate.core import ZERO, OrderState

__all__ = [
    "Amount",
    "Approval",
    "ApprovalLeg",
    "OrderStateText",
    "PlaceResult",
    "ProposedOrder",
    "check_cancel_accepted",
    "parse_place_result",
    "single_order",
]

OrderT = TypeVar("OrderT", bound=BaseModel)

OrderStateText = Annotated[OrderState | str, PlainValidator(known_or_text(OrderState))]
"""An equity or option order's state: the ``OrderState`` when known, else the wire text."""

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
    is_primary: WireBool = False


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
    sub_orders: NullableList[ApprovalLeg] = Field(default_factory=list)


class Approval(WireModel):
    """An order waiting for the account holder's approval in the Robinhood app."""

    approval_id: str
    account_number: str
    asset_class: str
    state: str
    is_edited: WireBool
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


@cache
def placed_model(model: type[OrderT]) -> type[_Placed[OrderT]]:
    """``_Placed[model]``, built once. Pydantic keeps a parametrised model only weakly, and
    the class sits in reference cycles, so each garbage collection dropped it and the next
    place rebuilt its schema on the event loop (about 0.2 ms an option order); held here,
    it is built once per order model."""
    # A class held in a variable parametrises at runtime; mypy takes only literal types.
    return _Placed[model]  # type: ignore[valid-type]


def parse_place_result(
    model: type[OrderT], data: Any, *, tool: str, ref_id: str
) -> PlaceResult[OrderT]:
    """The ``data`` of a place tool as a ``PlaceResult``.

    Raises ``ResponseParseError`` unless exactly one of ``order`` and ``approval`` is there,
    and ``BusinessError`` (``ORDER_REJECTED``) when the order came back already refused.
    """
    placed = parse_model(placed_model(model), data, tool=tool)
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


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


IdT = TypeVar("IdT", bound=_HasId)


def single_order(orders: Sequence[IdT], order_id: str, *, tool: str) -> IdT:
    """The one order of a listing filtered by ``order_id``; ``ResponseParseError`` when the
    listing does not hold exactly it."""
    found = [order for order in orders if order.id == order_id]
    if len(found) != 1:
        raise ResponseParseError(
            f"expected order {order_id} once, found it {len(found)} times",
            tool=tool,
            field="orders",
        )
    return found[0]
