"""Alembic environment: runs one owner's revisions (``ordergate.store._migrate``) on the
connection ``migrate`` hands over (never from a URL), with that owner's version table.

The caller holds the connection inside a transaction that already owns the write lock, so
two processes opening the same fresh database migrate one after the other.
"""

from __future__ import annotations

from alembic import context

attributes = context.config.attributes
context.configure(connection=attributes["connection"], version_table=attributes["version_table"])
with context.begin_transaction():
    context.run_migrations()
