"""The controls' chain: every write of a control, hash-linked.

``controls`` rows (the pause flag, the applied policy, the high-water mark, the
session-start equity) are overwritten in place, so rewriting one by hand (another policy in
force, a pause lifted) left no trace that ``audit verify`` could find. ``control_events``
chains every write (``ordergate.ledger._control_chain``); this revision starts the chain with
the controls on file, in key order, and adds the ``controls`` lock its writers take on
Postgres.

Revision ID: 0021
Revises: 0018
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision: str | None = "0018"
branch_labels: str | None = None
depends_on: str | None = None

_GENESIS = "0" * 64
# The chain's body as of this revision (``ledger._canonical`` / ``_control_chain``), frozen.
_TAG, _SEPARATOR = "ordergate.control/1", "\x1f"


def upgrade() -> None:
    events = op.create_table(
        "control_events",
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("key", sa.String(100), nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(27), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )
    op.create_index("ix_control_events_key", "control_events", ["key", "seq"])
    connection = op.get_bind()
    prev, rows = _GENESIS, []
    current = connection.execute(
        sa.text("SELECT key, value, updated_at FROM controls ORDER BY key")
    ).all()
    for seq, row in enumerate(current, start=1):
        body = _SEPARATOR.join((_TAG, str(seq), row.key, row.value, row.updated_at))
        digest = hashlib.sha256(prev.encode("ascii") + body.encode()).hexdigest()
        rows.append({"seq": seq, "key": row.key, "value": row.value,
                     "updated_at": row.updated_at, "prev_hash": prev, "hash": digest})  # fmt: skip
        prev = digest
    if rows:
        op.bulk_insert(events, rows)
    connection.execute(sa.text("INSERT INTO locks (name) VALUES ('controls')"))


def downgrade() -> None:
    op.get_bind().execute(sa.text("DELETE FROM locks WHERE name = 'controls'"))
    op.drop_index("ix_control_events_key", "control_events")
    op.drop_table("control_events")
