"""The agent's own key for an order (its ``ref_id``), filed at most once per identity.

An agent following the venue's instructions sends a fresh UUID as ``ref_id`` on every order
and the same one on a retry. ``agent_keys`` records it beside the filing, in the filing's
transaction; its primary key (identity, agent_key) is what makes a retry, from any process
or replica, find the first filing instead of filing again.

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0024"
down_revision: str | None = "0023"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "agent_keys",
        sa.Column("identity", sa.String(200), primary_key=True),
        sa.Column("agent_key", sa.String(UUID_WIDTH), primary_key=True),
        sa.Column(
            "filing_id",
            sa.String(UUID_WIDTH),
            sa.ForeignKey("filings.id"),
            nullable=False,
            unique=True,
        ),
    )


def downgrade() -> None:
    op.drop_table("agent_keys")
