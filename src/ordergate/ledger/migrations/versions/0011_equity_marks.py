"""The equity curve's marks: the account's equity as read, kept so a restart keeps the curve.

``equity_marks`` holds one row per mark: the account, when (``ordergate.store.iso``), the
equity (a canonical decimal string) and where it was read (``paper`` or ``broker``). The
console reads a window of them by ``ix_equity_marks_account`` (account, at). Nothing is
filled in: no equity was kept before this revision.

Revision ID: 0011
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "equity_marks",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("at", sa.String(27), nullable=False),
        sa.Column("equity", sa.String(64), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
    )
    op.create_index("ix_equity_marks_account", "equity_marks", ["account", "at"])


def downgrade() -> None:
    op.drop_index("ix_equity_marks_account", "equity_marks")
    op.drop_table("equity_marks")
