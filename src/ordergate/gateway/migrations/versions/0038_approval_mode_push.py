"""Approval mode per connection, and Web Push to a person's phone (hosted rail).

``connections.approval_mode``: while true (the default, so every new connection and every
existing one starts in it) each order of a sealed connection is held for the person who owns
it, whatever the rail's policy says; only that person's own code turns it off.

``push_subscriptions``: a person's Web Push subscriptions (RFC 8030), one row each: the
endpoint and its keys sealed under the connection's own data key (associated data
``push-sub:<connection id>:<id>``), so erasing the connection shreds them; only the SHA-256 of
the endpoint is in the clear, so the same subscription is kept once.

``push_keys``: the rail's VAPID key pair (RFC 8292), generated once: the public key in the
clear (what a browser subscribes with), the private key sealed under a data key of its own,
wrapped by the key provider's key-encryption key like a connection's.

Revision ID: 0038
Revises: 0040
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0038"
down_revision: str | None = "0040"
branch_labels: str | None = None
depends_on: str | None = None

_ID = 64
_TIME = 27


def upgrade() -> None:
    with op.batch_alter_table("connections") as batch:
        batch.add_column(
            sa.Column("approval_mode", sa.Boolean, nullable=False, server_default=sa.true())
        )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.String(_ID), primary_key=True),
        sa.Column("connection_id", sa.String(_ID), nullable=False),
        sa.Column("endpoint_sha256", sa.String(64), nullable=False),
        sa.Column("sealed", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.UniqueConstraint("connection_id", "endpoint_sha256", name="uq_push_endpoint"),
    )
    op.create_table(
        "push_keys",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("public_key", sa.String(128), nullable=False),
        sa.Column("private_sealed", sa.Text, nullable=False),
        sa.Column("data_key_wrapped", sa.Text, nullable=False),
        sa.Column("kek_id", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("push_keys")
    op.drop_table("push_subscriptions")
    with op.batch_alter_table("connections") as batch:
        batch.drop_column("approval_mode")
