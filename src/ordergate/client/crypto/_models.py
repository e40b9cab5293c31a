"""Response models of the crypto tools: pairs, quotes, holdings, orders, previews.

Crypto names the account by its ``rhs_account_number`` and spells the cancelled state
``canceled``. An order's ``state`` is a ``CryptoOrderState`` when known and the wire text
otherwise, so a new state never makes a live order unreadable.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, PlainValidator

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._fields import NextCursor, NullableList, OptionalTime, WireBool, known_or_text
from ordergate.client._models import WireModel
from ordergate.client._orders import Amount
from ordergate.core import ZERO, CryptoOrderState, Side

__all__ = [
    "CryptoExecution",
    "CryptoOrder",
    "CryptoOrderChecks",
    "CryptoOrdersPage",
    "CryptoPosition",
    "CryptoPositionsPage",
    "CryptoPreview",
    "CryptoQuote",
    "CryptoQuotes",
    "Currency",
    "CurrencyPair",
    "CurrencyPairsPage",
]

State = Annotated[CryptoOrderState | str, PlainValidator(known_or_text(CryptoOrderState))]
ENDED = frozenset(
    {CryptoOrderState.FILLED, CryptoOrderState.CANCELED, CryptoOrderState.REJECTED,
     CryptoOrderState.FAILED}
)  # fmt: skip


class Currency(WireModel):
    id: str
    code: str
    name: str | None = None
    increment: OptionalMoney = None
    type: str | None = None


class CurrencyPair(WireModel):
    id: str
    symbol: str
    name: str | None = None
    asset_currency: Currency
    quote_currency: Currency
    min_order_size: Money = ZERO
    max_order_size: OptionalMoney = None
    min_order_price_increment: OptionalMoney = None
    min_order_quantity_increment: OptionalMoney = None
    tradability: str
    display_only: WireBool | None = None


class CurrencyPairsPage(WireModel):
    results: NullableList[CurrencyPair]
    next: NextCursor = None


class CryptoQuote(WireModel):
    """A pair's quote. ``get_crypto_quotes`` names the pair ``id`` and adds the trailing 24
    hours (open, high, low, volume); a preview names it ``currency_pair_id``."""

    symbol: str
    id: str | None = None
    currency_pair_id: str | None = None
    bid_price: Money = ZERO
    ask_price: Money = ZERO
    mark_price: Money = ZERO
    open_price: OptionalMoney = None
    high_price: OptionalMoney = None
    low_price: OptionalMoney = None
    volume: OptionalMoney = None
    updated_at: OptionalTime = None


class CryptoQuotes(WireModel):
    results: NullableList[CryptoQuote]
    not_found: NullableList[str] = Field(default_factory=list)


class CryptoPosition(WireModel):
    currency_code: str
    currency_id: str | None = None
    currency_pair_id: str | None = None
    symbol: str | None = None
    quantity: Money = ZERO
    quantity_available: OptionalMoney = None
    quantity_held_for_sells: OptionalMoney = None
    average_cost: OptionalMoney = None
    cost_basis: OptionalMoney = None
    mark_price: OptionalMoney = None
    market_value: OptionalMoney = None
    unrealized_pnl: OptionalMoney = None
    created_at: OptionalTime = None
    updated_at: OptionalTime = None
    as_of: OptionalTime = None


class CryptoPositionsPage(WireModel):
    positions: NullableList[CryptoPosition]
    next: NextCursor = None


class CryptoExecution(WireModel):
    id: str
    price: Money = ZERO
    quantity: Money = ZERO
    notional: OptionalMoney = None
    timestamp: datetime


class CryptoOrder(WireModel):
    id: str
    ref_id: str | None = None
    rhs_account_number: str | None = None
    currency_pair_id: str | None = None
    symbol: str
    side: Side
    type: str
    time_in_force: str | None = None
    state: State
    quantity: OptionalMoney = None
    cumulative_quantity: Money = ZERO
    remaining_quantity: OptionalMoney = None
    dollar_amount: Amount | None = None
    limit_price: OptionalMoney = None
    stop_price: OptionalMoney = None
    average_price: OptionalMoney = None
    executed_notional: OptionalMoney = None
    fees: Money = ZERO
    placed_agent: str | None = None
    created_at: datetime
    updated_at: OptionalTime = None
    last_transaction_at: OptionalTime = None
    expires_at: OptionalTime = None
    executions: NullableList[CryptoExecution] = Field(default_factory=list)
    reject_reason: str | None = None

    @property
    def is_terminal(self) -> bool:
        """Filled, canceled, rejected or failed; ``False`` for an unknown state."""
        return self.state in ENDED


class CryptoOrdersPage(WireModel):
    orders: NullableList[CryptoOrder]
    next: NextCursor = None


class CryptoOrderChecks(WireModel):
    """The venue's checks on a previewed order; only ``passed`` is typed, the rest kept."""

    passed: WireBool | None = None


class CryptoPreview(WireModel):
    """What ``preview_crypto_order`` reports; it places nothing."""

    rhs_account_number: str | None = None
    symbol: str
    currency_pair_id: str | None = None
    side: Side
    type: str
    time_in_force: str | None = None
    quantity: OptionalMoney = None
    dollar_amount: OptionalMoney = None
    limit_price: OptionalMoney = None
    stop_price: OptionalMoney = None
    estimated_price: OptionalMoney = None
    estimated_cost: OptionalMoney = None
    estimated_credit: OptionalMoney = None
    fees: OptionalMoney = None
    quote: CryptoQuote | None = None
    order_checks: CryptoOrderChecks | None = None
    customer_approval_required: WireBool | None = None
    customer_approval_required_reason: str | None = None
