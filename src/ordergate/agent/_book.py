"""``Book``: the agent's own record of what it holds, reconciled with the broker's each tick.

The book starts from the first snapshot it sees (the broker's positions and cash), then
moves only by the fills of the agent's own filings (each execution booked once, late fills
included): a buy adds its shares and takes its cost from the book's cash, a sell the other
way. Each tick it is compared with the snapshot — positions share for share, and NAV (the
broker's equity against what the book expects: its own cash plus its shares at the broker's
value per share), so a fill on the account the agent did not make, or cash that moved
without it, shows:

- a symbol whose share count changed by a clean ratio (2-for-1, 3-for-2, 1-for-10 …) with
  no fill of ours to explain it, while the broker's cash is the book's (a split moves no
  cash; someone else's fill always does), is a split: the book re-bases its shares to the
  broker's and keeps the dollars paid, so the cost basis per share follows the split
  instead of being counted twice; a split never trips anything;
- any other difference, or a NAV more than ``tolerance_pct`` (1 %) apart, halts buying for
  the tick and is journalled; the book then adopts the broker's shares and cash (the broker
  is the record of what is held) so one surprise is reported once;
- positions or NAV unknown: buying halts (fail closed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from ordergate.agent._snapshot import Snapshot
from ordergate.core import ZERO, Side
from ordergate.ledger import Execution

__all__ = ["Book", "Holding", "Reconciliation"]

_RATIOS = tuple(
    Decimal(n) / Decimal(d)
    for n in range(1, 21)
    for d in range(1, 21)
    if n != d and (n == 1 or d == 1 or (n <= 5 and d <= 5))
)

_CENT = Decimal("0.01")
"""How far, per fill booked since the book last took the broker's cash, the broker's cash may
be from the book's and still be the same: the venue books each fill's money in cents."""


@dataclass(frozen=True, slots=True)
class Holding:
    """Shares held and the dollars paid for them (``basis``)."""

    quantity: Decimal
    basis: Decimal

    @property
    def basis_per_share(self) -> Decimal | None:
        return None if self.quantity == 0 else self.basis / self.quantity


@dataclass(frozen=True, slots=True)
class Reconciliation:
    halt_buying: bool
    notes: tuple[str, ...] = field(default=())
    splits: tuple[tuple[str, Decimal], ...] = field(default=())


def _split_ratio(before: Decimal, after: Decimal) -> Decimal | None:
    if before <= 0 or after <= 0:
        return None
    for ratio in _RATIOS:
        if before * ratio == after:
            return ratio
    return None


class Book:
    def __init__(self, *, tolerance_pct: Decimal = Decimal(1)) -> None:
        self._tolerance = tolerance_pct
        self._holdings: dict[str, Holding] | None = None
        self._cash: Decimal | None = None
        self._fills_since_cash = 0
        self._booked: set[str] = set()

    def holding(self, symbol: str) -> Holding | None:
        return None if self._holdings is None else self._holdings.get(symbol)

    @property
    def cash(self) -> Decimal | None:
        """The cash the book expects the account to hold (``None`` before the first tick)."""
        return self._cash

    def book(self, symbol: str, side: Side, executions: Iterable[Execution]) -> None:
        """Book the agent's fills in ``symbol`` (each execution once, however often seen)."""
        if self._holdings is None or self._cash is None:
            return  # nothing adopted yet: the first snapshot will hold these fills
        for fill in executions:
            if fill.id in self._booked:
                continue
            self._booked.add(fill.id)
            self._fills_since_cash += 1
            current = self._holdings.get(symbol, Holding(ZERO, ZERO))
            if side is Side.BUY:
                moved = Holding(current.quantity + fill.quantity, current.basis + fill.notional)
                self._cash -= fill.notional
            else:
                self._cash += fill.notional
                per_share = current.basis_per_share or ZERO
                moved = Holding(
                    current.quantity - fill.quantity, current.basis - per_share * fill.quantity
                )
            self._holdings[symbol] = moved

    def reconcile(self, snapshot: Snapshot) -> Reconciliation:
        positions, equity, cash = snapshot.positions, snapshot.equity, snapshot.cash
        if positions is None or equity is None or cash is None:
            return Reconciliation(True, ("positions or NAV unknown: buying halts",))
        broker = {s: Holding(p.quantity, p.market_value) for s, p in positions.items()}
        if self._holdings is None or self._cash is None:
            self._holdings, self._cash, self._fills_since_cash = broker, cash, 0
            return Reconciliation(False, ("the book starts from the broker's positions",))
        notes: list[str] = []
        splits: list[tuple[str, Decimal]] = []
        symbols = sorted(set(self._holdings) | set(broker))
        same_cash = abs(self._cash - cash) <= _CENT * (1 + self._fills_since_cash)
        for symbol in symbols:
            mine = self._holdings.get(symbol, Holding(ZERO, ZERO))
            theirs = broker.get(symbol, Holding(ZERO, ZERO))
            ratio = _split_ratio(mine.quantity, theirs.quantity) if same_cash else None
            if ratio is not None:
                splits.append((symbol, ratio))
                self._holdings[symbol] = Holding(theirs.quantity, mine.basis)
                notes.append(
                    f"{symbol}: split {ratio}: {mine.quantity} → {theirs.quantity} shares, "
                    f"basis ${mine.basis} kept"
                )
        halt = False
        valued = self._cash
        for symbol in symbols:
            mine = self._holdings.get(symbol, Holding(ZERO, ZERO))
            theirs = broker.get(symbol, Holding(ZERO, ZERO))
            if theirs.quantity != 0:
                valued += mine.quantity * theirs.basis / theirs.quantity
            if mine.quantity != theirs.quantity:
                halt = True
                notes.append(
                    f"{symbol}: the book holds {mine.quantity}, the broker {theirs.quantity}"
                )
                self._holdings[symbol] = Holding(theirs.quantity, mine.basis)
        if equity > 0 and abs(valued - equity) * 100 > self._tolerance * equity:
            halt = True
            notes.append(f"NAV: the broker says {equity}, the book values {valued}")
        if halt or same_cash:  # the broker's cents (or, after a surprise, its figure)
            self._cash, self._fills_since_cash = cash, 0
        if halt:
            notes.append("buying halts this tick")
        return Reconciliation(halt, tuple(notes), tuple(splits))
