"""The graded record: a grade per filled placement and the grader's cursor over the events
(``ordergate.record._schema``), the cursor's one row in place.

Revision ID: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ordergate.store import UUID_WIDTH

revision = "0009"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "grades",
        sa.Column("filing_id", sa.String(UUID_WIDTH), primary_key=True),
        sa.Column("identity", sa.String(200), nullable=False),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("symbol", sa.String(32), nullable=False),
        sa.Column("side", sa.String(8), nullable=False),
        sa.Column("quantity", sa.String(64), nullable=False),
        sa.Column("fill_price", sa.String(64), nullable=False),
        sa.Column("filled_at", sa.String(27), nullable=False),
        sa.Column("grading_day", sa.String(10), nullable=False),
        sa.Column("due_at", sa.String(27), nullable=False),
        sa.Column("next_try_at", sa.String(27), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("close", sa.String(64)),
        sa.Column("spy_start", sa.String(64)),
        sa.Column("spy_close", sa.String(64)),
        sa.Column("return_bps", sa.String(64)),
        sa.Column("spy_bps", sa.String(64)),
        sa.Column("excess_bps", sa.String(64)),
        sa.Column("graded_at", sa.String(27)),
    )
    op.create_index("ix_grades_due", "grades", ["state", "next_try_at"])
    op.create_index("ix_grades_identity", "grades", ["identity", "state", "filled_at"])
    cursor = op.create_table(
        "grading_cursor",
        sa.Column("key", sa.String(16), primary_key=True),
        sa.Column("seq", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(cursor, [{"key": "events", "seq": 0}])


def downgrade() -> None:
    op.drop_table("grading_cursor")
    op.drop_index("ix_grades_identity", "grades")
    op.drop_index("ix_grades_due", "grades")
    op.drop_table("grades")
