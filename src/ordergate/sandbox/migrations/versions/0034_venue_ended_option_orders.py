"""Ended option orders of the engine's books, beside the equity and crypto ones.

The engine carries the venue's options desk: its open orders and positions are in the book's
open state (``venue_books``); an ended option order is appended here in the transaction that
ended it, keyed and indexed as ``venue_ended_orders`` is (the venue keeps one ``ref_id``
space per desk).

Revision ID: 0034
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0034"
down_revision: str | None = "0033"
branch_labels: str | None = None
depends_on: str | None = None

_BOOK = 200


def upgrade() -> None:
    op.create_table(
        "venue_ended_option_orders",
        sa.Column("book", sa.String(_BOOK), primary_key=True),
        sa.Column("order_id", sa.String(UUID_WIDTH), primary_key=True),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("ref_key", sa.String(UUID_WIDTH), nullable=False),
        sa.Column("sequence", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index(
        "ux_venue_ended_option_orders_ref", "venue_ended_option_orders",
        ["book", "account", "ref_key"], unique=True,
    )  # fmt: skip
    op.create_index(
        "ix_venue_ended_option_orders_account", "venue_ended_option_orders",
        ["book", "account", "sequence"],
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("venue_ended_option_orders")
