"""Filings declared not placed, watched for a day in case their order arrives late.

A place call delayed past the client's timeout and the reconciler's grace is declared
``not_placed`` and its reservation released; should it then reach the broker, it fills and
nothing counted it. ``late_orders`` names each filing released so, with when (``released_us``)
and when the broker was last asked about it (``looked_us``), so the reconciler looks each up
by ``ref_id`` for a day, a batch a pass (``ix_late_orders_account``: account, looked_us).
Nothing is filled in: filings released before this revision are past looking for.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0018"
down_revision: str | None = "0017"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "late_orders",
        sa.Column(
            "filing_id", sa.String(UUID_WIDTH), sa.ForeignKey("filings.id"), primary_key=True
        ),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("released_us", sa.BigInteger, nullable=False),
        sa.Column("looked_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_late_orders_account", "late_orders", ["account", "looked_us"])


def downgrade() -> None:
    op.drop_index("ix_late_orders_account", "late_orders")
    op.drop_table("late_orders")
