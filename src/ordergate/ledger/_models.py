"""What goes into the ledger and what comes back out: filings, results, caps, spend, heads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any
from uuid import UUID, uuid4

__all__ = [
    "CAP_DAILY_USD",
    "CAP_ORDERS_PER_DAY",
    "PAUSED",
    "ChainHead",
    "Decision",
    "EventRecord",
    "Filing",
    "FilingRecord",
    "FilingResult",
    "FilingStatus",
    "RollingCaps",
    "Spend",
    "VerifyResult",
]

# Reason codes the ledger itself adds when it refuses a filing the policy accepted. They are
# named after the policy keys whose limits they enforce.
CAP_DAILY_USD = "max_daily_usd"
CAP_ORDERS_PER_DAY = "max_orders_per_day"
PAUSED = "paused"


class Decision(StrEnum):
    """The policy's stage-A verdict, passed in by the caller."""

    ACCEPT = "accept"
    REFUSE = "refuse"


class FilingStatus(StrEnum):
    """A filing's status: ``accepted``/``refused`` when filed, the rest recorded as events."""

    ACCEPTED = "accepted"
    REFUSED = "refused"
    PENDING_APPROVAL = "pending_approval"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"
    SUBMITTED = "submitted"
    AWAITING_BROKER_APPROVAL = "awaiting_broker_approval"
    UNANSWERED = "unanswered"
    PARTIALLY_FILLED = "partially_filled"
    FILLED = "filled"
    CANCELLED = "cancelled"
    REJECTED = "rejected"
    FAILED = "failed"
    NOT_PLACED = "not_placed"

    @property
    def terminal(self) -> bool:
        """Nothing more can happen to the order (an ``unanswered`` one may still be live)."""
        return self in _TERMINAL


_TERMINAL = frozenset(
    {
        FilingStatus.REFUSED,
        FilingStatus.DENIED,
        FilingStatus.EXPIRED,
        FilingStatus.FILLED,
        FilingStatus.CANCELLED,
        FilingStatus.REJECTED,
        FilingStatus.FAILED,
        FilingStatus.NOT_PLACED,
    }
)


@dataclass(frozen=True, slots=True)
class Filing:
    """A proposal to file: who, for which account, the exact terms, and the policy's verdict.

    ``terms`` must be JSON-able with Decimals for amounts (floats are refused); they are stored
    as canonical JSON and hashed. ``id`` is also the order's ``ref_id`` at the broker.
    ``agent_key`` is the key the filer gave the order (its own ``ref_id``): filed at most once
    per identity (``AgentKeyUsedError``), never sent to the broker.
    """

    identity: str
    terms: Mapping[str, Any]
    account: str = ""
    kind: str = "equity_order"
    decision: Decision = Decision.ACCEPT
    reasons: tuple[str, ...] = ()
    id: UUID = field(default_factory=uuid4)
    agent_key: UUID | None = None


@dataclass(frozen=True, slots=True)
class RollingCaps:
    """Limits over any rolling 24 hours, per account: notional reserved + filled, and orders."""

    max_daily_usd: Decimal
    max_orders_per_day: int

    def __post_init__(self) -> None:
        if not self.max_daily_usd.is_finite() or self.max_daily_usd < 0:
            raise ValueError("max_daily_usd must be a finite, non-negative decimal")
        if self.max_orders_per_day < 0:
            raise ValueError("max_orders_per_day must not be negative")


@dataclass(frozen=True, slots=True)
class FilingRecord:
    """A filing as the ledger holds it. ``outcome`` is what filing decided (``accepted`` or
    ``refused``, hashed with the filing); ``status`` is the latest status event's, else it."""

    seq: int
    id: UUID
    identity: str
    account: str
    created_at: datetime
    kind: str
    outcome: FilingStatus
    status: FilingStatus
    decision: Decision
    reasons: tuple[str, ...]
    terms: dict[str, Any]
    notional: Decimal
    prev_hash: str
    hash: str

    @property
    def accepted(self) -> bool:
        return self.outcome is FilingStatus.ACCEPTED


@dataclass(frozen=True, slots=True)
class FilingResult:
    """The outcome of ``file_and_reserve``: accepted (notional and one op reserved) or refused
    with ``reason`` (the first reason code; all of them are in ``record.reasons``)."""

    accepted: bool
    reason: str | None
    record: FilingRecord


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A later fact about a filing: a status change, a release, a correction."""

    seq: int
    filing_id: UUID
    created_at: datetime
    kind: str
    status: str
    detail: dict[str, Any]
    hash: str


@dataclass(frozen=True, slots=True)
class Spend:
    """Reserved + filled notional (released amounts excluded) and orders in a rolling window."""

    notional: Decimal
    orders: int


@dataclass(frozen=True, slots=True)
class ChainHead:
    """A checkpoint, to export and give back to ``verify``; ``(0, GENESIS)`` when empty.

    For the events chain, its last link. For the filings (``Ledger.head``), the last ``seq``
    and the digest of every account's last hash (``_canonical.heads_digest``); one taken
    before account chains is the hash of filing ``seq``, which ``verify`` still accepts."""

    seq: int
    hash: str

    def __str__(self) -> str:
        return f"{self.seq}:{self.hash}"

    @classmethod
    def parse(cls, text: str) -> ChainHead:
        """``SEQ:HASH`` as printed by ``ordergate audit head``; ``ValueError`` otherwise."""
        seq, sep, digest = text.strip().partition(":")
        if not sep or not seq.isdigit() or len(digest) != 64:
            raise ValueError("a checkpoint is SEQ:HASH (64 hex digits)")
        int(digest, 16)
        return cls(int(seq), digest.lower())


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """``ok``, or the first bad record: its chain (``filings``/``events``), seq and why."""

    ok: bool
    checked: int = 0
    chain: str | None = None
    first_bad_seq: int | None = None
    filing_id: str | None = None
    reason: str | None = None
