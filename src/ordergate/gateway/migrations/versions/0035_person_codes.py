"""A person's own authenticator code for their sealed connection (hosted rail).

``person_totp_sealed`` holds the TOTP secret the person enrolled on the consent flow, sealed
under the connection's own data key (``data_key_wrapped``; associated data
``person-totp:<id>``), so a rotation of the key-encryption key moves it with the session and
an erased connection's code is shredded with its data key. ``person_totp_step`` is the last
time step spent: ``NULL`` until the person confirmed the enrolment with a first code.

Revision ID: 0035
Revises: 0032
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision: str | None = "0032"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("connections") as batch:
        batch.add_column(sa.Column("person_totp_sealed", sa.Text))
        batch.add_column(sa.Column("person_totp_step", sa.BigInteger))


def downgrade() -> None:
    with op.batch_alter_table("connections") as batch:
        batch.drop_column("person_totp_step")
        batch.drop_column("person_totp_sealed")
