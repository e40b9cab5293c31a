"""The rolling window's sums read the index alone: ``ix_reservations_window`` carries the
amounts it adds up.

Every filing's cap check and every decision's snapshot sums, for the account, the reserved
amount and the orders of the reservations in the last 24 hours (and counts those of the
last minute). With the index on ``(account, created_us)`` alone, each reservation in the
window cost a read of its row besides its index entry; with ``amount_units`` and ``ops`` in
the index, the sums are an index-only range on either database, bounded by what the window
holds, never by the account's history.

Revision ID: 0031
Revises: 0030
"""

from __future__ import annotations

from alembic import op

revision = "0031"
down_revision: str | None = "0030"
branch_labels: str | None = None
depends_on: str | None = None

_INDEX = "ix_reservations_window"


def upgrade() -> None:
    op.drop_index(_INDEX, table_name="reservations")
    op.create_index(_INDEX, "reservations", ["account", "created_us", "amount_units", "ops"])


def downgrade() -> None:
    op.drop_index(_INDEX, table_name="reservations")
    op.create_index(_INDEX, "reservations", ["account", "created_us"])
