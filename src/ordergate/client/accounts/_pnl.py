"""Response models of the realised P&L tools (``get_realized_pnl``, ``get_pnl_trade_history``)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import Field

from ordergate.client._models import Money, OptionalMoney, WireModel
from ordergate.client.equity._wire import NULL_AS_EMPTY, NextCursor, OptionalTime
from ordergate.core import ZERO

__all__ = ["AssetClassPnl", "ClosedTrade", "PnlTradesPage", "RealizedPnl"]


class AssetClassPnl(WireModel):
    asset_class: str
    realized_pnl: Money = ZERO
    proceeds: OptionalMoney = None
    cost_basis: OptionalMoney = None
    fees: OptionalMoney = None
    trade_count: int | None = None


class RealizedPnl(WireModel):
    """Realised profit and loss over a span, in total and by asset class."""

    account_number: str | None = None
    span: str | None = None
    start_date: date | None = None
    end_date: date | None = None
    timezone: str | None = None
    display_currency: str | None = None
    total_realized_pnl: Money = ZERO
    by_asset_class: Annotated[list[AssetClassPnl], NULL_AS_EMPTY] = Field(default_factory=list)


class ClosedTrade(WireModel):
    """One closed trade (a lot a sale closed) with its realised P&L."""

    id: str
    asset_class: str | None = None
    symbol: str
    instrument_id: str | None = None
    quantity: Money = ZERO
    open_lot_id: str | None = None
    opened_at: OptionalTime = None
    closed_at: OptionalTime = None
    open_price: OptionalMoney = None
    close_price: OptionalMoney = None
    cost_basis: OptionalMoney = None
    proceeds: OptionalMoney = None
    fees: OptionalMoney = None
    realized_pnl: Money = ZERO
    holding_period: str | None = None
    order_id: str | None = None
    execution_id: str | None = None


class PnlTradesPage(WireModel):
    span: str | None = None
    realized_pnl: OptionalMoney = None
    trades: Annotated[list[ClosedTrade], NULL_AS_EMPTY]
    next: NextCursor = None
