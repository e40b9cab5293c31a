"""The ledger's tables as SQLAlchemy Core metadata (its migrations, ``ordergate/ledger/migrations``,
create the same shape).

Times are fixed-width UTC ISO-8601 text (``ordergate.store.iso``), readable in any SQL shell and
hashed as stored; the rolling window reads an integer microsecond column instead. Money is a
canonical decimal string, plus whole 10⁻⁸ USD units where SQL adds it up (see ``_canonical``).

Each filing links to the previous filing of its account (``account_seq`` is its place in that
chain; ``NULL`` for filings of the ledger-wide chain from before migration 0003).
``chain_heads`` holds every account's last link, written in the same transaction as the
filing: the next filing of the account reads its link there, and ``Ledger.head`` digests it.
On Postgres ``seq`` comes from the ``filings_seq`` sequence, so writers on different accounts
never wait for one another to number their filings.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Sequence,
    String,
    Table,
    Text,
)

from ordergate.store import UUID_WIDTH

__all__ = [
    "agent_keys",
    "approvals",
    "chain_heads",
    "control_events",
    "controls",
    "decision_snapshots",
    "decisions",
    "equity_marks",
    "executions",
    "filing_events",
    "filings",
    "filings_seq",
    "late_orders",
    "locks",
    "metadata",
    "open_filings",
    "orders",
    "reservations",
]

metadata = MetaData()

_HASH = 64
_TIME = 27

filings = Table(
    "filings",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("id", String(UUID_WIDTH), nullable=False, unique=True),
    Column("identity", String(200), nullable=False),
    Column("account", String(200), nullable=False),
    Column("created_at", String(_TIME), nullable=False),
    Column("kind", String(64), nullable=False),
    Column("status", String(32), nullable=False),
    Column("decision", String(16), nullable=False),
    Column("reasons", Text, nullable=False),
    Column("terms", Text, nullable=False),
    Column("notional", String(64), nullable=False),
    Column("prev_hash", String(_HASH), nullable=False),
    Column("hash", String(_HASH), nullable=False),
    Column("account_seq", BigInteger),
    Index("ix_filings_identity", "identity", "seq"),
    Index("ix_filings_account", "account", "seq"),
)

# Postgres only: the next ``filings.seq`` (SQLite numbers under its one write lock).
filings_seq = Sequence("filings_seq", metadata=metadata)

chain_heads = Table(
    "chain_heads",
    metadata,
    Column("account", String(200), primary_key=True),
    Column("seq", BigInteger, nullable=False),
    Column("account_seq", BigInteger, nullable=False),
    Column("hash", String(_HASH), nullable=False),
)

filing_events = Table(
    "filing_events",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("filing_id", String(UUID_WIDTH), ForeignKey("filings.id"), nullable=False),
    Column("created_at", String(_TIME), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("status", String(32), nullable=False),
    Column("detail", Text, nullable=False),
    Column("prev_hash", String(_HASH), nullable=False),
    Column("hash", String(_HASH), nullable=False),
    Index("ix_filing_events_filing", "filing_id", "seq"),
)

# Derived, not chained (migration 0006): each accepted filing whose latest status event is not
# terminal, with that status, kept in the transactions that file it and append its status
# events, so that what is open is read without reading history. ``verify`` checks it.
open_filings = Table(
    "open_filings",
    metadata,
    Column("filing_id", String(UUID_WIDTH), primary_key=True),
    Column("seq", BigInteger, nullable=False),
    Column("account", String(200), nullable=False),
    Column("identity", String(200), nullable=False),
    Column("status", String(32), nullable=False),
    Index("ix_open_filings_account", "account", "seq"),
    Index("ix_open_filings_identity", "identity", "account"),
)

reservations = Table(
    "reservations",
    metadata,
    Column("filing_id", String(UUID_WIDTH), ForeignKey("filings.id"), primary_key=True),
    Column("account", String(200), nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Column("reserved_units", BigInteger, nullable=False),
    Column("amount_units", BigInteger, nullable=False),
    Column("ops", Integer, nullable=False),
    Column("state", String(16), nullable=False),
    Index("ix_reservations_window", "account", "created_us", "amount_units", "ops"),
)

orders = Table(
    "orders",
    metadata,
    Column("ref_id", String(UUID_WIDTH), ForeignKey("filings.id"), primary_key=True),
    Column("broker_order_id", String(100), unique=True),
    Column("state", String(40), nullable=False),
    Column("cumulative_quantity", String(64), nullable=False),
    Column("average_price", String(64)),
    Column("updated_at", String(_TIME), nullable=False),
)

executions = Table(
    "executions",
    metadata,
    Column("id", String(100), primary_key=True),
    Column("ref_id", String(UUID_WIDTH), ForeignKey("filings.id"), nullable=False, index=True),
    Column("broker_order_id", String(100), nullable=False),
    Column("quantity", String(64), nullable=False),
    Column("price", String(64), nullable=False),
    Column("executed_at", String(_TIME), nullable=False),
    Column("basis_source", String(16), nullable=False),
)

approvals = Table(
    "approvals",
    metadata,
    Column("id", String(UUID_WIDTH), primary_key=True),
    Column("filing_id", String(UUID_WIDTH), ForeignKey("filings.id"), nullable=False, index=True),
    Column("terms_sha256", String(_HASH), nullable=False),
    Column("created_at", String(_TIME), nullable=False),
    Column("expires_at", String(_TIME), nullable=False),
    Column("state", String(16), nullable=False),
    Column("decided_at", String(_TIME)),
    Column("decided_by", String(200)),
    # Migration 0017: the estimate the owner is asked to approve (NULL: the filing's notional).
    Column("notional", String(64)),
    Index("ix_approvals_state", "state", "expires_at"),
)

# Migration 0030: keys as long as an account and a prefix (``breaker_trip:<account>``).
_KEY = 240

controls = Table(
    "controls",
    metadata,
    Column("key", String(_KEY), primary_key=True),
    Column("value", Text, nullable=False),
    Column("updated_at", String(_TIME), nullable=False),
)

# Migration 0021: every write of a control, hash-linked (``_control_chain``); ``controls``
# holds the latest value of each key, which ``verify`` checks against it.
control_events = Table(
    "control_events",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("key", String(_KEY), nullable=False),
    Column("value", Text, nullable=False),
    Column("updated_at", String(_TIME), nullable=False),
    Column("prev_hash", String(_HASH), nullable=False),
    Column("hash", String(_HASH), nullable=False),
    Index("ix_control_events_key", "key", "seq"),
)

decisions = Table(
    "decisions",
    metadata,
    Column("seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    Column("created_at", String(_TIME), nullable=False),
    Column("identity", String(200), nullable=False),
    Column("filing_id", String(UUID_WIDTH)),
    Column("kind", String(64), nullable=False),
    Column("why", Text, nullable=False),
    Column("detail", Text, nullable=False),
    Index("ix_decisions_filing", "filing_id", "seq"),
    # Migration 0023: an identity's entries, newest first (an agent's daily digest).
    Index("ix_decisions_identity", "identity", "seq"),
)

# Migration 0012: each distinct snapshot a journal entry was decided on, once, keyed by the
# SHA-256 digest of its canonical JSON text (the entry's ``detail.snapshot_digest``).
decision_snapshots = Table(
    "decision_snapshots",
    metadata,
    Column("digest", String(_HASH), primary_key=True),
    Column("body", Text, nullable=False),
)

# The account's equity as read (migration 0011): where the guard reads it for an order and
# by the gateway's periodic pass, at most one mark a minute from the order path. Not chained:
# a curve to draw, not a record to prove. ``source`` is ``paper`` (the paper book) or
# ``broker``; ``equity`` a canonical decimal string.
equity_marks = Table(
    "equity_marks",
    metadata,
    Column("seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    Column("account", String(200), nullable=False),
    Column("at", String(_TIME), nullable=False),
    Column("equity", String(64), nullable=False),
    Column("source", String(16), nullable=False),
    Index("ix_equity_marks_account", "account", "at"),
)

# Migration 0018: each filing the reconciler declared not placed (its reservation released),
# watched for a day in case its order reaches the broker late. Derived, not chained: the
# not-placed status event is the record; a row is dropped once the day is over or the order
# is adopted. ``looked_us``: when the broker was last asked about it (the least recently
# asked are asked first, a batch a pass: ix_late_orders_account).
late_orders = Table(
    "late_orders",
    metadata,
    Column("filing_id", String(UUID_WIDTH), ForeignKey("filings.id"), primary_key=True),
    Column("account", String(200), nullable=False),
    Column("released_us", BigInteger, nullable=False),
    Column("looked_us", BigInteger, nullable=False),
    Index("ix_late_orders_account", "account", "looked_us"),
)

# Migration 0024: the key an agent gave its order (the venue's ``ref_id`` convention: a fresh
# UUID per order, the same one on a retry), written in the filing's transaction. The primary
# key makes a key file one filing per identity, whatever the process or replica; the filing's
# own ``id`` stays the order's ``ref_id`` at the venue. Kept as long as the filing.
agent_keys = Table(
    "agent_keys",
    metadata,
    Column("identity", String(200), primary_key=True),
    Column("agent_key", String(UUID_WIDTH), primary_key=True),
    Column("filing_id", String(UUID_WIDTH), ForeignKey("filings.id"), nullable=False, unique=True),
)

# One row per chain: Postgres writers lock it (SELECT … FOR UPDATE) to append in turn. Since
# migration 0003 only the events chain uses it; filings lock per account (``_engine``).
locks = Table(
    "locks",
    metadata,
    Column("name", String(32), primary_key=True),
)
