"""Response models of the realised P&L tools (``get_realized_pnl``, ``get_pnl_trade_history``)."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._fields import NextCursor, NullableList, OptionalTime
from ordergate.client._models import WireModel
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
    by_asset_class: NullableList[AssetClassPnl] = Field(default_factory=list)


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
    trades: NullableList[ClosedTrade]
    next: NextCursor = None
