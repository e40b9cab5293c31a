"""A person's passkey for their sealed connection (hosted rail), and a console session that
belongs to one connection.

``person_passkey_sealed`` holds the credential the person registered on the consent flow
(its id and COSE public key), sealed under the connection's own data key with
``person-passkey:<id>`` as associated data, so a rotation of the key-encryption key carries
it and erasing the connection shreds it; ``person_passkey_sha256`` (SHA-256 of the credential
id) finds the connection an assertion claims, and ``person_passkey_count`` is the
authenticator's signature counter. ``console_sessions.connection_id`` names the connection of
a person's console session (``NULL``: the operator's).

Revision ID: 0040
Revises: 0035
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0040"
down_revision: str | None = "0035"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("connections") as batch:
        batch.add_column(sa.Column("person_passkey_sealed", sa.Text))
        batch.add_column(sa.Column("person_passkey_sha256", sa.String(64)))
        batch.add_column(sa.Column("person_passkey_count", sa.BigInteger))
        batch.create_index("ix_connections_person_passkey_sha256", ["person_passkey_sha256"])
    with op.batch_alter_table("console_sessions") as batch:
        batch.add_column(sa.Column("connection_id", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("console_sessions") as batch:
        batch.drop_column("connection_id")
    with op.batch_alter_table("connections") as batch:
        batch.drop_index("ix_connections_person_passkey_sha256")
        batch.drop_column("person_passkey_count")
        batch.drop_column("person_passkey_sha256")
        batch.drop_column("person_passkey_sealed")
