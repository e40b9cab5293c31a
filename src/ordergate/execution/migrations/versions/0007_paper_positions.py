"""The paper book's positions kept as fills land, so reading a paper account costs the symbols
it holds, not every fill it ever had.

Until now the paper account's cash and positions were summed from every one of its fills on
each read, several times per paper order: at 100,000 past fills an order spent over a second
there. ``paper_positions`` holds, per account and symbol, the signed shares and the net cash
the fills cost (buys' cost minus sells' proceeds), updated in the transaction that writes
each fill. Cash is the starting cash minus the account's net costs. This revision fills it
from the fills on file, in exact decimal arithmetic, as the old sums computed them.

Revision ID: 0007
Revises: 0002
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

_AMOUNT = 64


def upgrade() -> None:
    op.create_table(
        "paper_positions",
        sa.Column("account", sa.String(200), primary_key=True),
        sa.Column("symbol", sa.String(32), primary_key=True),
        sa.Column("quantity", sa.String(_AMOUNT), nullable=False),
        sa.Column("cost", sa.String(_AMOUNT), nullable=False),
    )
    held: defaultdict[tuple[str, str], list[Decimal]] = defaultdict(
        lambda: [Decimal(0), Decimal(0)]
    )
    fills = op.get_bind().execute(
        sa.text("SELECT account, symbol, side, quantity, price FROM paper_fills")
    )
    for account, symbol, side, quantity_text, price in fills:
        quantity = Decimal(quantity_text)
        cost = quantity * Decimal(price)
        totals = held[(account, symbol)]
        if side == "buy":
            totals[0] += quantity
            totals[1] += cost
        else:
            totals[0] -= quantity
            totals[1] -= cost
    if held:
        table = sa.table(
            "paper_positions",
            sa.column("account"),
            sa.column("symbol"),
            sa.column("quantity"),
            sa.column("cost"),
        )
        op.bulk_insert(
            table,
            [
                {"account": account, "symbol": symbol, "quantity": _wire(quantity),
                 "cost": _wire(cost)}
                for (account, symbol), (quantity, cost) in sorted(held.items())
            ],
        )  # fmt: skip


def _wire(value: Decimal) -> str:
    # Plain notation, never an exponent, no negative zero (as ``ordergate.core.to_wire``).
    return "0" if value.is_zero() else format(value, "f")


def downgrade() -> None:
    op.drop_table("paper_positions")
