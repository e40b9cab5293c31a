"""Option positions, one per account and contract, and the realised P&L their closes produce.

A position is long (quantity > 0) or short (quantity < 0), never both: the rules refuse to
open the other way while one is held. Opening more averages the premium; closing books one
``ClosedTrade`` (asset class ``option``) at the average open premium:

- long: cost basis = open premium paid, proceeds = close premium received;
- short: proceeds = open premium received, cost basis = close premium paid.

Exercise removes contracts without a closed trade: their premium moves into the shares'
cost basis (call) or out of the sale's proceeds (put), as the tax rules have it. Closed
trades stay in memory unless the caller takes them (``drain_closed``) to store them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from ordergate.sandbox.market import MULTIPLIER, OptionInstrument
from ordergate.sandbox.venue._positions import ClosedTrade, cents

__all__ = ["OptionPosition", "OptionPositions"]

_PRICE_PLACES = Decimal("0.0001")


@dataclass(slots=True)
class OptionPosition:
    position_id: str
    account_number: str
    instrument: OptionInstrument
    quantity: int
    average_price: Decimal
    opened_at: datetime
    updated_at: datetime
    opens: list[tuple[datetime, int, Decimal]] = field(default_factory=list)
    """Every opening execution (instant, contracts, premium), for the intraday figures."""

    @property
    def option_id(self) -> str:
        return self.instrument.id

    @property
    def is_long(self) -> bool:
        return self.quantity > 0

    @property
    def contracts(self) -> int:
        return abs(self.quantity)


class OptionPositions:
    """Every account's option positions (kept once flat, for ``nonzero=false``)."""

    def __init__(self) -> None:
        self._positions: dict[tuple[str, str], OptionPosition] = {}
        self._closed: list[ClosedTrade] = []

    def get(self, account_number: str, option_id: str) -> OptionPosition | None:
        return self._positions.get((account_number, option_id))

    def quantity(self, account_number: str, option_id: str) -> int:
        """Signed contracts held: long positive, short negative, zero when flat."""
        position = self.get(account_number, option_id)
        return 0 if position is None else position.quantity

    def of(self, account_number: str) -> list[OptionPosition]:
        """The account's positions (flat ones included), in the order first opened."""
        return [p for (account, _), p in self._positions.items() if account == account_number]

    def held(self) -> list[OptionPosition]:
        """Every non-flat position of every account."""
        return [p for p in self._positions.values() if p.quantity != 0]

    def closed(self, account_number: str) -> list[ClosedTrade]:
        return [trade for trade in self._closed if trade.account_number == account_number]

    def all(self) -> list[OptionPosition]:
        """Every position, flat ones too, in the order first opened."""
        return list(self._positions.values())

    def restore(self, positions: list[OptionPosition]) -> None:
        """Replace the positions with ``positions`` (read back from storage)."""
        self._positions = {(p.account_number, p.option_id): p for p in positions}

    def drain_closed(self) -> list[ClosedTrade]:
        """Hand over the closed trades booked since the last drain (the caller stores them)."""
        drained, self._closed = self._closed, []
        return drained

    def open(
        self,
        *,
        account_number: str,
        instrument: OptionInstrument,
        contracts: int,
        long: bool,
        price: Decimal,
        at: datetime,
        position_id: str,
    ) -> OptionPosition:
        """Add ``contracts`` to the position on the side given (``position_id`` if new)."""
        key = (account_number, instrument.id)
        position = self._positions.get(key)
        signed = contracts if long else -contracts
        if position is None or position.quantity == 0:
            position = OptionPosition(
                position_id=position_id,
                account_number=account_number,
                instrument=instrument,
                quantity=signed,
                average_price=price,
                opened_at=at,
                updated_at=at,
            )
            self._positions[key] = position
        else:
            if position.is_long != long:
                raise ValueError("a position is opened on one side only")
            held = position.contracts
            total = held + contracts
            cost = position.average_price * held + price * contracts
            position.average_price = (cost / total).quantize(_PRICE_PLACES)
            position.quantity += signed
            position.updated_at = at
        position.opens.append((at, contracts, price))
        return position

    def close(
        self,
        *,
        account_number: str,
        option_id: str,
        contracts: int,
        price: Decimal,
        at: datetime,
        order_id: str,
        execution_id: str,
        trade_id: str,
    ) -> ClosedTrade:
        """Close ``contracts`` at ``price`` a share and book the realised P&L."""
        existing = self._positions.get((account_number, option_id))
        long = existing is not None and existing.is_long
        position = self._reduce(account_number, option_id, contracts, at)
        opened = cents(position.average_price * MULTIPLIER * contracts)
        closing = cents(price * MULTIPLIER * contracts)
        trade = ClosedTrade(
            trade_id=trade_id,
            account_number=account_number,
            asset_class="option",
            symbol=position.instrument.chain_symbol,
            instrument_id=option_id,
            quantity=Decimal(contracts),
            open_lot_id=position.position_id,
            opened_at=position.opened_at,
            closed_at=at,
            open_price=position.average_price,
            close_price=price,
            cost_basis=opened if long else closing,
            proceeds=closing if long else opened,
            fees=Decimal("0.00"),
            order_id=order_id,
            execution_id=execution_id,
        )
        self._closed.append(trade)
        return trade

    def remove(
        self, account_number: str, option_id: str, contracts: int, at: datetime
    ) -> OptionPosition:
        """Take ``contracts`` off a long position without booking a trade (exercise)."""
        return self._reduce(account_number, option_id, contracts, at)

    def _reduce(
        self, account_number: str, option_id: str, contracts: int, at: datetime
    ) -> OptionPosition:
        position = self._positions.get((account_number, option_id))
        if position is None or contracts > position.contracts:
            raise ValueError(f"cannot close {contracts} contracts of {option_id}")
        position.quantity += -contracts if position.is_long else contracts
        position.updated_at = at
        return position
