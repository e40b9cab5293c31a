"""The owner's lockout per source (``ordergate.owner._sources``): one row per source (an
address class, or the owner's channel) with wrong codes lately, its backoff and its lock.

Revision ID: 0013
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "owner_sources",
        sa.Column("source", sa.String(64), primary_key=True),
        sa.Column("failures", sa.Text, nullable=False),
        sa.Column("level", sa.Integer, nullable=False),
        sa.Column("locked_until", sa.String(40)),
        sa.Column("updated_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("owner_sources")
