"""The ledger: ordergate's durable, tamper-evident record between an agent and the money.

Filings are append-only and hash-chained; each filing's reservation against the rolling caps
is made in the same transaction as the filing (``Ledger.file_and_reserve``), so concurrent
processes or replicas never reserve past a cap. Orders, executions, approvals, the pause
flag, the breaker's high-water mark and the decisions journal live beside them. SQLite by
default (``$ORDERGATE_HOME/ledger.db``), Postgres by URL; Alembic migrations on open.

``verify`` (and ``ordergate audit verify``) finds any edited, deleted or reordered filing or
event; ``Ledger.head`` gives a checkpoint that proves the tail was not cut off.
"""

from ordergate.ledger._canonical import GENESIS, canonical_json
from ordergate.ledger._controls import Controls, PauseState, SessionEquity
from ordergate.ledger._errors import (
    LedgerError,
    LedgerSchemaError,
    ReservationError,
    UnknownFilingError,
)
from ordergate.ledger._ledger import WINDOW, Ledger, open_ledger
from ordergate.ledger._models import (
    CAP_DAILY_USD,
    CAP_ORDERS_PER_DAY,
    PAUSED,
    ChainHead,
    Decision,
    EventRecord,
    Filing,
    FilingRecord,
    FilingResult,
    FilingStatus,
    RollingCaps,
    Spend,
    VerifyResult,
)
from ordergate.ledger._records import (
    DEFAULT_APPROVAL_TTL,
    Approval,
    Approvals,
    ApprovalState,
    DecisionEntry,
    Execution,
    Journal,
    OrderRecord,
    Orders,
)
from ordergate.ledger._verify import verify

__all__ = [
    "CAP_DAILY_USD",
    "CAP_ORDERS_PER_DAY",
    "DEFAULT_APPROVAL_TTL",
    "GENESIS",
    "PAUSED",
    "WINDOW",
    "Approval",
    "ApprovalState",
    "Approvals",
    "ChainHead",
    "Controls",
    "Decision",
    "DecisionEntry",
    "EventRecord",
    "Execution",
    "Filing",
    "FilingRecord",
    "FilingResult",
    "FilingStatus",
    "Journal",
    "Ledger",
    "LedgerError",
    "LedgerSchemaError",
    "OrderRecord",
    "Orders",
    "PauseState",
    "ReservationError",
    "RollingCaps",
    "SessionEquity",
    "Spend",
    "UnknownFilingError",
    "VerifyResult",
    "canonical_json",
    "open_ledger",
    "verify",
]
