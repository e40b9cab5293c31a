"""An identity's losing closed trades, for the cooldown after a streak of losses.

A closed trade is one of the identity's sell filings that filled (in part or whole): its
fills close shares of the identity's own earlier buy fills of that symbol, first in, first
out, and it lost when its proceeds were below the cost of the shares it closed. Only the
identity's latest ``LOSS_FILINGS`` filings are read (the cost of a decision stays bounded):
a sell whose buys are older than those closes nothing that can be priced, and is not
counted. Exact ``Decimal`` throughout; the answer is each losing trade's last fill's instant,
oldest first.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from uuid import UUID

from ordergate.core import ZERO, Side
from ordergate.ledger import IdentityFill

__all__ = ["LOSS_FILINGS", "losing_closes"]

LOSS_FILINGS = 200
"""How many of the identity's latest filings the streak is read from."""


def losing_closes(fills: Iterable[IdentityFill]) -> tuple[datetime, ...]:
    """When each of the identity's losing sell filings last filled, oldest first."""
    lots: defaultdict[str, deque[list[Decimal]]] = defaultdict(deque)  # [quantity, price]
    cost: defaultdict[UUID, Decimal] = defaultdict(Decimal)
    proceeds: defaultdict[UUID, Decimal] = defaultdict(Decimal)
    closed_at: dict[UUID, datetime] = {}
    # A stable sort: fills of one instant keep the order given (the ledger's: filing order).
    for fill in sorted(fills, key=lambda one: one.executed_at):
        held = lots[fill.symbol]
        if fill.side == Side.BUY:
            held.append([fill.quantity, fill.price])
            continue
        remaining = fill.quantity
        while remaining > ZERO and held:
            lot = held[0]
            taken = min(lot[0], remaining)
            cost[fill.ref_id] += taken * lot[1]
            proceeds[fill.ref_id] += taken * fill.price
            lot[0] -= taken
            remaining -= taken
            if lot[0] == ZERO:
                held.popleft()
        if fill.ref_id in cost:
            closed_at[fill.ref_id] = fill.executed_at
    losses = [closed_at[ref] for ref in closed_at if proceeds[ref] < cost[ref]]
    return tuple(sorted(losses))
