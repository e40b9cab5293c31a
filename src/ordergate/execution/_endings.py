"""Ending a filing that will not reach the market, and denying an approval.

Both need only the ledger, so a person can deny a pending order (``ordergate deny``) even
when the upstream is unreachable.
"""

from __future__ import annotations

import contextlib
from typing import Any
from uuid import UUID

from ordergate.execution._outcome import (
    APPROVAL_DECIDED,
    APPROVAL_DENIED,
    APPROVAL_EXPIRED,
    Outcome,
)
from ordergate.ledger import (
    Approval,
    ApprovalState,
    FilingRecord,
    FilingStatus,
    Ledger,
    ReservationError,
)
from ordergate.policy import Stage

__all__ = ["deny_approval", "end_filing"]


def end_filing(
    ledger: Ledger,
    record: FilingRecord,
    status: FilingStatus,
    reasons: tuple[str, ...],
    approval: Approval | None = None,
    *,
    stage: Stage | None = None,
    broker_code: str | None = None,
    figures: tuple[str, ...] = (),
) -> Outcome:
    """Record why ``record`` ends here and release what it held. ``figures``: the numbers
    behind the refusal, for its message (``refusal_figures``)."""
    detail: dict[str, Any] = {"reasons": list(reasons)}
    if stage is not None:
        detail["stage"] = stage.value
    if broker_code is not None:
        detail["broker_code"] = broker_code
    # The ending and the release in one transaction: a filing never ends still holding.
    with ledger.transaction(record.account, events=True):
        ledger.record_status(record.id, status, detail=detail)
        # Already released, or a refused filing that held nothing: nothing to give back.
        with contextlib.suppress(ReservationError):
            ledger.release(record.id)
    return Outcome(
        record.id,
        status,
        reasons,
        stage,
        None if approval is None else approval.id,
        broker_code=broker_code,
        figures=figures,
    )


def deny_approval(ledger: Ledger, approval_id: UUID | str, *, by: str) -> Outcome:
    """Deny a pending approval: the filing ends (``denied``, or ``expired`` when its time ran
    out first) and its reservation is released. A decided approval is left as it is.
    Raises ``LedgerError`` for an unknown approval."""
    approval = ledger.approvals.get(approval_id)
    record = ledger.filing(approval.filing_id)
    decided = ledger.approvals.claim(approval.id, approve=False, terms_sha256="", by=by)
    if decided is None:
        return Outcome(record.id, record.status, (APPROVAL_DECIDED,), approval_id=approval.id)
    if decided.state is ApprovalState.EXPIRED:
        return end_filing(ledger, record, FilingStatus.EXPIRED, (APPROVAL_EXPIRED,), approval)
    return end_filing(ledger, record, FilingStatus.DENIED, (APPROVAL_DENIED,), approval)
