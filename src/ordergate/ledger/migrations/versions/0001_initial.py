"""The first ledger schema: filings and their events (both hash-chained), reservations,
orders, executions, approvals, controls, the decisions journal and the chain locks.

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

_HASH = 64
_TIME = 27


def upgrade() -> None:
    op.create_table(
        "filings",
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("id", sa.String(UUID_WIDTH), nullable=False, unique=True),
        sa.Column("identity", sa.String(200), nullable=False),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("decision", sa.String(16), nullable=False),
        sa.Column("reasons", sa.Text, nullable=False),
        sa.Column("terms", sa.Text, nullable=False),
        sa.Column("notional", sa.String(64), nullable=False),
        sa.Column("prev_hash", sa.String(_HASH), nullable=False),
        sa.Column("hash", sa.String(_HASH), nullable=False),
    )
    op.create_table(
        "filing_events",
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("filing_id", sa.String(UUID_WIDTH), sa.ForeignKey("filings.id"), nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("prev_hash", sa.String(_HASH), nullable=False),
        sa.Column("hash", sa.String(_HASH), nullable=False),
    )
    op.create_index("ix_filing_events_filing", "filing_events", ["filing_id", "seq"])
    op.create_table(
        "reservations",
        sa.Column(
            "filing_id", sa.String(UUID_WIDTH), sa.ForeignKey("filings.id"), primary_key=True
        ),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("reserved_units", sa.BigInteger, nullable=False),
        sa.Column("amount_units", sa.BigInteger, nullable=False),
        sa.Column("ops", sa.Integer, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
    )
    op.create_index("ix_reservations_window", "reservations", ["account", "created_us"])
    op.create_table(
        "orders",
        sa.Column("ref_id", sa.String(UUID_WIDTH), sa.ForeignKey("filings.id"), primary_key=True),
        sa.Column("broker_order_id", sa.String(100), unique=True),
        sa.Column("state", sa.String(40), nullable=False),
        sa.Column("cumulative_quantity", sa.String(64), nullable=False),
        sa.Column("average_price", sa.String(64)),
        sa.Column("updated_at", sa.String(_TIME), nullable=False),
    )
    op.create_table(
        "executions",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("ref_id", sa.String(UUID_WIDTH), sa.ForeignKey("filings.id"), nullable=False),
        sa.Column("broker_order_id", sa.String(100), nullable=False),
        sa.Column("quantity", sa.String(64), nullable=False),
        sa.Column("price", sa.String(64), nullable=False),
        sa.Column("executed_at", sa.String(_TIME), nullable=False),
        sa.Column("basis_source", sa.String(16), nullable=False),
    )
    op.create_index("ix_executions_ref_id", "executions", ["ref_id"])
    op.create_table(
        "approvals",
        sa.Column("id", sa.String(UUID_WIDTH), primary_key=True),
        sa.Column("filing_id", sa.String(UUID_WIDTH), sa.ForeignKey("filings.id"), nullable=False),
        sa.Column("terms_sha256", sa.String(_HASH), nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("expires_at", sa.String(_TIME), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("decided_at", sa.String(_TIME)),
        sa.Column("decided_by", sa.String(200)),
    )
    op.create_index("ix_approvals_filing_id", "approvals", ["filing_id"])
    op.create_table(
        "controls",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(_TIME), nullable=False),
    )
    op.create_table(
        "decisions",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("identity", sa.String(200), nullable=False),
        sa.Column("filing_id", sa.String(UUID_WIDTH)),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("why", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    locks = op.create_table("locks", sa.Column("name", sa.String(32), primary_key=True))
    op.bulk_insert(locks, [{"name": "filings"}, {"name": "events"}])


def downgrade() -> None:
    for table in (
        "locks", "decisions", "controls", "approvals", "executions", "orders",
        "reservations", "filing_events", "filings",
    ):  # fmt: skip
        op.drop_table(table)
