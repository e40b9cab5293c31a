"""Each sealed connection's data key, wrapped: envelope encryption under a key provider.

``data_key_wrapped`` holds the connection's own data key as the key provider wrapped it and
``kek_id`` the key-encryption key that did (``ordergate.gateway.keys``); the session in
``upstream_sealed`` is then ``v2.`` (under that data key). Rows sealed before (``v1.``, under
the master secret's key) have neither; they move to a data key of their own the next time
they are opened, or at ``ordergate keys rotate``. ``kek_id`` is indexed: a rotation looks up
the rows still under an old KEK.

Revision ID: 0032
Revises: 0025
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision: str | None = "0025"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("connections") as batch:
        batch.add_column(sa.Column("data_key_wrapped", sa.Text))
        batch.add_column(sa.Column("kek_id", sa.String(64)))
        batch.create_index("ix_connections_kek_id", ["kek_id"])


def downgrade() -> None:
    with op.batch_alter_table("connections") as batch:
        batch.drop_index("ix_connections_kek_id")
        batch.drop_column("kek_id")
        batch.drop_column("data_key_wrapped")
