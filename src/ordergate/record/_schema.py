"""The graded record's tables (migration 0009) as SQLAlchemy Core metadata, in the ledger's
database, so every replica and the command line share one record.

- ``grades``: one row per filled placement, written once by the grader when it first sees
  the fill (``state = "pending"``) and completed once, when both closes are known
  (``state = "graded"``). The primary key is the filing id, so a placement is graded at
  most once however many graders run; a graded row is never written again.
- ``grading_cursor``: one row, the last ``filing_events.seq`` the grader has read, so each
  pass reads only the events filed since (the events' primary key), never the history.

Times are fixed-width UTC ISO-8601 text as in the ledger; money and basis points are
canonical decimal strings.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, MetaData, String, Table

from ordergate.store import UUID_WIDTH

__all__ = ["CURSOR_KEY", "grades", "grading_cursor", "metadata"]

CURSOR_KEY = "events"
metadata = MetaData()

_TIME = 27
_AMOUNT = 64

grades = Table(
    "grades",
    metadata,
    Column("filing_id", String(UUID_WIDTH), primary_key=True),
    Column("identity", String(200), nullable=False),
    Column("account", String(200), nullable=False),
    Column("symbol", String(32), nullable=False),
    Column("side", String(8), nullable=False),
    Column("quantity", String(_AMOUNT), nullable=False),
    Column("fill_price", String(_AMOUNT), nullable=False),
    Column("filled_at", String(_TIME), nullable=False),
    Column("grading_day", String(10), nullable=False),
    Column("due_at", String(_TIME), nullable=False),
    Column("next_try_at", String(_TIME), nullable=False),
    Column("state", String(16), nullable=False),
    Column("close", String(_AMOUNT)),
    Column("spy_start", String(_AMOUNT)),
    Column("spy_close", String(_AMOUNT)),
    Column("return_bps", String(_AMOUNT)),
    Column("spy_bps", String(_AMOUNT)),
    Column("excess_bps", String(_AMOUNT)),
    Column("graded_at", String(_TIME)),
    Index("ix_grades_due", "state", "next_try_at"),
    Index("ix_grades_identity", "identity", "state", "filled_at"),
)

grading_cursor = Table(
    "grading_cursor",
    metadata,
    Column("key", String(16), primary_key=True),
    Column("seq", BigInteger, nullable=False),
)
