"""The owner's tables (migrations 0008, 0013, 0014, 0019) as SQLAlchemy Core metadata, in the
ledger's database, so that every replica sharing the ledger shares them.

``owner_guard``, one row, ``key = "owner"``:

- ``last_step``: the last TOTP time step an owner code was accepted for; a code of an earlier
  step is a replay;
- ``last_digest``: the digest of the act that step was spent on; the same step for any other
  act is refused (a code is spent on the act it was typed for);
- ``failures``: the wall-clock times (ISO text, JSON list) of wrong codes in the last window;
- ``locked_until``: owner acts are refused until then (ISO text), after too many failures.

``owner_sources`` (migration 0013) keeps the lockout per source (``ordergate.owner._sources``):
one row per source with wrong codes lately — the source, its recent failures (JSON list), how
many locks it earned in the last day (``level``, the backoff's exponent), until when it is
locked, and when the row was last written.

Migration 0014 adds the acts that loosen, held until their delay has passed (``owner_delayed``:
one row per act, ``state`` pending → applied | cancelled | failed, and, for a trading caller
token, applied → collected), and the delay settings in force (``owner_settings``, one row:
``loosen_delay_s``, ``approve_above`` as a decimal string or null).

``owner_prepared_acts`` (migration 0019): each act the gateway prepared for the owner to
authorise (``ordergate.owner._prepared``), single use, kept until it expires.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, Index, Integer, MetaData, String, Table, Text

from ordergate.store import UUID_WIDTH

__all__ = [
    "OWNER_KEY",
    "metadata",
    "owner_delayed",
    "owner_guard",
    "owner_settings",
    "owner_sources",
    "prepared_acts",
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
    Column("last_digest", String(64)),
)

prepared_acts = Table(
    "owner_prepared_acts",
    metadata,
    Column("id", String(UUID_WIDTH), primary_key=True),
    Column("act", String(32), nullable=False),
    Column("params", Text, nullable=False),
    Column("summary", Text, nullable=False),
    Column("digest", String(64), nullable=False),
    Column("needs_code", Boolean, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("expires_at", String(40), nullable=False),
    Column("state", String(16), nullable=False),
    Column("outcome", Text),
    Index("ix_owner_prepared_acts_expires", "expires_at"),
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
    Column("id", String(UUID_WIDTH), primary_key=True),
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
