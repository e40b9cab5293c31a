"""Crypto holdings, one per account and currency, at average cost; and their realised P&L.

A buy adds units and their cost. A sell takes units out at the average cost per unit and
books one ``ClosedTrade`` (asset class ``crypto``, symbol the currency code): cost basis the
units' share of the cost, proceeds the execution's notional. Closed trades stay in memory
unless the caller takes them (``drain_closed``) to store them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ordergate.core import ZERO
from ordergate.sandbox.market import CryptoPair
from ordergate.sandbox.venue._positions import ClosedTrade, cents

__all__ = ["CryptoHolding", "CryptoHoldings"]


@dataclass(slots=True)
class CryptoHolding:
    holding_id: str
    account_number: str
    pair: CryptoPair
    quantity: Decimal
    cost: Decimal
    opened_at: datetime
    updated_at: datetime

    @property
    def currency_code(self) -> str:
        return self.pair.asset_code

    @property
    def average_cost(self) -> Decimal:
        if not self.quantity:
            return ZERO
        return (self.cost / self.quantity).quantize(self.pair.quote_increment)


class CryptoHoldings:
    """Every account's crypto holdings (kept once emptied) and closed trades."""

    def __init__(self) -> None:
        self._holdings: dict[tuple[str, str], CryptoHolding] = {}
        self._closed: list[ClosedTrade] = []

    def get(self, account_number: str, currency_code: str) -> CryptoHolding | None:
        return self._holdings.get((account_number, currency_code))

    def quantity(self, account_number: str, currency_code: str) -> Decimal:
        holding = self.get(account_number, currency_code)
        return ZERO if holding is None else holding.quantity

    def of(self, account_number: str) -> list[CryptoHolding]:
        """The account's non-empty holdings, in the order first bought."""
        return [
            h
            for (account, _), h in self._holdings.items()
            if account == account_number and h.quantity
        ]

    def closed(self, account_number: str) -> list[ClosedTrade]:
        return [trade for trade in self._closed if trade.account_number == account_number]

    def all(self) -> list[CryptoHolding]:
        """Every holding, emptied ones too, in the order first bought."""
        return list(self._holdings.values())

    def restore(self, holdings: list[CryptoHolding]) -> None:
        """Replace the holdings with ``holdings`` (read back from storage)."""
        self._holdings = {(h.account_number, h.currency_code): h for h in holdings}

    def drain_closed(self) -> list[ClosedTrade]:
        """Hand over the closed trades booked since the last drain (the caller stores them)."""
        drained, self._closed = self._closed, []
        return drained

    def buy(
        self,
        *,
        account_number: str,
        pair: CryptoPair,
        quantity: Decimal,
        notional: Decimal,
        at: datetime,
        holding_id: str,
    ) -> CryptoHolding:
        key = (account_number, pair.asset_code)
        holding = self._holdings.get(key)
        if holding is None or not holding.quantity:
            holding = CryptoHolding(
                holding_id=holding_id,
                account_number=account_number,
                pair=pair,
                quantity=ZERO,
                cost=ZERO,
                opened_at=at,
                updated_at=at,
            )
            self._holdings[key] = holding
        holding.quantity += quantity
        holding.cost += notional
        holding.updated_at = at
        return holding

    def sell(
        self,
        *,
        account_number: str,
        pair: CryptoPair,
        quantity: Decimal,
        price: Decimal,
        notional: Decimal,
        at: datetime,
        order_id: str,
        execution_id: str,
        trade_id: str,
    ) -> ClosedTrade:
        holding = self._holdings.get((account_number, pair.asset_code))
        if holding is None or quantity > holding.quantity:
            raise ValueError(f"cannot sell {quantity} {pair.asset_code}")
        average = holding.cost / holding.quantity
        basis = holding.cost if quantity == holding.quantity else cents(average * quantity)
        trade = ClosedTrade(
            trade_id=trade_id,
            account_number=account_number,
            asset_class="crypto",
            symbol=pair.asset_code,
            instrument_id=pair.id,
            quantity=quantity,
            open_lot_id=holding.holding_id,
            opened_at=holding.opened_at,
            closed_at=at,
            open_price=average.quantize(pair.quote_increment),
            close_price=price,
            cost_basis=basis,
            proceeds=notional,
            fees=Decimal("0.00"),
            order_id=order_id,
            execution_id=execution_id,
        )
        holding.quantity -= quantity
        holding.cost -= basis
        holding.updated_at = at
        self._closed.append(trade)
        return trade
