"""``filing_chain``: why a filing exists and what became of it, from the ledger alone.

decision (the agent's journal entry: strategy, state, rationale, snapshot digest) → filing
(identity, terms, stage-A outcome) → checks (the policy at stage A, ``estimate``, and stage
B, ``review``) → approval → placement (the broker's order) → fills → grade. A link that does
not exist yet (a filing refused at stage A has no placement) is ``None`` or empty.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ordergate.agent._kinds import ORDER
from ordergate.core import to_wire
from ordergate.ledger import Ledger, UnknownFilingError
from ordergate.record import grades_of

__all__ = ["filing_chain"]

_GRADES_LOOKED_AT = 1000
OPTION_FIGURES = ("strategy", "max_loss", "premium_usd", "premium", "fees", "collateral")
"""What an option order's checks were decided on, as its journal entries hold them."""


def filing_chain(ledger: Ledger, filing_id: UUID | str) -> dict[str, Any]:
    """The chain of ``filing_id`` as JSON values. Raises ``UnknownFilingError``."""
    record = ledger.filing(filing_id)
    entries = ledger.journal.for_filing(record.id)
    decision = next((e for e in entries if e.kind == ORDER), None)
    checks = [
        {
            "stage": e.detail.get("stage"),
            "why": e.why,
            "reasons": e.detail.get("reasons", []),
            **{name: e.detail[name] for name in OPTION_FIGURES if name in e.detail},
        }
        for e in entries
        if e.kind.startswith("policy_")
    ]
    approval = ledger.approvals.for_filing(record.id)
    try:
        order = ledger.orders.get(record.id)
    except UnknownFilingError:
        order = None
    fills = ledger.orders.executions(record.id) if order is not None else []
    grade = next(
        (
            g
            for g in grades_of(ledger.engine, record.identity, limit=_GRADES_LOOKED_AT)
            if g["filing_id"] == str(record.id)
        ),
        None,
    )
    return {
        "decision": None
        if decision is None
        else {
            "at": decision.created_at.isoformat(),
            "identity": decision.identity,
            "strategy": decision.detail.get("strategy"),
            "state": decision.detail.get("state"),
            "session": decision.detail.get("session"),
            "rationale": decision.why,
            "snapshot_digest": decision.detail.get("snapshot_digest"),
        },
        "filing": {
            "id": str(record.id),
            "identity": record.identity,
            "filed_at": record.created_at.isoformat(),
            "outcome": record.outcome.value,
            "status": record.status.value,
            "reasons": list(record.reasons),
            "kind": record.kind,
            "terms": record.terms,
        },
        "checks": checks,
        "approval": None
        if approval is None
        else {
            "state": approval.state.value,
            "decided_by": approval.decided_by,
            "decided_at": None if approval.decided_at is None else approval.decided_at.isoformat(),
        },
        "placement": None
        if order is None
        else {
            "broker_order_id": order.broker_order_id,
            "state": order.state,
            "cumulative_quantity": to_wire(order.cumulative_quantity),
            "average_price": None if order.average_price is None else to_wire(order.average_price),
        },
        "fills": [
            {
                "id": fill.id,
                "quantity": to_wire(fill.quantity),
                "price": to_wire(fill.price),
                "executed_at": fill.executed_at.isoformat(),
            }
            for fill in fills
        ],
        "grade": grade,
    }
