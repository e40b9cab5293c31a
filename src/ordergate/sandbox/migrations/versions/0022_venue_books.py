"""The sandbox venue's equity engine kept in ordergate's database, one book per paper account.

``venue_books`` holds each book's open state (cash, holds, open orders, open lots, id and
order counters) as one JSON document with a version; ``venue_ended_orders`` and
``venue_closed_trades`` hold what has ended, appended in the transaction that ended it. So
a call reads and writes what is open, and history is read only when asked for.

Revision ID: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0022"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

_BOOK = 200
_TIME = 27


def upgrade() -> None:
    op.create_table(
        "venue_books",
        sa.Column("book", sa.String(_BOOK), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
    )
    op.create_table(
        "venue_ended_orders",
        sa.Column("book", sa.String(_BOOK), primary_key=True),
        sa.Column("order_id", sa.String(UUID_WIDTH), primary_key=True),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("ref_key", sa.String(UUID_WIDTH), nullable=False),
        sa.Column("sequence", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index(
        "ux_venue_ended_orders_ref", "venue_ended_orders", ["book", "account", "ref_key"],
        unique=True,
    )  # fmt: skip
    op.create_index(
        "ix_venue_ended_orders_account", "venue_ended_orders", ["book", "account", "sequence"]
    )
    op.create_table(
        "venue_closed_trades",
        sa.Column("book", sa.String(_BOOK), primary_key=True),
        sa.Column("ordinal", sa.Integer, primary_key=True),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("closed_at", sa.String(_TIME), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index(
        "ix_venue_closed_trades_account", "venue_closed_trades", ["book", "account", "ordinal"]
    )


def downgrade() -> None:
    op.drop_table("venue_closed_trades")
    op.drop_table("venue_ended_orders")
    op.drop_table("venue_books")
