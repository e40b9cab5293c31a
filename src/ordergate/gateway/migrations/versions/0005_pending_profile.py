"""The profile the person chose on a consent page, kept with the request while the person
signs in at the upstream (sealed custody), so the connection opened at the callback gets it.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("gateway_pending") as table:
        table.add_column(sa.Column("profile", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("gateway_pending") as table:
        table.drop_column("profile")
