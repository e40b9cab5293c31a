"""Realised P&L of the paper book: its fills matched first in, first out.

Each buy fill opens a lot at its price; a sell fill closes shares from the oldest open lots
of its symbol first, and each lot it touches is one ``PaperClosedTrade``: cost basis and
proceeds rounded to the cent (half to even), fees zero (the paper broker charges none).
That is what the sandbox venue does for an order that names no lots (``sandbox/venue/
_positions.py``: FIFO, one closed trade per lot), so a paper answer and the venue's read
alike. Reading costs the account's fills (the book keeps no closed trades of its own).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal

from sqlalchemy import Engine, select

from ordergate.core import ZERO, Side
from ordergate.store import parse_iso
from ordergate.venues.paper._schema import paper_fills

__all__ = ["PaperClosedTrade", "PaperFill", "account_fills", "closed_trades"]

_CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class PaperFill:
    fill_id: str
    order_id: str
    symbol: str
    side: Side
    quantity: Decimal
    price: Decimal
    executed_at: datetime


@dataclass(frozen=True, slots=True)
class PaperClosedTrade:
    """The part of one sell fill that closed (part of) one buy fill's lot."""

    trade_id: str
    symbol: str
    quantity: Decimal
    open_lot_id: str
    opened_at: datetime
    closed_at: datetime
    open_price: Decimal
    close_price: Decimal
    cost_basis: Decimal
    proceeds: Decimal
    order_id: str
    execution_id: str
    fees: Decimal = ZERO

    @property
    def realized_pnl(self) -> Decimal:
        return self.proceeds - self.cost_basis - self.fees


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_EVEN)


def account_fills(engine: Engine, account: str) -> tuple[PaperFill, ...]:
    """The account's fills in the order they were executed (blocking)."""
    with engine.connect() as connection:
        rows = connection.execute(select(paper_fills).where(paper_fills.c.account == account)).all()
    fills = [
        PaperFill(
            fill_id=row.id,
            order_id=row.order_id,
            symbol=row.symbol,
            side=Side(row.side),
            quantity=Decimal(row.quantity),
            price=Decimal(row.price),
            executed_at=parse_iso(row.executed_at),
        )
        for row in rows
    ]
    return tuple(sorted(fills, key=lambda fill: (fill.executed_at, fill.fill_id)))


@dataclass(slots=True)
class _Lot:
    fill: PaperFill
    open: Decimal


def closed_trades(fills: tuple[PaperFill, ...]) -> list[PaperClosedTrade]:
    """Every closed trade of ``fills`` (in execution order), newest first. A sell beyond
    the open lots (the book never lets that happen) closes what there is."""
    lots: dict[str, deque[_Lot]] = {}
    closed: list[PaperClosedTrade] = []
    for fill in fills:
        held = lots.setdefault(fill.symbol, deque())
        if fill.side is Side.BUY:
            held.append(_Lot(fill, fill.quantity))
            continue
        left = fill.quantity
        while left > 0 and held:
            lot = held[0]
            take = min(left, lot.open)
            closed.append(
                PaperClosedTrade(
                    trade_id=f"{fill.fill_id}:{lot.fill.fill_id}",
                    symbol=fill.symbol,
                    quantity=take,
                    open_lot_id=lot.fill.fill_id,
                    opened_at=lot.fill.executed_at,
                    closed_at=fill.executed_at,
                    open_price=lot.fill.price,
                    close_price=fill.price,
                    cost_basis=_cents(lot.fill.price * take),
                    proceeds=_cents(fill.price * take),
                    order_id=fill.order_id,
                    execution_id=fill.fill_id,
                )
            )
            lot.open -= take
            left -= take
            if lot.open == 0:
                held.popleft()
    # Newest first; a stable sort keeps one sell's lots in the order they were closed.
    return sorted(closed, key=lambda trade: trade.closed_at, reverse=True)
