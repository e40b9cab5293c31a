"""What ``review_option_order`` reports: the terms back, checks, quotes, fees, collateral."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._fields import NullableList, WireBool
from ordergate.client._models import WireModel
from ordergate.client.options._models import OptionQuote
from ordergate.core import ZERO, OptionDirection, OptionPositionEffect, Side

__all__ = [
    "CashCollateral",
    "Collateral",
    "EquityCollateral",
    "FeeLine",
    "OptionFees",
    "OptionOrderChecks",
    "OptionReview",
    "ReviewedLeg",
]


class ReviewedLeg(WireModel):
    option_id: str
    side: Side
    position_effect: OptionPositionEffect
    ratio_quantity: int | None = None


class OptionOrderChecks(WireModel):
    """``alertType`` is ``none`` when the order can be placed as reviewed."""

    alert_type: str | None = Field(default=None, alias="alertType")
    details: dict[str, Any] | None = None


class FeeLine(WireModel):
    fee_rate: OptionalMoney = None
    fee: Money = ZERO


class OptionFees(WireModel):
    occ_fee: FeeLine | None = None
    or_fee: FeeLine | None = None
    contract_fee: FeeLine | None = None
    exchange_fee: FeeLine | None = None
    cat_fee: FeeLine | None = None
    is_gold: WireBool | None = None
    total_fee: Money = ZERO


class CashCollateral(WireModel):
    amount: OptionalMoney = None
    direction: str | None = None
    infinite: WireBool | None = None


class EquityCollateral(WireModel):
    instrument_id: str
    symbol: str
    quantity: Money = ZERO
    direction: str | None = None
    uncovered_shares: OptionalMoney = None


class Collateral(WireModel):
    """What secures the contracts an order sells to open: cash (puts) and shares (calls)."""

    account_number: str | None = None
    cash: CashCollateral | None = None
    equities: NullableList[EquityCollateral] = Field(default_factory=list)


class OptionReview(WireModel):
    """What ``review_option_order`` reports; it places nothing."""

    account_number: str
    type: str
    direction: OptionDirection
    quantity: Money = ZERO
    price: OptionalMoney = None
    stop_price: OptionalMoney = None
    time_in_force: str | None = None
    market_hours: str | None = None
    legs: NullableList[ReviewedLeg]
    order_checks: OptionOrderChecks
    option_quotes: NullableList[OptionQuote]
    fees: OptionFees | None = None
    collateral: Collateral | None = None
    customer_approval_required: WireBool | None = None
    customer_approval_required_reason: str | None = None
