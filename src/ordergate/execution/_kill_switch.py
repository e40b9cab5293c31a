"""The kill switch's second half: cancelling every working order of an account.

``ordergate pause --cancel-open`` (and the console's pause with it) and a breaker that trips
under ``halt_cancels_open`` end every open filing of the guard's account: a pending approval
is denied, an order at the broker is asked to cancel and read back (``Guard.cancel``). Each
cancel's outcome is journalled (kind ``cancel``, ``detail.outcome``) and returned as a
``CancelReport``; one failure (the broker refuses, does not answer) never stops the others.

An outcome is the filing's status once the cancel was asked (``cancelled``, ``denied``,
``filled`` when the order filled first, …), or ``broker_refused`` / ``no_answer`` when the
broker's cancel failed, or ``not_at_broker`` for an open filing with no broker order to
cancel (in flight, or ``unanswered``: the reconciler follows it by ``ref_id``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ordergate.ledger import FilingRecord, FilingStatus
from ordergate.store import blocking
from ordergate.venues import BrokerRefusal, NoAnswer

if TYPE_CHECKING:
    from ordergate.execution._guard import Guard

__all__ = ["BROKER_REFUSED_CANCEL", "NOT_AT_BROKER", "NO_ANSWER", "CancelReport", "cancel_open"]

BROKER_REFUSED_CANCEL = "broker_refused"
NO_ANSWER = "no_answer"
NOT_AT_BROKER = "not_at_broker"


@dataclass(frozen=True, slots=True)
class CancelReport:
    """One working order the kill switch cancelled, and how that went."""

    filing_id: UUID
    account: str
    symbol: str
    outcome: str
    status: FilingStatus
    order_id: str | None = None
    broker_code: str | None = None

    @property
    def ended(self) -> bool:
        """Whether the order is over (nothing of it can still fill)."""
        return self.status.terminal

    def as_json(self) -> dict[str, Any]:
        return {
            "filing_id": str(self.filing_id),
            "account": self.account,
            "symbol": self.symbol,
            "outcome": self.outcome,
            "status": self.status.value,
            "ended": self.ended,
            "order_id": self.order_id,
            "broker_code": self.broker_code,
        }


async def cancel_open(guard: Guard, *, identity: str, why: str) -> list[CancelReport]:
    """Cancel every open filing of ``guard``'s account, oldest first; journal and return each
    outcome. ``why`` says what pulled the switch (kept in each journal entry)."""
    ledger = guard.ledger
    records = await blocking(ledger.open_filings, guard.account)
    reports = [await _cancel_one(guard, record, identity) for record in records]
    for report in reports:
        detail = report.as_json()
        detail["by"] = why
        await blocking(
            ledger.journal.append,
            identity=identity,
            kind="cancel",
            why=f"kill switch cancel: {report.outcome}",
            filing_id=report.filing_id,
            detail=detail,
        )
    return reports


async def _cancel_one(guard: Guard, record: FilingRecord, identity: str) -> CancelReport:
    symbol = str(record.terms.get("symbol", ""))
    try:
        outcome = await guard.cancel(record.id, identity=identity)
    except BrokerRefusal as refusal:
        status = (await blocking(guard.ledger.filing, record.id)).status
        return CancelReport(
            record.id, record.account, symbol, BROKER_REFUSED_CANCEL, status, None, refusal.code
        )
    except NoAnswer:
        status = (await blocking(guard.ledger.filing, record.id)).status
        return CancelReport(record.id, record.account, symbol, NO_ANSWER, status)
    status = outcome.status
    if outcome.order_id is None and not status.terminal:
        return CancelReport(record.id, record.account, symbol, NOT_AT_BROKER, status)
    return CancelReport(record.id, record.account, symbol, status.value, status, outcome.order_id)
