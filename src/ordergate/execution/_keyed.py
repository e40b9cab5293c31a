"""The agent's own key for an order: a retry under it answers the first filing, never files.

An agent that follows the venue's instructions sends a fresh UUID as ``ref_id`` with every
order and the same one when it retries. The guard files that key beside the filing
(``Filing.agent_key``, in the filing's own transaction); the ledger's primary key on
(identity, key) files it once, whatever the process or replica, so ten retries at once are
one filing and one order at the venue. A later order under the key from the same identity is
never filed or placed again: the same order answers where the first filing stands now
(``standing``), a different one is refused ``ref_id_reused``. The venue's ``ref_id`` stays the
filing's own id: the agent's key is never sent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from ordergate.execution._outcome import Outcome
from ordergate.execution._terms import terms_sha256
from ordergate.ledger import FilingRecord, FilingStatus, Ledger, UnknownFilingError
from ordergate.policy import Stage

__all__ = ["REF_ID_REUSED", "keyed_outcome", "standing"]

REF_ID_REUSED = "ref_id_reused"
"""An order under an agent key the identity already filed a different order under."""


def keyed_outcome(ledger: Ledger, record: FilingRecord, terms: Mapping[str, Any]) -> Outcome:
    """The answer to an order with ``terms`` under the key ``record`` was filed under: where
    ``record`` stands when the terms are its own, else refused ``ref_id_reused`` (nothing is
    filed; the outcome names the filing that holds the key)."""
    if terms_sha256(record.terms) != terms_sha256(terms):
        return Outcome(record.id, FilingStatus.REFUSED, (REF_ID_REUSED,))
    return standing(ledger, record)


def standing(ledger: Ledger, record: FilingRecord) -> Outcome:
    """Where ``record`` stands now, as the guard answered it when it got there: its status,
    the reasons, stage and broker code its latest status recorded (its filing's refusal
    when it has none), its approval and the broker's order id."""
    statuses = [event for event in ledger.events(record.id) if event.kind == "status"]
    stage: Stage | None = None
    broker_code: str | None = None
    if statuses:
        detail = statuses[-1].detail
        reasons = tuple(str(reason) for reason in detail.get("reasons", ()))
        if isinstance(detail.get("stage"), str):
            stage = Stage(detail["stage"])
        if isinstance(detail.get("broker_code"), str):
            broker_code = detail["broker_code"]
    else:
        reasons = record.reasons
        if record.status is FilingStatus.REFUSED:
            stage = Stage.ESTIMATE
    approval = ledger.approvals.for_filing(record.id)
    order_id = None
    with contextlib.suppress(UnknownFilingError):
        order_id = ledger.orders.get(record.id).broker_order_id
    return Outcome(
        record.id,
        record.status,
        reasons,
        stage,
        None if approval is None else approval.id,
        order_id,
        broker_code,
    )
