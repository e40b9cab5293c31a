"""An identity's losing closed trades, for the cooldown after a streak of losses.

A closed trade is one of the identity's sell filings that filled (in part or whole): its
fills close shares of the identity's own earlier buy fills of that symbol, first in, first
out, and it lost when its proceeds were below the cost of the shares it closed. The streak's
window is read whole (``LossRead``: every filing of the identity filed within the cooldown
and its loss window, however many, ``Orders.fills_of`` by ``ix_filings_identity``) with the
identity's ``LOSS_FILINGS`` filings before it for the buys its sells close (the cost of a
decision stays bounded by the window): a sell whose buys are older than those closes nothing
that can be priced, and is not counted. Exact ``Decimal`` throughout; the answer is each
losing trade's last fill's instant, oldest first.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from uuid import UUID

from ordergate.core import ZERO, Side
from ordergate.ledger import IdentityFill

__all__ = ["LOSS_FILINGS", "LossRead", "losing_closes"]

LOSS_FILINGS = 200
"""How many of the identity's filings before the streak's window are read for the buys its
sells close."""


@dataclass(frozen=True, slots=True)
class LossRead:
    """Whose losing closed trades a decision reads, and how far back: ``window`` is the
    cooldown and the loss window together (a loss older than that refuses nothing)."""

    identity: str
    window: timedelta


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
