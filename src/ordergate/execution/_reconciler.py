"""The reconciler: follows every filed order to its end and makes the record say what filled.

For each unfinished filing of the account (oldest first):

- an order the broker knows (``orders`` holds its id) is polled; its state moves the filing
  (``partially_filled``, ``filled``, ``cancelled``, ``rejected``, ``failed``), every
  execution the broker reports is booked once (basis source ``fill``, never an estimate),
  and when it ends the reservation is corrected to what actually filled (or released when
  nothing did), so the rolling spend converges to the fills;
- an order in doubt (filed or approved with no order id, or ``unanswered``: the process may
  have died between filing and placing, or between placing and recording the answer) is
  looked up at the broker by its ``ref_id``: found, it is adopted and followed; not found
  once ``grace`` has passed since its last event, it is declared ``not_placed`` and its
  reservation released. Nothing is ever re-sent: a not-placed order is for the caller to
  propose again;
- a pending approval past its time to live becomes ``expired`` and releases its reservation;
- an order the broker holds for the person's approval is looked up too, and declared not
  placed only after ``broker_approval_grace``.

A broker that does not answer leaves the filing as it is, to be tried on the next pass.
``grace`` must exceed the time a place call may take (its timeout), or a slow place could be
declared not placed while it is still in flight.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from ordergate.core import Clock, OrderState
from ordergate.execution._protocols import BrokerOrder, BrokerRefusal, NoAnswer, OrderExecutor
from ordergate.execution._terms import ticket_of
from ordergate.ledger import (
    ApprovalState,
    Execution,
    FilingRecord,
    FilingStatus,
    Ledger,
    ReservationError,
    UnknownFilingError,
)
from ordergate.policy import ProposalError
from ordergate.store import blocking

__all__ = ["DEFAULT_GRACE", "ReconcileReport", "Reconciler", "status_of"]

logger = logging.getLogger(__name__)

DEFAULT_GRACE = timedelta(minutes=2)
DEFAULT_BROKER_APPROVAL_GRACE = timedelta(hours=24)
# How far before its filing time an adopted order may have been created (clock skew).
_LOOKUP_SLACK = timedelta(minutes=5)

_IN_DOUBT = frozenset({FilingStatus.ACCEPTED, FilingStatus.APPROVED, FilingStatus.UNANSWERED})

_STATUS = {
    OrderState.PARTIALLY_FILLED: FilingStatus.PARTIALLY_FILLED,
    OrderState.FILLED: FilingStatus.FILLED,
    OrderState.CANCELLED: FilingStatus.CANCELLED,
    OrderState.PARTIALLY_FILLED_REST_CANCELLED: FilingStatus.CANCELLED,
    OrderState.REJECTED: FilingStatus.REJECTED,
    OrderState.FAILED: FilingStatus.FAILED,
    OrderState.VOIDED: FilingStatus.FAILED,
}


def status_of(order: BrokerOrder) -> FilingStatus:
    """The filing status a broker order's state means (working states are ``submitted``;
    a partly filled order that then ended with nothing more is ``cancelled``)."""
    state = order.state
    if isinstance(state, OrderState):
        return _STATUS.get(state, FilingStatus.SUBMITTED)
    return FilingStatus.SUBMITTED


@dataclass(slots=True)
class ReconcileReport:
    """What one pass did. ``unreachable``: filings the broker gave no answer about."""

    checked: int = 0
    moved: int = 0
    fills_booked: int = 0
    adopted: int = 0
    not_placed: int = 0
    expired: int = 0
    unreachable: int = 0
    errors: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {
            "checked": self.checked,
            "moved": self.moved,
            "fills_booked": self.fills_booked,
            "adopted": self.adopted,
            "not_placed": self.not_placed,
            "expired": self.expired,
            "unreachable": self.unreachable,
            "errors": list(self.errors),
        }


class Reconciler:
    def __init__(
        self,
        ledger: Ledger,
        executor: OrderExecutor,
        *,
        account: str,
        clock: Clock,
        grace: timedelta = DEFAULT_GRACE,
        broker_approval_grace: timedelta = DEFAULT_BROKER_APPROVAL_GRACE,
    ) -> None:
        self._ledger = ledger
        self._executor = executor
        self._account = account
        self._clock = clock
        self._grace = grace
        self._broker_approval_grace = broker_approval_grace

    async def run_once(self) -> ReconcileReport:
        """One pass over every unfinished filing of the account: overdue approvals
        (ix_approvals_state) and the account's open filings (``Ledger.open_filings``), so a
        pass costs what is open, not the ledger's history."""
        report = ReconcileReport()
        report.expired = await blocking(self.expire_approvals)
        for record in await blocking(self._ledger.open_filings, self._account):
            report.checked += 1
            try:
                await self._follow(record, report)
            except NoAnswer:
                report.unreachable += 1
            except (BrokerRefusal, ProposalError) as error:
                # The broker no longer knows the order, or the record cannot name one:
                # leave it for a person; never guess.
                report.errors.append(f"{record.id}: {type(error).__name__}")
                logger.warning("reconcile could not follow filing %s: %s", record.id, error)
        return report

    def expire_approvals(self) -> int:
        """Expire pending approvals past their time to live; release their reservations."""
        expired = 0
        # Overdue by the approvals' own (security) clock, never the market's.
        for approval in self._ledger.approvals.overdue():
            decided = self._ledger.approvals.decide(
                approval.id, approve=False, terms_sha256="", by="reconciler"
            )
            if decided.state is ApprovalState.EXPIRED:
                self._end(approval.filing_id, FilingStatus.EXPIRED, {"approval": str(approval.id)})
                expired += 1
        return expired

    async def _follow(self, record: FilingRecord, report: ReconcileReport) -> None:
        status = record.status
        if status is FilingStatus.PENDING_APPROVAL:
            return
        known = await blocking(self._order_id, record)
        if known is not None:
            order = await self._executor.poll(self._account, known)
            await self.settle(record, order, report)
            return
        if status not in _IN_DOUBT and status is not FilingStatus.AWAITING_BROKER_APPROVAL:
            return
        ticket = ticket_of(record)
        found = await self._executor.lookup(ticket, since=record.created_at - _LOOKUP_SLACK)
        if found is not None:
            report.adopted += 1
            await blocking(
                self._ledger.record_status,
                record.id,
                FilingStatus.SUBMITTED,
                detail={"order_id": found.order_id, "adopted": True},
            )
            await self.settle(record, found, report)
            return
        last = await blocking(self._last_event_at, record)
        wait = (
            self._broker_approval_grace
            if status is FilingStatus.AWAITING_BROKER_APPROVAL
            else self._grace
        )
        if self._clock.now() - last >= wait:
            await blocking(self._end, record.id, FilingStatus.NOT_PLACED, {"looked_up": True})
            report.not_placed += 1
            report.moved += 1

    async def settle(
        self, record: FilingRecord, order: BrokerOrder, report: ReconcileReport | None = None
    ) -> FilingStatus:
        """Record what the broker reports of ``record``'s order: its state, its fills, and at
        its end the reservation corrected to what filled. Returns the filing's status."""
        return await blocking(self.settle_now, record, order, report)

    def settle_now(
        self, record: FilingRecord, order: BrokerOrder, report: ReconcileReport | None = None
    ) -> FilingStatus:
        """``settle`` in this thread, in one ledger transaction (or the caller's, when one is
        open: ``Ledger.transaction``): the order, its fills, the status and the corrected
        reservation are recorded together."""
        with self._ledger.transaction(record.account, events=True):
            return self._settle(record, order, report or ReconcileReport())

    def _settle(
        self, record: FilingRecord, order: BrokerOrder, report: ReconcileReport
    ) -> FilingStatus:
        ledger = self._ledger
        previous = self._previous_order(record)
        ledger.orders.record(
            record.id,
            state=str(order.state),
            broker_order_id=order.order_id,
            cumulative_quantity=order.cumulative_quantity,
            average_price=order.average_price,
        )
        for fill in order.fills:
            booked = ledger.orders.book_execution(
                Execution(
                    id=fill.id,
                    ref_id=record.id,
                    broker_order_id=order.order_id,
                    quantity=fill.quantity,
                    price=fill.price,
                    executed_at=fill.executed_at,
                )
            )
            report.fills_booked += int(booked)
        status = status_of(order)
        current = ledger.filing(record.id).status
        moved_quantity = previous is None or previous != order.cumulative_quantity
        if status is not current or (status is FilingStatus.PARTIALLY_FILLED and moved_quantity):
            ledger.record_status(
                record.id,
                status,
                detail={
                    "order_id": order.order_id,
                    "state": str(order.state),
                    "cumulative_quantity": str(order.cumulative_quantity),
                    **({"reject_reason": order.reject_reason} if order.reject_reason else {}),
                },
            )
            report.moved += 1
        if order.terminal:
            self._converge(record)
        return status

    def _converge(self, record: FilingRecord) -> None:
        """Make the reservation hold what filled (or nothing, when nothing did)."""
        fills = self._ledger.orders.executions(record.id)
        filled = sum((fill.notional for fill in fills), Decimal(0))
        try:
            if not fills:
                self._ledger.release(record.id)
            else:
                # An order that reserved no spend (a reducing order) still counts as one.
                self._ledger.correct(record.id, filled if record.notional > 0 else Decimal(0))
        except ReservationError:
            pass

    def _end(self, filing_id: object, status: FilingStatus, detail: dict[str, object]) -> None:
        self._ledger.record_status(str(filing_id), status, detail=detail)
        with contextlib.suppress(ReservationError):
            self._ledger.release(str(filing_id))

    # The per-filing reads of a pass: the order by its ref_id (the orders primary key) and the
    # filing's own events (ix_filing_events_filing: filing_id, seq). None reads history.

    def _order_id(self, record: FilingRecord) -> str | None:
        try:
            return self._ledger.orders.get(record.id).broker_order_id
        except UnknownFilingError:
            return None

    def _previous_order(self, record: FilingRecord) -> Decimal | None:
        try:
            return self._ledger.orders.get(record.id).cumulative_quantity
        except UnknownFilingError:
            return None

    def _last_event_at(self, record: FilingRecord) -> datetime:
        events = self._ledger.events(record.id)
        return events[-1].created_at if events else record.created_at
