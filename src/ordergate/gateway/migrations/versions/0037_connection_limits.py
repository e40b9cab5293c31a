"""A person's own limits for their connection, under the operator's ceiling (hosted rail).

``connection_limits``: one row per connection and cap of the policy's ``[limits]`` (``name``,
as ``ordergate.policy.CAP_DIRECTIONS`` names it) with the value in force for that connection
(``value``: the policy file's wire form, a Decimal or an integer as text) and who set it last
(``set_by``: ``person`` or ``operator``). No row: the connection trades up to the rail's
policy, the operator's ceiling. The guard checks each order against the tighter of the two.
The rows are deleted with the connection when it is erased.

Revision ID: 0037
Revises: 0038
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0037"
down_revision: str | None = "0038"
branch_labels: str | None = None
depends_on: str | None = None

_ID = 64
_TIME = 27


def upgrade() -> None:
    op.create_table(
        "connection_limits",
        sa.Column("connection_id", sa.String(_ID), primary_key=True),
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(40), nullable=False),
        sa.Column("set_by", sa.String(16), nullable=False),
        sa.Column("set_at", sa.String(_TIME), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("connection_limits")
