"""The owner's delayed acts (an act that loosens waits ``loosen_delay_s`` before it takes
effect) and the delay settings in force (``ordergate.owner._schema``), with the settings'
one row at the defaults (15 minutes, no approval threshold).

Revision ID: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "owner_delayed",
        sa.Column("id", sa.String(UUID_WIDTH), primary_key=True),
        sa.Column("act", sa.String(32), nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("authorised_at", sa.String(40), nullable=False),
        sa.Column("effective_at", sa.String(40), nullable=False),
        sa.Column("settled_at", sa.String(40)),
        sa.Column("settled_by", sa.String(64)),
        sa.Column("note", sa.Text),
    )
    op.create_index("owner_delayed_state", "owner_delayed", ["state"])
    settings = op.create_table(
        "owner_settings",
        sa.Column("key", sa.String(16), primary_key=True),
        sa.Column("loosen_delay_s", sa.BigInteger, nullable=False),
        sa.Column("approve_above", sa.String(40)),
        sa.Column("updated_at", sa.String(40), nullable=False),
    )
    op.bulk_insert(
        settings,
        [{"key": "owner", "loosen_delay_s": 900, "approve_above": None,
          "updated_at": "1970-01-01T00:00:00+00:00"}],
    )  # fmt: skip


def downgrade() -> None:
    op.drop_index("owner_delayed_state", "owner_delayed")
    op.drop_table("owner_settings")
    op.drop_table("owner_delayed")
