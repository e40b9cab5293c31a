"""The ledger: ordergate's durable, tamper-evident record between an agent and the money.

Filings are append-only and hash-chained, one chain per account; each filing's reservation
against the rolling caps is made in the same transaction as the filing, under its account's
lock (``Ledger.file_and_reserve``), so concurrent processes or replicas never reserve past a
cap, and writers on different accounts do not wait for one another. Orders, executions,
approvals, the pause flag, the breaker's high-water mark, the equity curve's marks
(``Ledger.equity``) and the decisions journal live beside them. SQLite by default
(``$ORDERGATE_HOME/ledger.db``), Postgres by URL; Alembic migrations on open.

``verify`` (and ``ordergate audit verify``) finds any edited, deleted or reordered filing or
event; ``Ledger.head`` gives a checkpoint, covering every account's chain, that proves no
account's tail was cut off or rewritten since, and from which a later ``verify(since=…)``
walks only what was filed after it. What is open (``Ledger.open_filings``, ``open_count``)
is kept as filings move, so reading it costs what is open, never the history.

``Ledger.turns`` (``AccountTurns``) is the account's turn: one order at a time per account,
from the guard's first read of the caps through the place call, in process, across processes
on one SQLite file and across replicas on Postgres; and the reconciler's pass, one replica
at a time.
"""

from ordergate.ledger._canonical import (
    GENESIS,
    canonical_json,
    chain_hash,
    event_body,
    linked_filing_body,
    to_units,
)
from ordergate.ledger._connection_pause import connection_pause_key, digest_in
from ordergate.ledger._controls import (
    AppliedPolicy,
    Controls,
    PauseState,
    SessionEquity,
    policy_sha256,
)
from ordergate.ledger._decision import DecisionReads, RecentFilings
from ordergate.ledger._equity import MARK_EVERY, EquityMark, EquityMarks
from ordergate.ledger._errors import (
    AccountBusyError,
    AgentKeyUsedError,
    CheckpointError,
    LedgerError,
    LedgerSchemaError,
    LedgerTamperedError,
    ReservationError,
    UnknownFilingError,
)
from ordergate.ledger._feed import events_after
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
    IdentityFill,
    Journal,
    OrderRecord,
    Orders,
)
from ordergate.ledger._turns import TURN_BOUND_S, AccountTurns
from ordergate.ledger._verify import verify
from ordergate.store import write_transaction

__all__ = [
    "CAP_DAILY_USD",
    "CAP_ORDERS_PER_DAY",
    "DEFAULT_APPROVAL_TTL",
    "GENESIS",
    "MARK_EVERY",
    "PAUSED",
    "TURN_BOUND_S",
    "WINDOW",
    "AccountBusyError",
    "AccountTurns",
    "AgentKeyUsedError",
    "AppliedPolicy",
    "Approval",
    "ApprovalState",
    "Approvals",
    "ChainHead",
    "CheckpointError",
    "Controls",
    "Decision",
    "DecisionEntry",
    "DecisionReads",
    "EquityMark",
    "EquityMarks",
    "EventRecord",
    "Execution",
    "Filing",
    "FilingRecord",
    "FilingResult",
    "FilingStatus",
    "IdentityFill",
    "Journal",
    "Ledger",
    "LedgerError",
    "LedgerSchemaError",
    "LedgerTamperedError",
    "OrderRecord",
    "Orders",
    "PauseState",
    "RecentFilings",
    "ReservationError",
    "RollingCaps",
    "SessionEquity",
    "Spend",
    "UnknownFilingError",
    "VerifyResult",
    "canonical_json",
    "chain_hash",
    "connection_pause_key",
    "digest_in",
    "event_body",
    "events_after",
    "linked_filing_body",
    "open_ledger",
    "policy_sha256",
    "to_units",
    "verify",
    "write_transaction",
]
