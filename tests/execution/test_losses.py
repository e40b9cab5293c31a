"""An identity's losing closed trades: its sells matched first in, first out against its own
buys, a trade losing when its proceeds fall below the cost of what it closed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from uuid import uuid4

from ordergate.execution._losses import losing_closes
from ordergate.ledger import IdentityFill

T0 = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def fill(side: str, quantity: str, price: str, minute: int, ref: object = None) -> IdentityFill:
    return IdentityFill(
        ref_id=ref or uuid4(),  # type: ignore[arg-type]
        symbol="SPY",
        side=side,
        quantity=Decimal(quantity),
        price=Decimal(price),
        executed_at=T0 + timedelta(minutes=minute),
    )


def test_sells_below_the_fifo_cost_of_what_they_close_are_losses_at_their_last_fill() -> None:
    sale = uuid4()
    fills = [
        fill("buy", "2", "100", 0),
        fill("buy", "1", "90", 1),
        fill("sell", "1", "99.99", 2),  # closes one at 100: a loss
        fill("sell", "1", "100", 3, sale),  # closes the other at 100, then...
        fill("sell", "1", "89", 4, sale),  # ...one at 90 (one filing: 189 < 190, a loss)
        fill("buy", "1", "50", 5),
        fill("sell", "1", "50", 6),  # at cost: not a loss
        fill("sell", "1", "1", 7),  # nothing left to close: not counted
    ]
    assert losing_closes(fills) == (T0 + timedelta(minutes=2), T0 + timedelta(minutes=4))
    assert losing_closes([]) == ()
