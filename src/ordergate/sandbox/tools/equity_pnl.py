"""Realised P&L tools: ``get_realized_pnl`` and ``get_pnl_trade_history``.

As on Robinhood, both take the account's ``rhs_account_number`` in ``account_number``.
Figures come from the closed trades of every desk that keeps them (a desk contributes by
exposing ``closed_trades(account_number)``); the equity desk books one per lot a sale closes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ordergate.calendar import PNL_SPANS, span_start
from ordergate.core import ZERO, to_wire, wire_money, wire_quantity, wire_time
from ordergate.sandbox.tools._registry import VenueError, tool
from ordergate.sandbox.venue._accounts import Account
from ordergate.sandbox.venue._equity_paging import offset_page
from ordergate.sandbox.venue._positions import ClosedTrade

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["ASSET_CLASSES", "SPANS", "PnlDesk", "get_pnl_trade_history", "get_realized_pnl"]

ASSET_CLASSES = ("equity", "option", "crypto")
SPANS = PNL_SPANS
_DEFAULT_TIMEZONE = "America/New_York"


@runtime_checkable
class PnlDesk(Protocol):
    def closed_trades(self, account_number: str) -> Sequence[ClosedTrade]:
        """Every closed trade of ``account_number`` booked by this desk."""
        ...


def _rhs_account(venue: Venue, value: str) -> Account:
    try:
        return venue.accounts.get_rhs(value, field_name="account_number")
    except VenueError:
        if any(a.account_number == value for a in venue.accounts.all()):
            raise VenueError(
                "INVALID_ARGUMENT",
                "this tool takes the account's rhs_account_number",
                field="account_number",
            ) from None
        raise


def _trades(venue: Venue, account: Account) -> list[ClosedTrade]:
    trades: list[ClosedTrade] = []
    for desk in venue.desks:
        if isinstance(desk, PnlDesk):
            trades.extend(desk.closed_trades(account.account_number))
    # Newest first; a stable sort keeps one execution's lots in the order they were closed.
    return sorted(trades, key=lambda t: t.closed_at, reverse=True)


def _zone(value: object) -> ZoneInfo:
    name = str(value) if value else _DEFAULT_TIMEZONE
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise VenueError("INVALID_ARGUMENT", "unknown timezone", field="timezone") from None


def _span_start(span: str, today: date) -> date | None:
    try:
        return span_start(span, today)
    except ValueError as error:
        raise VenueError("INVALID_ARGUMENT", str(error), field="span") from None


def _date(field: str, value: object) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise VenueError("INVALID_ARGUMENT", f"{field} must be YYYY-MM-DD", field=field) from None


def _window(args: dict[str, Any], now: datetime) -> tuple[ZoneInfo, str, date | None, date]:
    zone = _zone(args.get("timezone"))
    today = now.astimezone(zone).date()
    span = str(args.get("span") or "all")
    start = _span_start(span, today)
    explicit_start = _date("start_date", args.get("start_date"))
    end = _date("end_date", args.get("end_date")) or today
    if explicit_start is not None:
        start = explicit_start
    if start is not None and start > end:
        raise VenueError(
            "INVALID_ARGUMENT", "start_date must not be after end_date", field="start_date"
        )
    return zone, span, start, end


def _within(trade: ClosedTrade, zone: ZoneInfo, start: date | None, end: date) -> bool:
    day = trade.closed_at.astimezone(zone).date()
    return (start is None or day >= start) and day <= end


@tool(
    "get_realized_pnl",
    description="Realised profit and loss over a span, in total and by asset class.",
    guide="account_number takes the rhs_account_number from get_accounts. Realised P&L "
    "counts closed trades only, net of fees.",
)
def get_realized_pnl(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = _rhs_account(venue, args["account_number"])
    classes = list(args.get("asset_classes") or ASSET_CLASSES)
    for index, name in enumerate(classes):
        if name not in ASSET_CLASSES:
            raise VenueError(
                "INVALID_ARGUMENT",
                f"asset class must be one of {' | '.join(ASSET_CLASSES)}",
                field=f"asset_classes[{index}]",
            )
    currency = str(args.get("display_currency") or "USD")
    if currency != "USD":
        raise VenueError("INVALID_ARGUMENT", "only USD is supported", field="display_currency")
    zone, span, start, end = _window(args, venue.now())
    trades = [t for t in _trades(venue, account) if _within(t, zone, start, end)]
    rows = []
    total = ZERO
    for name in classes:
        mine = [t for t in trades if t.asset_class == name]
        pnl = sum((t.realized_pnl for t in mine), ZERO)
        total += pnl
        rows.append(
            {
                "asset_class": name,
                "realized_pnl": wire_money(pnl),
                "proceeds": wire_money(sum((t.proceeds for t in mine), ZERO)),
                "cost_basis": wire_money(sum((t.cost_basis for t in mine), ZERO)),
                "fees": wire_money(sum((t.fees for t in mine), ZERO)),
                "trade_count": len(mine),
            }
        )
    return {
        "account_number": account.rhs_account_number,
        "span": span,
        "start_date": None if start is None else start.isoformat(),
        "end_date": end.isoformat(),
        "timezone": zone.key,
        "display_currency": currency,
        "total_realized_pnl": wire_money(total),
        "by_asset_class": rows,
    }


def _trade_wire(trade: ClosedTrade) -> dict[str, Any]:
    long_term = trade.closed_at - trade.opened_at > timedelta(days=365)
    return {
        "id": trade.trade_id,
        "asset_class": trade.asset_class,
        "symbol": trade.symbol,
        "instrument_id": trade.instrument_id,
        "quantity": wire_quantity(trade.quantity),
        "open_lot_id": trade.open_lot_id,
        "opened_at": wire_time(trade.opened_at),
        "closed_at": wire_time(trade.closed_at),
        "open_price": to_wire(trade.open_price),
        "close_price": to_wire(trade.close_price),
        "cost_basis": wire_money(trade.cost_basis),
        "proceeds": wire_money(trade.proceeds),
        "fees": wire_money(trade.fees),
        "realized_pnl": wire_money(trade.realized_pnl),
        "holding_period": "long_term" if long_term else "short_term",
        "order_id": trade.order_id,
        "execution_id": trade.execution_id,
    }


@tool(
    "get_pnl_trade_history",
    description="Closed trades with their realised P&L, newest first.",
    guide="account_number takes the rhs_account_number from get_accounts. Pass next back as "
    "cursor for older trades.",
)
def get_pnl_trade_history(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = _rhs_account(venue, args["account_number"])
    zone, span, start, end = _window(args, venue.now())
    symbol = str(args.get("symbol") or "").strip().upper()
    trades = [
        t
        for t in _trades(venue, account)
        if _within(t, zone, start, end) and (not symbol or t.symbol == symbol)
    ]
    page, following = offset_page("pnl-trades", trades, args.get("cursor"))
    data: dict[str, Any] = {
        "span": span,
        "realized_pnl": wire_money(sum((t.realized_pnl for t in trades), ZERO)),
        "trades": [_trade_wire(t) for t in page],
    }
    if following is not None:
        data["next"] = following
    return data
