"""The decisions journal read by identity: ``ix_decisions_identity`` (identity, seq).

An agent's daily digest counts every entry of its market day, read newest first from the
identity's latest entry back to the day before (``Journal.latest_of``), so its cost is the
day's entries, never the journal's history.

Revision ID: 0023
Revises: 0021
"""

from __future__ import annotations

from alembic import op

revision = "0023"
down_revision: str | None = "0021"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_decisions_identity", "decisions", ["identity", "seq"])


def downgrade() -> None:
    op.drop_index("ix_decisions_identity", "decisions")
