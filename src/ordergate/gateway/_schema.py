"""The gateway's tables (migrations 0004 to 0040) as SQLAlchemy Core metadata, in the ledger's
database.

A client id is a registered client's random id, or the URL of a client's metadata document
(CIMD, up to ``_CLIENT_ID`` characters: migration 0025 widened the columns that hold one).

See ``ordergate/gateway/migrations/versions/0004_gateway.py`` and ``0016_caller_mints.py`` for
what each holds. Times are
the store's one time encoding (``ordergate.store.iso``).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    true,
)

__all__ = [
    "caller_mints",
    "caller_names",
    "connection_limits",
    "connections",
    "gateway_clients",
    "gateway_codes",
    "gateway_pending",
    "gateway_tokens",
    "metadata",
    "push_keys",
    "push_subscriptions",
]

metadata = MetaData()
_ID = 64
_CLIENT_ID = 2000  # ordergate.oauth's MAX_URL
_HASH = 64
_TIME = 27

gateway_clients = Table(
    "gateway_clients",
    metadata,
    Column("client_id", String(_ID), primary_key=True),
    Column("client_name", String(200), nullable=False),
    Column("redirect_uris", Text, nullable=False),
    Column("created_at", String(_TIME), nullable=False),
)

gateway_pending = Table(
    "gateway_pending",
    metadata,
    Column("id", String(_ID), primary_key=True),
    Column("client_id", String(_CLIENT_ID), nullable=False),
    Column("redirect_uri", Text, nullable=False),
    Column("state", Text),
    Column("code_challenge", String(128), nullable=False),
    Column("resource", Text),
    Column("nonce_sha256", String(_HASH), nullable=False),
    Column("nonce_used", Boolean, nullable=False),
    Column("bind_sha256", String(_HASH)),
    Column("upstream_state_sha256", String(_HASH)),
    Column("upstream_verifier_sealed", Text),
    Column("profile", String(64)),
    Column("created_at", String(_TIME), nullable=False),
    Column("expires_at", String(_TIME), nullable=False),
)

connections = Table(
    "connections",
    metadata,
    Column("id", String(_ID), primary_key=True),
    Column("client_id", String(_CLIENT_ID), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("profile", String(64), nullable=False),
    Column("state", String(16), nullable=False),
    Column("upstream_sealed", Text),
    Column("upstream_expires_at", String(_TIME)),
    Column("created_at", String(_TIME), nullable=False),
    Column("last_used_at", String(_TIME), nullable=False),
    Column("data_key_wrapped", Text),
    Column("kek_id", String(64), index=True),
    Column("person_totp_sealed", Text),
    Column("person_totp_step", BigInteger),
    Column("person_passkey_sealed", Text),
    Column("person_passkey_sha256", String(_HASH), index=True),
    Column("person_passkey_count", BigInteger),
    Column("approval_mode", Boolean, nullable=False, server_default=true()),
)

gateway_codes = Table(
    "gateway_codes",
    metadata,
    Column("code_sha256", String(_HASH), primary_key=True),
    Column("client_id", String(_CLIENT_ID), nullable=False),
    Column("redirect_uri", Text, nullable=False),
    Column("code_challenge", String(128), nullable=False),
    Column("connection_id", String(_ID), nullable=False),
    Column("resource", Text),
    Column("expires_at", String(_TIME), nullable=False),
    Column("used_at", String(_TIME)),
)

gateway_tokens = Table(
    "gateway_tokens",
    metadata,
    Column("token_sha256", String(_HASH), primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("client_id", String(_CLIENT_ID), nullable=False),
    Column("connection_id", String(_ID), nullable=False, index=True),
    Column("expires_at", String(_TIME), nullable=False),
    Column("revoked_at", String(_TIME)),
    Column("rotated_to_sha256", String(_HASH)),
)

caller_names = Table(
    "caller_names",
    metadata,
    Column("caller", String(64), primary_key=True),
    Column("profile", String(64), nullable=False),
    Column("created_at", String(_TIME), nullable=False),
)

caller_mints = Table(
    "caller_mints",
    metadata,
    Column("mint_id", String(64), primary_key=True),
    Column("caller", String(64), nullable=False, index=True),
    Column("profile", String(64), nullable=False),
    Column("connection_id", String(_ID)),
    Column("created_at", String(_TIME), nullable=False),
    Column("expires_at", String(_TIME), nullable=False),
    Column("revoked_at", String(_TIME)),
)

push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("id", String(_ID), primary_key=True),
    Column("connection_id", String(_ID), nullable=False),
    Column("endpoint_sha256", String(_HASH), nullable=False),
    Column("sealed", Text, nullable=False),
    Column("created_at", String(_TIME), nullable=False),
    UniqueConstraint("connection_id", "endpoint_sha256", name="uq_push_endpoint"),
)
"""A person's Web Push subscriptions, sealed under their connection's data key (0038)."""

push_keys = Table(
    "push_keys",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("public_key", String(128), nullable=False),
    Column("private_sealed", Text, nullable=False),
    Column("data_key_wrapped", Text, nullable=False),
    Column("kek_id", String(64), nullable=False),
    Column("created_at", String(_TIME), nullable=False),
)
"""The rail's VAPID key pair, its private key sealed under the key provider (0038)."""

connection_limits = Table(
    "connection_limits",
    metadata,
    Column("connection_id", String(_ID), primary_key=True),
    Column("name", String(32), primary_key=True),
    Column("value", String(40), nullable=False),
    Column("set_by", String(16), nullable=False),
    Column("set_at", String(_TIME), nullable=False),
)
"""A connection's own limits under the rail's policy, the operator's ceiling (0037)."""
