"""Alembic environment: runs on the connection ``open_ledger`` hands over (never from a URL).

The caller holds the connection inside a transaction that already owns the write lock, so
two processes opening the same fresh database migrate one after the other.
"""

from __future__ import annotations

from alembic import context

from ordergate.ledger._schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
