"""Account chains: each new filing links to the previous filing of its account.

Until now every filing linked to the one before it in the whole ledger, so every writer took
the same lock and held it through its commit's flush: one filing per flush, whatever the
number of writers. From this revision on a filing (``ordergate.filing/2``) links to its
account's last filing and records its place in that chain (``filings.account_seq``); writers
on different accounts lock different accounts and commit in parallel.

Filings already on file keep their ``ordergate.filing/1`` links (``account_seq`` stays
``NULL``) and still verify as the ledger-wide chain they are; each account's chain goes on
from its last such filing, so cutting that one off breaks the next link. ``chain_heads``
starts with every account's last filing. On Postgres, ``filings_seq`` numbers new filings
from the last ``seq`` on file.

Revision ID: 0003
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

_HASH = 64


def upgrade() -> None:
    op.add_column("filings", sa.Column("account_seq", sa.BigInteger, nullable=True))
    op.create_table(
        "chain_heads",
        sa.Column("account", sa.String(200), primary_key=True),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("account_seq", sa.BigInteger, nullable=False),
        sa.Column("hash", sa.String(_HASH), nullable=False),
    )
    op.execute(
        "INSERT INTO chain_heads (account, seq, account_seq, hash) "
        "SELECT f.account, f.seq, last.n, f.hash FROM filings f JOIN "
        "(SELECT account, MAX(seq) AS seq, COUNT(*) AS n FROM filings GROUP BY account) last "
        "ON f.seq = last.seq"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE SEQUENCE filings_seq")
        op.execute("SELECT setval('filings_seq', MAX(seq)) FROM filings HAVING COUNT(*) > 0")


def downgrade() -> None:
    bind = op.get_bind()
    linked = bind.execute(sa.text("SELECT 1 FROM filings WHERE account_seq IS NOT NULL LIMIT 1"))
    if linked.first() is not None:
        # Their links are per account: the ledger-wide chain of 0002 would not verify.
        raise RuntimeError("filings in account chains cannot go back to revision 0002")
    if bind.dialect.name == "postgresql":
        op.execute("DROP SEQUENCE filings_seq")
    op.drop_table("chain_heads")
    with op.batch_alter_table("filings") as batch:
        batch.drop_column("account_seq")
