"""The gateway's authorization state: registered clients, authorizations in flight, codes,
tokens (SHA-256 only), and connections (a client's standing access to an upstream session).

Nothing here holds a usable secret: codes, tokens, nonces and binds are stored as their
SHA-256; an upstream session is stored sealed (AES-256-GCM) or, for the owner's own session
from ``ordergate login``, not at all (``upstream_sealed`` is ``NULL`` and ``kind`` says so).

Revision ID: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

_ID = 64
_HASH = 64
_TIME = 27


def upgrade() -> None:
    op.create_table(
        "gateway_clients",
        sa.Column("client_id", sa.String(_ID), primary_key=True),
        sa.Column("client_name", sa.String(200), nullable=False),
        sa.Column("redirect_uris", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
    )
    op.create_table(
        "gateway_pending",
        sa.Column("id", sa.String(_ID), primary_key=True),
        sa.Column("client_id", sa.String(_ID), nullable=False),
        sa.Column("redirect_uri", sa.Text, nullable=False),
        sa.Column("state", sa.Text),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("resource", sa.Text),
        sa.Column("nonce_sha256", sa.String(_HASH), nullable=False),
        sa.Column("nonce_used", sa.Boolean, nullable=False),
        sa.Column("bind_sha256", sa.String(_HASH)),
        sa.Column("upstream_state_sha256", sa.String(_HASH)),
        sa.Column("upstream_verifier_sealed", sa.Text),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("expires_at", sa.String(_TIME), nullable=False),
    )
    op.create_table(
        "connections",
        sa.Column("id", sa.String(_ID), primary_key=True),
        sa.Column("client_id", sa.String(_ID), nullable=False, index=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("profile", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("upstream_sealed", sa.Text),
        sa.Column("upstream_expires_at", sa.String(_TIME)),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("last_used_at", sa.String(_TIME), nullable=False),
    )
    op.create_table(
        "gateway_codes",
        sa.Column("code_sha256", sa.String(_HASH), primary_key=True),
        sa.Column("client_id", sa.String(_ID), nullable=False),
        sa.Column("redirect_uri", sa.Text, nullable=False),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("connection_id", sa.String(_ID), nullable=False),
        sa.Column("resource", sa.Text),
        sa.Column("expires_at", sa.String(_TIME), nullable=False),
        sa.Column("used_at", sa.String(_TIME)),
    )
    op.create_table(
        "gateway_tokens",
        sa.Column("token_sha256", sa.String(_HASH), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("client_id", sa.String(_ID), nullable=False),
        sa.Column("connection_id", sa.String(_ID), nullable=False, index=True),
        sa.Column("expires_at", sa.String(_TIME), nullable=False),
        sa.Column("revoked_at", sa.String(_TIME)),
        sa.Column("rotated_to_sha256", sa.String(_HASH)),
    )


def downgrade() -> None:
    for table in (
        "gateway_tokens", "gateway_codes", "connections", "gateway_pending", "gateway_clients",
    ):  # fmt: skip
        op.drop_table(table)
