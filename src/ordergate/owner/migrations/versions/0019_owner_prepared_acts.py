"""Prepared owner acts (``ordergate.owner._prepared``) and the digest a code's step was spent
on (``owner_guard.last_digest``): a code authorises the one act it was typed for.

Revision ID: 0019
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0019"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("owner_guard") as guard:
        guard.add_column(sa.Column("last_digest", sa.String(64)))
    op.create_table(
        "owner_prepared_acts",
        sa.Column("id", sa.String(UUID_WIDTH), primary_key=True),
        sa.Column("act", sa.String(32), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("needs_code", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("expires_at", sa.String(40), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("outcome", sa.Text),
    )
    op.create_index("ix_owner_prepared_acts_expires", "owner_prepared_acts", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_owner_prepared_acts_expires", "owner_prepared_acts")
    op.drop_table("owner_prepared_acts")
    with op.batch_alter_table("owner_guard") as guard:
        guard.drop_column("last_digest")
