"""The journal's filing index, and each distinct snapshot stored once.

``Journal.for_filing`` (``ordergate why``, the stage checks of a filing) read the decisions
journal by ``filing_id`` with no index: a scan of every entry ever journalled. The index
``ix_decisions_filing`` (filing_id, seq) serves it in the order it reads.

Each agent journal entry carried the whole snapshot it was decided on in its ``detail``, so a
tick's decision, its drops and its orders stored the same snapshot again and again.
``decision_snapshots`` holds each distinct snapshot once — its canonical JSON text, keyed by
the text's SHA-256 digest, which the entries already carry as ``detail.snapshot_digest`` —
and the entries keep only the digest. This revision moves the snapshots on file there; an
entry whose digest does not match its snapshot's text (edited by hand) is left as it is.
The downgrade puts each snapshot back into its entries.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None

_HASH = 64
_BATCH = 500
# The ledger's canonical JSON as of this revision (``ledger._canonical``), frozen here.
_dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), sort_keys=True).encode


def _entries(connection: sa.Connection, pattern: str) -> Any:
    """The entries whose detail text matches ``pattern``, in batches, oldest first."""
    after = 0
    while True:
        rows = connection.execute(
            sa.text(
                "SELECT seq, detail FROM decisions WHERE seq > :after AND detail LIKE :pattern "
                "ORDER BY seq LIMIT :batch"
            ),
            {"after": after, "pattern": pattern, "batch": _BATCH},
        ).all()
        if not rows:
            return
        yield from rows
        after = rows[-1].seq


def upgrade() -> None:
    op.create_index("ix_decisions_filing", "decisions", ["filing_id", "seq"])
    op.create_table(
        "decision_snapshots",
        sa.Column("digest", sa.String(_HASH), primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
    )
    connection = op.get_bind()
    stored: set[str] = set()
    for row in _entries(connection, '%"snapshot":%'):
        detail = json.loads(row.detail)
        snapshot = detail.get("snapshot")
        if not isinstance(snapshot, dict):
            continue
        body = _dumps(snapshot)
        digest = hashlib.sha256(body.encode()).hexdigest()
        if detail.get("snapshot_digest") != digest:
            continue
        if digest not in stored:
            connection.execute(
                sa.text("INSERT INTO decision_snapshots (digest, body) VALUES (:digest, :body)"),
                {"digest": digest, "body": body},
            )
            stored.add(digest)
        del detail["snapshot"]
        connection.execute(
            sa.text("UPDATE decisions SET detail = :detail WHERE seq = :seq"),
            {"detail": _dumps(detail), "seq": row.seq},
        )


def downgrade() -> None:
    connection = op.get_bind()
    bodies = {
        row.digest: row.body
        for row in connection.execute(sa.text("SELECT digest, body FROM decision_snapshots"))
    }
    for row in _entries(connection, '%"snapshot_digest":%'):
        detail = json.loads(row.detail)
        body = bodies.get(detail.get("snapshot_digest"))
        if body is None or "snapshot" in detail:
            continue
        detail["snapshot"] = json.loads(body)
        connection.execute(
            sa.text("UPDATE decisions SET detail = :detail WHERE seq = :seq"),
            {"detail": _dumps(detail), "seq": row.seq},
        )
    op.drop_table("decision_snapshots")
    op.drop_index("ix_decisions_filing", "decisions")
