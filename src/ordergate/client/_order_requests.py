"""What every order request shares: its idempotency key and the size and price rules.

``OrderRequest.ref_id`` is the venue's idempotency key: a request gets a fresh UUID when
none is given, so placing the *same request object* again after a ``TransportError``
cannot make a second order. ``terms()`` are the arguments without it, which is what the
review and preview tools take. The rule helpers raise ``refuse`` errors located at the
field at fault.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any
from uuid import UUID, uuid4

from pydantic import Field, field_serializer

from ordergate.client._fields import refuse
from ordergate.client._models import RequestModel

__all__ = ["OrderRequest", "check_prices", "check_size"]


class OrderRequest(RequestModel):
    ref_id: UUID = Field(default_factory=uuid4)

    @field_serializer("ref_id")
    def _ref_text(self, value: UUID) -> str:
        return str(value)

    def terms(self) -> dict[str, Any]:
        """The wire arguments without ``ref_id``: what a review or a preview takes."""
        arguments = self.arguments()
        del arguments["ref_id"]
        return arguments


def check_size(quantity: Decimal | None, dollar_amount: Decimal | None, *, market: bool) -> None:
    """Exactly one of ``quantity`` and ``dollar_amount`` (neither → ``quantity``, both →
    ``dollar_amount``); ``dollar_amount`` only for a market order."""
    if quantity is None and dollar_amount is None:
        raise refuse("quantity", "give exactly one of quantity or dollar_amount")
    if quantity is not None and dollar_amount is not None:
        raise refuse(
            "dollar_amount", "give exactly one of quantity or dollar_amount", str(dollar_amount)
        )
    if dollar_amount is not None and not market:
        raise refuse("dollar_amount", "dollar_amount is only for market orders", str(dollar_amount))


def check_prices(kind: object, prices: Iterable[tuple[str, bool, Decimal | None]]) -> None:
    """For each ``(field, needed, value)``: required when ``kind`` needs it, refused when not."""
    for field, needed, value in prices:
        if needed and value is None:
            raise refuse(field, f"{field} is required for {kind} orders")
        if not needed and value is not None:
            raise refuse(field, f"{field} does not apply to {kind} orders", str(value))
