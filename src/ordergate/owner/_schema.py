"""The owner's guard state (migration 0008) as SQLAlchemy Core metadata, in the ledger's
database, so that every replica sharing the ledger shares it: one row, ``key = "owner"``.

- ``last_step``: the last TOTP time step an owner code was accepted for; a code of that step
  or an earlier one is a replay.
- ``failures``: the wall-clock times (ISO text, JSON list) of wrong codes in the last window.
- ``locked_until``: owner acts are refused until then (ISO text), after too many failures.

``owner_sources`` (migration 0013) keeps the lockout per source (``ordergate.owner._sources``):
one row per source with wrong codes lately — the source, its recent failures (JSON list), how
many locks it earned in the last day (``level``, the backoff's exponent), until when it is
locked, and when the row was last written.

Migration 0014 adds the acts that loosen, held until their delay has passed (``owner_delayed``:
one row per act, ``state`` pending → applied | cancelled | failed, and, for a trading caller
token, applied → collected), and the delay settings in force (``owner_settings``, one row:
``loosen_delay_s``, ``approve_above`` as a decimal string or null).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, MetaData, String, Table, Text

__all__ = [
    "OWNER_KEY",
    "metadata",
    "owner_delayed",
    "owner_guard",
    "owner_settings",
    "owner_sources",
]

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

owner_sources = Table(
    "owner_sources",
    metadata,
    Column("source", String(64), primary_key=True),
    Column("failures", Text, nullable=False),
    Column("level", Integer, nullable=False),
    Column("locked_until", String(40)),
    Column("updated_at", String(40), nullable=False),
)

owner_delayed = Table(
    "owner_delayed",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("act", String(32), nullable=False),
    Column("summary", Text, nullable=False),
    Column("payload", Text, nullable=False),
    Column("state", String(16), nullable=False),
    Column("authorised_at", String(40), nullable=False),
    Column("effective_at", String(40), nullable=False),
    Column("settled_at", String(40)),
    Column("settled_by", String(64)),
    Column("note", Text),
    Index("owner_delayed_state", "state"),
)

owner_settings = Table(
    "owner_settings",
    metadata,
    Column("key", String(16), primary_key=True),
    Column("loosen_delay_s", BigInteger, nullable=False),
    Column("approve_above", String(40)),
    Column("updated_at", String(40), nullable=False),
)
