"""The ledger's exceptions.

::

    OrdergateError
    └── LedgerError                 the ledger cannot do what was asked (``code`` says why)
        ├── LedgerSchemaError       the database's schema is newer than this code, or unreadable
        ├── UnknownFilingError      no filing has that id
        ├── ReservationError        a release/correction the reservation's state does not allow
        ├── AgentKeyUsedError       the identity already filed an order under that agent key
        ├── CheckpointError         checkpoints given to ``verify`` that cannot go together
        └── AccountBusyError        the account's turn did not come within its bound

A ``LedgerError`` never carries terms or secrets in its message: only ids, sequence numbers
and reason codes.
"""

from __future__ import annotations

from ordergate.core import OrdergateError

__all__ = [
    "AccountBusyError",
    "AgentKeyUsedError",
    "CheckpointError",
    "LedgerError",
    "LedgerSchemaError",
    "LedgerTamperedError",
    "ReservationError",
    "UnknownFilingError",
]


class LedgerError(OrdergateError):
    """Root of the ledger's errors."""

    code = "ledger_error"


class LedgerSchemaError(LedgerError):
    """The database was written by a newer ordergate, or its schema version is unreadable."""

    code = "ledger_schema"


class UnknownFilingError(LedgerError, KeyError):
    """No filing has the given id."""

    code = "unknown_filing"

    def __init__(self, filing_id: object) -> None:
        self.filing_id = str(filing_id)
        super().__init__(f"no filing {self.filing_id}")

    def __str__(self) -> str:
        return f"no filing {self.filing_id}"


class ReservationError(LedgerError):
    """A reservation cannot be released or corrected as asked."""

    code = "reservation_state"


class AgentKeyUsedError(LedgerError):
    """The identity already filed an order under this agent key (a concurrent filing took it
    first): nothing of this filing was written. ``Ledger.keyed_filing`` reads the first."""

    code = "agent_key_used"

    def __init__(self, agent_key: object) -> None:
        self.agent_key = str(agent_key)
        super().__init__(f"agent key {self.agent_key} is already filed")


class CheckpointError(LedgerError, ValueError):
    """A checkpoint ``verify`` cannot start from (one from before account chains), or one
    older than the ``since`` beside it."""

    code = "checkpoint"


class LedgerTamperedError(LedgerError):
    """``verify`` found the ledger edited: ``chain`` (``filings``, ``events``,
    ``open_filings``, ``reservations``, ``controls``), the first bad ``seq`` and why."""

    code = "ledger_tampered"

    def __init__(self, chain: str, seq: int | None, reason: str) -> None:
        self.chain = chain
        self.seq = seq
        self.reason = reason
        super().__init__(f"the ledger fails verification at {chain} {seq}: {reason}")


class AccountBusyError(LedgerError):
    """The account's turn (``AccountTurns``) did not come within its bound: another order on
    the account held it. Nothing was filed; the order may be sent again."""

    code = "account_busy"

    def __init__(self, account: str, bound_s: float) -> None:
        self.account = account
        self.bound_s = bound_s
        super().__init__(
            f"another order on this account held its turn for over {bound_s:g} s; nothing was filed"
        )
