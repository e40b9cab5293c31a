"""The paper book: the simulated broker's orders and fills, beside the ledger they feed.

Paper mode sends nothing to a market: ``PaperExecutor`` keeps its orders and fills here, so a
paper account survives restarts and is shared by every process on the ledger exactly as a
broker account would be. These are the simulated broker's rows, not the audit record: the
reconciler books paper fills into ``executions`` as it books live ones.

Revision ID: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0002"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

_TIME = 27
_AMOUNT = 64


def upgrade() -> None:
    op.create_table(
        "paper_orders",
        sa.Column("order_id", sa.String(64), primary_key=True),
        sa.Column("ref_id", sa.String(UUID_WIDTH), nullable=False, unique=True),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("symbol", sa.String(32), nullable=False),
        sa.Column("side", sa.String(8), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("quantity", sa.String(_AMOUNT)),
        sa.Column("dollar_amount", sa.String(_AMOUNT)),
        sa.Column("limit_price", sa.String(_AMOUNT)),
        sa.Column("stop_price", sa.String(_AMOUNT)),
        sa.Column("time_in_force", sa.String(16), nullable=False),
        sa.Column("market_hours", sa.String(32), nullable=False),
        sa.Column("state", sa.String(40), nullable=False),
        sa.Column("triggered", sa.Boolean, nullable=False),
        sa.Column("reject_reason", sa.String(200)),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("updated_at", sa.String(_TIME), nullable=False),
    )
    op.create_index("ix_paper_orders_account_state", "paper_orders", ["account", "state"])
    op.create_table(
        "paper_fills",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "order_id", sa.String(64), sa.ForeignKey("paper_orders.order_id"), nullable=False
        ),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("symbol", sa.String(32), nullable=False),
        sa.Column("side", sa.String(8), nullable=False),
        sa.Column("quantity", sa.String(_AMOUNT), nullable=False),
        sa.Column("price", sa.String(_AMOUNT), nullable=False),
        sa.Column("executed_at", sa.String(_TIME), nullable=False),
    )
    op.create_index("ix_paper_fills_order", "paper_fills", ["order_id"])
    op.create_index("ix_paper_fills_account", "paper_fills", ["account", "symbol"])


def downgrade() -> None:
    op.drop_table("paper_fills")
    op.drop_table("paper_orders")
