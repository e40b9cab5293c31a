"""``OptionOrderRequest``: the terms of one option order, checked before anything is sent.

Rules (reference README "Other families" and the captured schema), each refusal a
``ValidationError`` located at the field at fault:

- 1 to 4 ``legs`` (→ ``legs``), each ``{option_id, side, position_effect (open|close),
  ratio_quantity (whole ≥ 1)}`` on distinct contracts (→ ``legs[i].option_id``);
- ``quantity`` a whole number ≥ 1 of the strategy (sent as a string);
- ``direction`` (debit|credit) required with 2+ legs; with one leg it follows the side
  (a buy is a debit, a sell a credit), so a contradicting one is refused (→ ``direction``);
- ``price`` (the limit, per share of the strategy) required for ``limit`` and
  ``stop_limit`` (the default type is ``limit``), refused for ``market`` / ``stop_market``;
  ``stop_price`` required for the stop types and refused otherwise; market and stop types
  take one leg only (→ ``type``); every amount > 0.

``ref_id`` is the idempotency key (see ``OrderRequest``); review sends the terms without it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, PlainSerializer, model_validator

from ordergate.client._decimals import PositiveDecimal, WholeNumber
from ordergate.client._fields import refuse
from ordergate.client._models import RequestModel
from ordergate.client._order_requests import OrderRequest, check_prices
from ordergate.core import (
    MarketHours,
    OptionDirection,
    OptionPositionEffect,
    OrderType,
    Side,
    TimeInForce,
)

__all__ = ["MAX_LEGS", "OptionLegRequest", "OptionOrderRequest"]

MAX_LEGS = 4

WholeString = Annotated[WholeNumber, PlainSerializer(str, return_type=str, when_used="always")]


class OptionLegRequest(RequestModel):
    option_id: str = Field(min_length=1)
    side: Side
    position_effect: OptionPositionEffect
    ratio_quantity: WholeNumber = 1


class OptionOrderRequest(OrderRequest):
    account_number: str = Field(min_length=1)
    legs: tuple[OptionLegRequest, ...]
    quantity: WholeString
    direction: OptionDirection | None = None
    type: OrderType | None = None
    price: PositiveDecimal | None = None
    stop_price: PositiveDecimal | None = None
    time_in_force: TimeInForce | None = None
    market_hours: MarketHours | None = None

    @property
    def order_type(self) -> OrderType:
        """The type the venue will use: ``limit`` unless another is given."""
        return self.type or OrderType.LIMIT

    @model_validator(mode="after")
    def _rules(self) -> OptionOrderRequest:
        self._check_legs()
        self._check_direction()
        self._check_prices()
        return self

    def _check_legs(self) -> None:
        if not 1 <= len(self.legs) <= MAX_LEGS:
            raise refuse("legs", f"an option order has 1 to {MAX_LEGS} legs")
        seen: set[str] = set()
        for index, leg in enumerate(self.legs):
            key = leg.option_id.strip().lower()
            if key in seen:
                raise refuse(
                    ("legs", index, "option_id"), "each leg must be a different option", key
                )
            seen.add(key)

    def _check_direction(self) -> None:
        if len(self.legs) > 1:
            if self.direction is None:
                raise refuse("direction", "direction (debit or credit) is required with 2+ legs")
            return
        natural = OptionDirection.DEBIT if self.legs[0].side is Side.BUY else OptionDirection.CREDIT
        if self.direction is not None and self.direction is not natural:
            raise refuse(
                "direction", f"a single {self.legs[0].side} leg is a {natural}", str(self.direction)
            )

    def _check_prices(self) -> None:
        kind = self.order_type
        if kind is not OrderType.LIMIT and len(self.legs) > 1:
            raise refuse("type", "orders of 2 or more legs must be limit orders", str(kind))
        check_prices(
            kind,
            (
                ("price", kind.needs_limit_price, self.price),
                ("stop_price", kind.needs_stop_price, self.stop_price),
            ),
        )

    def review_arguments(self) -> dict[str, Any]:
        """The arguments of ``review_option_order``: the terms, without ``ref_id``."""
        return self.terms()
