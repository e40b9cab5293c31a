"""The estimate an approval asks the owner to approve.

An approval bound only the filing's terms, so an order approved at one price could fill at
another: stage B now compares the reviewed notional with the estimate the owner approved
(``approval_slippage_pct``). The first approval of a filing approves the filing's own
notional; an order held again after its review moved gets a new approval whose estimate is
the reviewed notional, kept in ``approvals.notional`` (a canonical decimal string; ``NULL``:
the filing's notional, as for every approval from before this revision).

Revision ID: 0017
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("approvals") as batch:
        batch.add_column(sa.Column("notional", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("approvals") as batch:
        batch.drop_column("notional")
