"""Control keys as long as an account: a breaker's trip is kept per account.

The cooldown after a breaker counts from the instant a breaker was last found tripped on the
account deciding (``breaker_trip:<account>``), no longer from one ledger-wide control, so a
trip on one account does not cool another down. Such a key is as long as an account (200)
and its prefix; the ``controls`` and ``control_events`` key columns were 100. Postgres
enforces the length, so it is widened there; SQLite does not, and its tables are left as
they are. A ledger-wide ``breaker_trip`` written before this revision is kept and read as
applying to every account (fail closed) until its cooldown passes.

Revision ID: 0030
Revises: 0024
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision: str | None = "0024"
branch_labels: str | None = None
depends_on: str | None = None


def _keys(length: int, was: int) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in ("controls", "control_events"):
        op.alter_column(
            table, "key", type_=sa.String(length), existing_type=sa.String(was),
            existing_nullable=False,
        )  # fmt: skip


def upgrade() -> None:
    _keys(240, 100)


def downgrade() -> None:
    _keys(100, 240)
