"""Realised P&L on paper: ``get_realized_pnl`` and ``get_pnl_trade_history`` from the paper
book's fills, in the venue's own shapes.

As on Robinhood (and the sandbox venue), both take the account's ``rhs_account_number`` in
``account_number``. The paper guard trades the agentic ``account_number``; its rhs number is
read from the upstream's ``get_accounts`` (forwarded in paper mode as ever) when a P&L read
comes. When that cannot be read, or names no rhs number for the traded account, the read is
refused (fail closed): nothing is answered for an account the gateway cannot name.

Figures: the book's fills matched first in, first out (``ordergate.execution.closed_trades``,
what the venue does for a sale that names no lots), fees zero. Only equities trade on paper,
so the option and crypto rows are zero. Spans, dates and time zones are read as the venue
reads them; the trades come on one page (a cursor is refused, as for paper orders).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ordergate.calendar import PNL_SPANS, span_start
from ordergate.core import ZERO, to_wire, wire_money, wire_quantity, wire_time
from ordergate.gateway.mcp._paper_desk import BOOK_UNREADABLE, PaperDesk
from ordergate.gateway.mcp._refusing import Failure, refuse, step
from ordergate.store import blocking
from ordergate.venues.paper import PaperClosedTrade, closed_trades, instrument_id

__all__ = ["ASSET_CLASSES", "SPANS", "pnl_trade_history", "realized_pnl"]

ASSET_CLASSES = ("equity", "option", "crypto")
SPANS = PNL_SPANS
_DEFAULT_TIMEZONE = "America/New_York"
_LONG_TERM = timedelta(days=365)

ACCOUNTS_UNREADABLE = Failure(
    "paper read",
    "PAPER_ACCOUNT_UNKNOWN",
    "The gateway could not read which rhs_account_number the paper account has.",
)


async def _rhs_of(desk: PaperDesk) -> str:
    """The traded account's ``rhs_account_number``, from the upstream's ``get_accounts``."""
    if desk.upstream is None:
        refuse(ACCOUNTS_UNREADABLE.code, ACCOUNTS_UNREADABLE.message)
    data = await step(desk.upstream("get_accounts", {}), ACCOUNTS_UNREADABLE)
    rows = data.get("accounts") if isinstance(data, Mapping) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, Mapping) and row.get("account_number") == desk.account:
            rhs = row.get("rhs_account_number")
            if isinstance(rhs, str) and rhs:
                return rhs
    refuse(ACCOUNTS_UNREADABLE.code, ACCOUNTS_UNREADABLE.message)


async def _check_account(desk: PaperDesk, arguments: dict[str, Any]) -> str:
    given = arguments.get("account_number")
    if given == desk.account:
        refuse(
            "INVALID_ARGUMENT",
            "account_number: this tool takes the account's rhs_account_number (get_accounts).",
        )
    rhs = await _rhs_of(desk)
    if given != rhs:
        refuse(
            "NOT_THE_PAPER_ACCOUNT",
            "In paper mode the gateway answers only for the account it trades "
            "(account_number: the agentic account's rhs_account_number from get_accounts).",
        )
    return rhs


def _zone(value: object) -> ZoneInfo:
    name = str(value) if value else _DEFAULT_TIMEZONE
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        refuse("INVALID_ARGUMENT", "timezone: unknown time zone.")


def _span_start(span: str, today: date) -> date | None:
    try:
        return span_start(span, today)
    except ValueError as error:
        refuse("INVALID_ARGUMENT", f"{error}.")


def _date(field: str, value: object) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        refuse("INVALID_ARGUMENT", f"{field} must be YYYY-MM-DD.")


def _window(arguments: dict[str, Any], now: datetime) -> tuple[ZoneInfo, str, date | None, date]:
    zone = _zone(arguments.get("timezone"))
    today = now.astimezone(zone).date()
    span = str(arguments.get("span") or "all")
    start = _span_start(span, today)
    explicit = _date("start_date", arguments.get("start_date"))
    end = _date("end_date", arguments.get("end_date")) or today
    if explicit is not None:
        start = explicit
    if start is not None and start > end:
        refuse("INVALID_ARGUMENT", "start_date must not be after end_date.")
    return zone, span, start, end


async def _trades(
    desk: PaperDesk, zone: ZoneInfo, start: date | None, end: date
) -> list[PaperClosedTrade]:
    fills = await step(blocking(desk.book.fills, desk.account), BOOK_UNREADABLE)
    trades = closed_trades(fills)
    return [
        trade
        for trade in trades
        if (start is None or trade.closed_at.astimezone(zone).date() >= start)
        and trade.closed_at.astimezone(zone).date() <= end
    ]


def _sum(trades: list[PaperClosedTrade], field: str) -> str:
    return wire_money(sum((getattr(trade, field) for trade in trades), ZERO))


async def realized_pnl(desk: PaperDesk, arguments: dict[str, Any]) -> dict[str, Any]:
    """``get_realized_pnl``: realised P&L over a span, in total and by asset class."""
    rhs = await _check_account(desk, arguments)
    classes = list(arguments.get("asset_classes") or ASSET_CLASSES)
    for index, name in enumerate(classes):
        if name not in ASSET_CLASSES:
            refuse(
                "INVALID_ARGUMENT",
                f"asset_classes[{index}] must be one of {' | '.join(ASSET_CLASSES)}.",
            )
    currency = str(arguments.get("display_currency") or "USD")
    if currency != "USD":
        refuse("INVALID_ARGUMENT", "display_currency: only USD is supported.")
    zone, span, start, end = _window(arguments, desk.book.clock.now())
    trades = await _trades(desk, zone, start, end)
    rows = []
    for name in classes:
        mine = trades if name == "equity" else []
        rows.append(
            {
                "asset_class": name,
                "realized_pnl": _sum(mine, "realized_pnl"),
                "proceeds": _sum(mine, "proceeds"),
                "cost_basis": _sum(mine, "cost_basis"),
                "fees": _sum(mine, "fees"),
                "trade_count": len(mine),
            }
        )
    total = trades if "equity" in classes else []
    return {
        "account_number": rhs,
        "span": span,
        "start_date": None if start is None else start.isoformat(),
        "end_date": end.isoformat(),
        "timezone": zone.key,
        "display_currency": currency,
        "total_realized_pnl": _sum(total, "realized_pnl"),
        "by_asset_class": rows,
    }


def _trade_wire(trade: PaperClosedTrade) -> dict[str, Any]:
    long_term = trade.closed_at - trade.opened_at > _LONG_TERM
    return {
        "id": trade.trade_id,
        "asset_class": "equity",
        "symbol": trade.symbol,
        "instrument_id": instrument_id(trade.symbol),
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


async def pnl_trade_history(desk: PaperDesk, arguments: dict[str, Any]) -> dict[str, Any]:
    """``get_pnl_trade_history``: the closed trades with their realised P&L, newest first."""
    await _check_account(desk, arguments)
    if arguments.get("cursor") is not None:
        refuse("INVALID_ARGUMENT", "cursor: paper trades come on one page; send no cursor.")
    zone, span, start, end = _window(arguments, desk.book.clock.now())
    symbol = str(arguments.get("symbol") or "").strip().upper()
    trades = [
        trade
        for trade in await _trades(desk, zone, start, end)
        if not symbol or trade.symbol == symbol
    ]
    return {
        "span": span,
        "realized_pnl": _sum(trades, "realized_pnl"),
        "trades": [_trade_wire(trade) for trade in trades],
    }
