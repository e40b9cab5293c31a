"""Answers of the Crypto Trading REST API: account, holdings, pairs, quotes, orders.

Amounts are ``Decimal`` read from the wire's strings. A price or size the answer must hold
(``RequiredMoney``) is refused when absent, never read as zero; a listing's ``next`` is the
full URL of its following page. An order's ``state`` is a ``CryptoOrderState`` when known
and the wire text otherwise, so a new state never makes a live order unreadable.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from ordergate.client._decimals import Money, OptionalMoney, RequiredMoney
from ordergate.client._fields import NullableList
from ordergate.client._models import WireModel
from ordergate.client.crypto._models import ENDED, State
from ordergate.core import CryptoOrderType, Side

__all__ = [
    "RestAccount",
    "RestBestBidAsk",
    "RestEstimatedPrice",
    "RestExecution",
    "RestHolding",
    "RestOrder",
    "RestPage",
    "RestTradingPair",
]


class RestPage(WireModel):
    """One page of a listing: its rows (``results``) and the URL of the next page."""

    next: str | None = None
    results: list[dict[str, Any]]


class RestAccount(WireModel):
    account_number: str
    status: str
    buying_power: RequiredMoney
    buying_power_currency: str


class RestHolding(WireModel):
    account_number: str
    asset_code: str
    total_quantity: RequiredMoney
    quantity_available_for_trading: RequiredMoney


class RestTradingPair(WireModel):
    symbol: str
    asset_code: str
    quote_code: str
    status: str
    quote_increment: RequiredMoney
    asset_increment: RequiredMoney
    min_order_size: RequiredMoney
    max_order_size: RequiredMoney


class RestBestBidAsk(WireModel):
    symbol: str
    price: RequiredMoney
    bid_inclusive_of_sell_spread: RequiredMoney
    sell_spread: Money
    ask_inclusive_of_buy_spread: RequiredMoney
    buy_spread: Money
    timestamp: datetime


class RestEstimatedPrice(RestBestBidAsk):
    side: str
    quantity: RequiredMoney


class RestExecution(WireModel):
    effective_price: RequiredMoney
    quantity: RequiredMoney
    timestamp: datetime


class RestOrder(WireModel):
    id: str
    account_number: str
    symbol: str
    client_order_id: str
    side: Side
    type: CryptoOrderType
    state: State
    average_price: OptionalMoney = None
    filled_asset_quantity: Money
    executions: NullableList[RestExecution] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime
    market_order_config: dict[str, Any] | None = None
    limit_order_config: dict[str, Any] | None = None
    stop_loss_order_config: dict[str, Any] | None = None
    stop_limit_order_config: dict[str, Any] | None = None

    @property
    def ended(self) -> bool:
        """Filled, cancelled, rejected or failed: nothing more will happen to it."""
        return self.state in ENDED
