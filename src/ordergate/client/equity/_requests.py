"""``EquityOrderRequest``: the terms of one equity order, checked before anything is sent.

Robinhood's rules (reference README, "Equity orders"), each refusal a ``ValidationError``
located at the field at fault:

- exactly one of ``quantity`` and ``dollar_amount`` (neither → ``quantity``; both →
  ``dollar_amount``); ``dollar_amount`` only with ``market`` (→ ``dollar_amount``);
- ``limit_price`` required for ``limit`` and ``stop_limit``, refused for the others;
  ``stop_price`` required for ``stop_market`` and ``stop_limit``, refused for the others;
- outside regular hours only limit orders (→ ``market_hours``);
- fractional quantities (at most 6 decimals, → ``quantity``) and dollar amounts only as
  market orders in regular hours (→ ``quantity`` / ``dollar_amount`` for the type,
  ``market_hours`` for the session);
- ``tax_lots`` only on sells of a ``quantity``: 1 to 30 distinct lots whose quantities add
  up to ``quantity`` (→ ``tax_lots``, or ``tax_lots[i].open_lot_id`` for a repeat);
- every amount > 0.

``ref_id`` is the idempotency key (see ``OrderRequest``); review sends the terms without it
(``review_equity_order`` takes none).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import Field, model_validator

from ordergate.client._decimals import PositiveDecimal
from ordergate.client._fields import refuse
from ordergate.client._models import RequestModel
from ordergate.client._order_requests import OrderRequest, check_prices, check_size
from ordergate.core import MarketHours, OrderType, Side, TimeInForce

__all__ = ["MAX_TAX_LOTS", "EquityOrderRequest", "TaxLotPick"]

MAX_TAX_LOTS = 30
_SHARE_STEP = Decimal("0.000001")


class TaxLotPick(RequestModel):
    """Sell ``quantity`` shares out of the open tax lot ``open_lot_id``."""

    open_lot_id: str = Field(min_length=1)
    quantity: PositiveDecimal


class EquityOrderRequest(OrderRequest):
    account_number: str = Field(min_length=1)
    symbol: str = Field(min_length=1)
    side: Side
    type: OrderType
    quantity: PositiveDecimal | None = None
    dollar_amount: PositiveDecimal | None = None
    limit_price: PositiveDecimal | None = None
    stop_price: PositiveDecimal | None = None
    time_in_force: TimeInForce | None = None
    market_hours: MarketHours | None = None
    tax_lots: tuple[TaxLotPick, ...] | None = None

    @model_validator(mode="after")
    def _rules(self) -> EquityOrderRequest:
        self._check_size()
        self._check_prices()
        self._check_session()
        self._check_tax_lots()
        return self

    def _check_size(self) -> None:
        check_size(self.quantity, self.dollar_amount, market=self.type is OrderType.MARKET)
        if self.quantity is not None and self.quantity % _SHARE_STEP != 0:
            raise refuse("quantity", "quantity allows at most 6 decimal places", str(self.quantity))

    def _check_prices(self) -> None:
        check_prices(
            self.type,
            (
                ("limit_price", self.type.needs_limit_price, self.limit_price),
                ("stop_price", self.type.needs_stop_price, self.stop_price),
            ),
        )

    @property
    def _regular_hours(self) -> bool:
        return self.market_hours in (None, MarketHours.REGULAR_HOURS)

    @property
    def is_fractional(self) -> bool:
        """A dollar amount, or a quantity that is not a whole number of shares."""
        if self.dollar_amount is not None:
            return True
        assert self.quantity is not None
        return self.quantity != self.quantity.to_integral_value()

    def _check_session(self) -> None:
        if self.is_fractional:
            # A dollar amount on another type was refused already: this is a fractional quantity.
            if self.type is not OrderType.MARKET:
                raise refuse("quantity", "fractional quantities are for market orders only")
            if not self._regular_hours:
                raise refuse(
                    "market_hours",
                    "fractional and dollar orders trade in regular hours only",
                    str(self.market_hours),
                )
        if not self._regular_hours and self.type is not OrderType.LIMIT:
            raise refuse(
                "market_hours",
                "outside regular hours only limit orders trade",
                str(self.market_hours),
            )

    def _check_tax_lots(self) -> None:
        lots = self.tax_lots
        if lots is None:
            return
        if self.side is not Side.SELL:
            raise refuse("tax_lots", "tax_lots apply to sell orders only")
        if self.quantity is None:
            raise refuse("tax_lots", "tax_lots need a quantity, not a dollar_amount")
        if not 1 <= len(lots) <= MAX_TAX_LOTS:
            raise refuse("tax_lots", f"give 1 to {MAX_TAX_LOTS} tax lots")
        seen: set[str] = set()
        for index, lot in enumerate(lots):
            if lot.open_lot_id in seen:
                raise refuse(
                    ("tax_lots", index, "open_lot_id"),
                    f"lot {lot.open_lot_id} is named twice",
                    lot.open_lot_id,
                )
            seen.add(lot.open_lot_id)
        if sum((lot.quantity for lot in lots), Decimal(0)) != self.quantity:
            raise refuse("tax_lots", "tax_lots quantities must add up to quantity")

    def review_arguments(self) -> dict[str, Any]:
        """The arguments of ``review_equity_order``: the terms, without ``ref_id``."""
        return self.terms()
