"""The owner's guard state: replayed codes and the lockout after wrong ones, shared by every
process on the ledger (``ordergate.owner._schema``), with its one row in place.

Revision ID: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    guard = op.create_table(
        "owner_guard",
        sa.Column("key", sa.String(16), primary_key=True),
        sa.Column("last_step", sa.BigInteger),
        sa.Column("failures", sa.Text, nullable=False),
        sa.Column("locked_until", sa.String(40)),
        sa.Column("updated_at", sa.String(40), nullable=False),
    )
    op.bulk_insert(
        guard,
        [{"key": "owner", "last_step": None, "failures": "[]", "locked_until": None,
          "updated_at": "1970-01-01T00:00:00+00:00"}],
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("owner_guard")
