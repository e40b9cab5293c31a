"""The console session's second secret: ``console_sessions.key_sha256``, the SHA-256 of the
key a signed-in page keeps in its tab's ``sessionStorage`` (per origin, so a page on another
port never sees it) and sends on every request; the cookie alone opens nothing.

Revision ID: 0015
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Sessions signed in before this revision have no key: they end (sign in again).
    op.execute("DELETE FROM console_sessions")
    with op.batch_alter_table("console_sessions") as table:
        table.add_column(sa.Column("key_sha256", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("console_sessions") as table:
        table.drop_column("key_sha256")
