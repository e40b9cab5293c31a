"""Equity positions kept as tax lots, and the realised P&L their sales produce.

Every buy execution opens one lot at its price. A sell execution closes shares lot by lot:
first in, first out, unless the order named its lots. Each lot a sale touches yields one
``ClosedTrade`` (cost basis, proceeds, the sale's fees in proportion, realised P&L), which is
what ``get_realized_pnl`` and ``get_pnl_trade_history`` report. A lot sold out is dropped:
memory holds the open lots, and the closed trades until a caller that stores them drains
them (``drain_closed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal

from ordergate.core import ZERO

__all__ = ["CENT", "ClosedTrade", "LotPlan", "Positions", "TaxLot", "cents"]

CENT = Decimal("0.01")
_LONG_TERM = timedelta(days=365)

LotPlan = Sequence[tuple[str, Decimal]]
"""``(open_lot_id, quantity)`` pairs an order asks to sell from, in order."""


@dataclass(slots=True)
class TaxLot:
    """Shares bought in one execution; ``quantity`` is what is still open."""

    lot_id: str
    account_number: str
    symbol: str
    instrument_id: str
    quantity: Decimal
    original_quantity: Decimal
    price: Decimal
    acquired_at: datetime
    order_id: str
    execution_id: str

    def holding_period(self, now: datetime) -> str:
        return "long_term" if now - self.acquired_at > _LONG_TERM else "short_term"


@dataclass(frozen=True, slots=True)
class ClosedTrade:
    """The part of one sell execution that closed (part of) one lot."""

    trade_id: str
    account_number: str
    asset_class: str
    symbol: str
    instrument_id: str
    quantity: Decimal
    open_lot_id: str
    opened_at: datetime
    closed_at: datetime
    open_price: Decimal
    close_price: Decimal
    cost_basis: Decimal
    proceeds: Decimal
    fees: Decimal
    order_id: str
    execution_id: str

    @property
    def realized_pnl(self) -> Decimal:
        return self.proceeds - self.cost_basis - self.fees


def cents(value: Decimal) -> Decimal:
    """A dollar amount rounded to the cent (half to even), as every desk books money."""
    return value.quantize(CENT, rounding=ROUND_HALF_EVEN)


class Positions:
    """Open lots and closed trades of every account, by account and symbol."""

    def __init__(self) -> None:
        self._lots: dict[tuple[str, str], list[TaxLot]] = {}
        self._closed: list[ClosedTrade] = []

    def lots(self, account_number: str, symbol: str) -> list[TaxLot]:
        """Open lots, oldest first."""
        return [lot for lot in self._lots.get((account_number, symbol), []) if lot.quantity > 0]

    def quantity(self, account_number: str, symbol: str) -> Decimal:
        return sum((lot.quantity for lot in self.lots(account_number, symbol)), ZERO)

    def symbols(self, account_number: str) -> list[str]:
        """Symbols the account holds, in the order first bought."""
        return [
            symbol
            for (account, symbol) in self._lots
            if account == account_number and self.quantity(account, symbol) > 0
        ]

    def closed(self, account_number: str) -> list[ClosedTrade]:
        return [trade for trade in self._closed if trade.account_number == account_number]

    def all_lots(self) -> list[TaxLot]:
        """Every open lot of every account, each account's and symbol's oldest first."""
        return [lot for lots in self._lots.values() for lot in lots if lot.quantity > 0]

    def restore(self, lots: Sequence[TaxLot]) -> None:
        """Replace the open lots with ``lots`` (read back from storage, as ``all_lots``)."""
        self._lots = {}
        for lot in lots:
            self.buy(lot)
        self._closed = []

    def drain_closed(self) -> list[ClosedTrade]:
        """Hand over the closed trades booked since the last drain (the caller stores them)."""
        drained, self._closed = self._closed, []
        return drained

    def split(self, symbol: str, ratio: Decimal) -> int:
        """A ``ratio``-for-1 split of ``symbol`` in every account: each lot's shares times
        ``ratio``, its price divided by it (what was paid is kept). The lots re-based."""
        count = 0
        for (_, held), lots in self._lots.items():
            if held != symbol:
                continue
            for lot in lots:
                lot.quantity *= ratio
                lot.original_quantity *= ratio
                lot.price /= ratio
                count += 1
        return count

    def buy(self, lot: TaxLot) -> None:
        self._lots.setdefault((lot.account_number, lot.symbol), []).append(lot)

    def sell(
        self,
        *,
        account_number: str,
        symbol: str,
        quantity: Decimal,
        price: Decimal,
        fees: Decimal,
        at: datetime,
        order_id: str,
        execution_id: str,
        plan: LotPlan,
        trade_ids: Sequence[str],
    ) -> list[ClosedTrade]:
        """Close ``quantity`` shares from the lots of ``plan`` (which must cover it)."""
        lots = {lot.lot_id: lot for lot in self.lots(account_number, symbol)}
        closed: list[ClosedTrade] = []
        fees_left = fees
        for index, (lot_id, take) in enumerate(plan):
            lot = lots[lot_id]
            if take > lot.quantity:
                raise ValueError(f"lot {lot_id} holds {lot.quantity}, cannot sell {take}")
            last = index == len(plan) - 1
            share = fees_left if last else cents(fees * take / quantity)
            fees_left -= share
            lot.quantity -= take
            closed.append(
                ClosedTrade(
                    trade_id=trade_ids[index],
                    account_number=account_number,
                    asset_class="equity",
                    symbol=symbol,
                    instrument_id=lot.instrument_id,
                    quantity=take,
                    open_lot_id=lot_id,
                    opened_at=lot.acquired_at,
                    closed_at=at,
                    open_price=lot.price,
                    close_price=price,
                    cost_basis=cents(lot.price * take),
                    proceeds=cents(price * take),
                    fees=share,
                    order_id=order_id,
                    execution_id=execution_id,
                )
            )
        self._lots[(account_number, symbol)] = [
            lot for lot in self._lots[(account_number, symbol)] if lot.quantity > 0
        ]
        self._closed.extend(closed)
        return closed
