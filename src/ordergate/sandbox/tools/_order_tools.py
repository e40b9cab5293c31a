"""What the order tools of every desk (equity, options, crypto) share: the result of a place,
the approval notice, the buying-power check, the common order filters and the paged
listings (``_equity_paging`` cursors).

The rules that differ per asset class stay with each family: which filters a listing takes,
how it reads ``created_at_gte`` (the equity tools insist on a timezone), what it puts on the
wire.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from ordergate.core import PlacedAgent, wire_money
from ordergate.sandbox.tools._prose_rules import invalid
from ordergate.sandbox.venue._equity_paging import (
    PAGE_SIZE,
    decode_cursor,
    encode_cursor,
    offset_page,
)
from ordergate.sandbox.venue._order_desk import Checked
from ordergate.sandbox.venue._order_model import Approval, Order, Terms

__all__ = [
    "APPROVAL_REQUIRED_REASON",
    "buying_power_check",
    "offset_listing",
    "order_id_check",
    "order_page",
    "placed_agent_check",
    "placed_wire",
    "state_check",
]

APPROVAL_REQUIRED_REASON = (
    "Trade approval is on for this account: the order will wait for the account "
    "holder to approve it in the Robinhood app."
)


OrderT = TypeVar("OrderT", bound="Order[Any, Any, Any]")
PlacedT = TypeVar("PlacedT")
TermsT = TypeVar("TermsT", bound=Terms)
Check = Callable[[OrderT], bool]


def placed_wire(
    placed: PlacedT | Approval[TermsT],
    order_wire: Callable[[PlacedT], dict[str, Any]],
    approval_wire: Callable[[Approval[TermsT]], dict[str, Any]],
) -> dict[str, Any]:
    """What a place tool returns: ``{"order": ...}``, or ``{"approval": ...}`` when filed."""
    if isinstance(placed, Approval):
        return {"approval": approval_wire(placed)}
    return {"order": order_wire(placed)}


def buying_power_check(review: Checked[Any]) -> dict[str, Any]:
    """The ``buying_power`` item of a review's order checks."""
    check: dict[str, Any] = {
        "passed": review.buying_power_ok,
        "required": wire_money(review.required),
        "available": wire_money(review.buying_power),
    }
    if not review.buying_power_ok:
        check["code"] = "INSUFFICIENT_BUYING_POWER"
    return check


def order_id_check(args: dict[str, Any]) -> Check[Order[Any, Any, Any]] | None:
    """Orders with the ``order_id`` asked for (``None``: no such filter)."""
    if not args.get("order_id"):
        return None
    wanted = str(args["order_id"])
    return lambda o: o.id == wanted


def state_check(
    args: dict[str, Any], states: type[StrEnum], *, unknown: str
) -> Check[Order[Any, Any, Any]] | None:
    """Orders in the ``state`` asked for; ``unknown`` is the message for any other value."""
    if not args.get("state"):
        return None
    try:
        state = states(args["state"])
    except ValueError:
        raise invalid("state", unknown) from None
    return lambda o: o.state is state


def placed_agent_check(args: dict[str, Any]) -> Check[Order[Any, Any, Any]] | None:
    """Orders placed by the ``placed_agent`` asked for."""
    if not args.get("placed_agent"):
        return None
    try:
        agent = PlacedAgent(args["placed_agent"])
    except ValueError:
        raise invalid(
            "placed_agent", "placed_agent must be user | agentic | recurring | drip"
        ) from None
    return lambda o: o.placed_agent is agent


def order_page(
    kind: str,
    cursor: object,
    orders: Callable[[], Iterable[OrderT]],
    checks: Sequence[Check[OrderT] | None],
    wire: Callable[[OrderT], dict[str, Any]],
) -> dict[str, Any]:
    """One page of ``orders()`` (newest first) passing every check, from the ``cursor``.

    The cursor is read before ``orders()`` is asked for, so a foreign cursor is refused
    whatever the venue runs.
    """
    before = decode_cursor(kind, cursor)
    active = [check for check in checks if check is not None]
    matching = [
        order
        for order in orders()
        if (before is None or order.sequence < before) and all(check(order) for check in active)
    ]
    page = matching[:PAGE_SIZE]
    data: dict[str, Any] = {"orders": [wire(order) for order in page]}
    if len(matching) > PAGE_SIZE:
        data["next"] = encode_cursor(kind, page[-1].sequence)
    return data


def offset_listing(
    kind: str, key: str, rows: Sequence[Any], cursor: object, **head: Any
) -> dict[str, Any]:
    """``{**head, key: page}`` of ``rows`` from the cursor's offset, with ``next`` if more."""
    page, following = offset_page(kind, rows, cursor)
    data: dict[str, Any] = {**head, key: page}
    if following is not None:
        data["next"] = following
    return data
