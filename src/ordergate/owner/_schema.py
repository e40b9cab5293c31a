"""The owner's guard state (migration 0008) as SQLAlchemy Core metadata, in the ledger's
database, so that every replica sharing the ledger shares it: one row, ``key = "owner"``.

- ``last_step``: the last TOTP time step an owner code was accepted for; a code of that step
  or an earlier one is a replay.
- ``failures``: the wall-clock times (ISO text, JSON list) of wrong codes in the last window.
- ``locked_until``: owner acts are refused until then (ISO text), after too many failures.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, MetaData, String, Table, Text

__all__ = ["OWNER_KEY", "metadata", "owner_guard"]

OWNER_KEY = "owner"
metadata = MetaData()

owner_guard = Table(
    "owner_guard",
    metadata,
    Column("key", String(16), primary_key=True),
    Column("last_step", BigInteger),
    Column("failures", Text, nullable=False),
    Column("locked_until", String(40)),
    Column("updated_at", String(40), nullable=False),
)
