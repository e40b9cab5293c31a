"""The owner's console: its passkeys (WebAuthn credentials) and its browser sessions.

``console_passkeys`` holds each registered passkey's credential id (base64url), its COSE
public key and its signature counter: nothing that signs. ``console_sessions`` holds each
console session by the SHA-256 of the random id its cookie carries (never the id), with the
CSRF token its forms carry, whether the owner signed in on it, the WebAuthn challenge in
flight, and when it was made and last seen (it ends when idle too long).

Revision ID: 0010
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

_HASH = 64
_TIME = 27


def upgrade() -> None:
    op.create_table(
        "console_passkeys",
        sa.Column("credential_id", sa.String(1400), primary_key=True),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("label", sa.String(100), nullable=False),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("last_used_at", sa.String(_TIME)),
    )
    op.create_table(
        "console_sessions",
        sa.Column("id_sha256", sa.String(_HASH), primary_key=True),
        sa.Column("csrf", sa.String(_HASH), nullable=False),
        sa.Column("signed_in", sa.Boolean, nullable=False),
        sa.Column("challenge", sa.String(128)),
        sa.Column("challenge_kind", sa.String(16)),
        sa.Column("created_at", sa.String(_TIME), nullable=False),
        sa.Column("seen_at", sa.String(_TIME), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("console_sessions")
    op.drop_table("console_passkeys")
