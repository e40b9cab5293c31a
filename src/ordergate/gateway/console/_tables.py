"""The console's tables (migrations 0010, 0015 and 0040, the gateway package's) as SQLAlchemy Core
metadata.

See ``ordergate/gateway/migrations/versions/0010_console.py`` and ``0015_console_keys.py`` for
what each holds.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, LargeBinary, MetaData, String, Table

__all__ = ["console_passkeys", "console_sessions"]

metadata = MetaData()
_HASH = 64
_TIME = 27

console_passkeys = Table(
    "console_passkeys",
    metadata,
    Column("credential_id", String(1400), primary_key=True),
    Column("public_key", LargeBinary, nullable=False),
    Column("sign_count", BigInteger, nullable=False),
    Column("label", String(100), nullable=False),
    Column("created_at", String(_TIME), nullable=False),
    Column("last_used_at", String(_TIME)),
)

console_sessions = Table(
    "console_sessions",
    metadata,
    Column("id_sha256", String(_HASH), primary_key=True),
    Column("csrf", String(_HASH), nullable=False),
    Column("signed_in", Boolean, nullable=False),
    Column("challenge", String(128)),
    Column("challenge_kind", String(16)),
    Column("created_at", String(_TIME), nullable=False),
    Column("seen_at", String(_TIME), nullable=False),
    Column("key_sha256", String(_HASH)),
    Column("connection_id", String(64)),
)
