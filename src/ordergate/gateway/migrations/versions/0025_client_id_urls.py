"""Client ids as long as a URL: a client may name itself by its metadata document's URL (CIMD).

The columns that hold the client id of a consent page, a connection, a code or a token were
64 characters (a registered client's random id); a metadata document's URL may be up to
2000. Postgres enforces the length, so it is widened there; SQLite does not, and its tables
are left as they are.

Revision ID: 0025
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision: str | None = "0016"
branch_labels: str | None = None
depends_on: str | None = None

_TABLES = ("gateway_pending", "connections", "gateway_codes", "gateway_tokens")


def _client_ids(length: int, was: int) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in _TABLES:
        op.alter_column(
            table,
            "client_id",
            type_=sa.String(length),
            existing_type=sa.String(was),
            existing_nullable=False,
        )


def upgrade() -> None:
    _client_ids(2000, 64)


def downgrade() -> None:
    _client_ids(64, 2000)
