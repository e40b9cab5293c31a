"""Caller tokens by name and by mint: which profile a caller name belongs to, and each token
minted (its mint id, name, profile, bound connection, expiry) with when it was revoked.

``caller_names`` holds one row per caller name ever minted, with its profile: a name belongs to
the first profile it was minted for, so a read-only token cannot be minted under a trader's
name. ``caller_mints`` holds one row per token minted (never the token, only its mint id);
``revoked_at`` set makes it the denylist every replica reads on each caller-token request.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None

_ID = 64
_TIME = 27


def upgrade() -> None:
    op.create_table(
        "caller_names",
        sa.Column("caller", sa.String(64), primary_key=True),
        sa.Column("profile", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
    )
    op.create_table(
        "caller_mints",
        sa.Column("mint_id", sa.String(64), primary_key=True),
        sa.Column("caller", sa.String(64), nullable=False, index=True),
        sa.Column("profile", sa.String(64), nullable=False),
        sa.Column("connection_id", sa.String(_ID)),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("expires_at", sa.String(_TIME), nullable=False),
        sa.Column("revoked_at", sa.String(_TIME)),
    )


def downgrade() -> None:
    op.drop_table("caller_mints")
    op.drop_table("caller_names")
