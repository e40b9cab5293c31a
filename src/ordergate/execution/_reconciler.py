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
  placed only after ``broker_approval_grace``;
- a filing declared not placed is watched for a day (``Ledger.late``): a place call delayed
  past the client's timeout and the grace can still reach the broker. Each pass looks up to
  ``LATE_BATCH`` of them up by ``ref_id``, the least recently asked first; one found is a
  *late order*, adopted: its reservation held again at its working notional and then
  corrected to its fills (``Ledger.readopt``, never checked against the caps: the order is at
  the market whatever they say), its executions booked, ``late_order_adopted`` journalled,
  the owner alerted (``alert``), and trading paused when the account is now over a cap.

A crypto filing (``kind`` ``crypto_order``) is followed the same way on the crypto lane its
filing names (``lane``: the lane it was placed on), at the crypto account it names; a filing
naming a lane the venue does not have is left for a person (an error of the pass). An option
filing (``kind`` ``option_order``) is followed on the venue's option lane (``options``): its
fills booked at the premium of each strategy unit in dollars, so its reservation ends at the
premium that filled, or is released when it was cancelled or expired unfilled.

A broker that does not answer leaves the filing as it is, to be tried on the next pass.
``grace`` must exceed the time a place call may take (its timeout), or a slow place could be
declared not placed while it is still in flight.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from ordergate.core import Clock, OrderState, market_speed, to_wire
from ordergate.execution._crypto_terms import (
    CRYPTO_KIND,
    crypto_account_of,
    crypto_ticket_of,
    lane_of,
)
from ordergate.execution._exercise import EXERCISE_KIND
from ordergate.execution._options import OPTION_KIND, option_ticket_of
from ordergate.execution._terms import ticket_of
from ordergate.ledger import (
    ApprovalState,
    Execution,
    FilingRecord,
    FilingStatus,
    Ledger,
    ReservationError,
    RollingCaps,
    UnknownFilingError,
)
from ordergate.policy import ProposalError
from ordergate.store import blocking
from ordergate.venues import (
    BrokerOrder,
    BrokerRefusal,
    CryptoLane,
    NoAnswer,
    OptionLane,
    OrderExecutor,
)

__all__ = ["DEFAULT_GRACE", "LATE_BATCH", "Alert", "ReconcileReport", "Reconciler", "status_of"]

logger = logging.getLogger(__name__)

DEFAULT_GRACE = timedelta(minutes=2)
DEFAULT_BROKER_APPROVAL_GRACE = timedelta(hours=24)
# How far before its filing time an adopted order may have been created (clock skew).
_LOOKUP_SLACK = timedelta(minutes=5)
LATE_BATCH = 20
"""How many filings declared not placed a pass looks up at most (``Ledger.late``)."""
LATE_ORDER_ADOPTED = "late_order_adopted"

Alert = Callable[[dict[str, object]], Awaitable[None]]
"""Tells the owner something happened that needs their eye (e.g. the webhook); its failures
are logged, not raised."""

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
    late: int = 0
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
            "late": self.late,
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
        caps: RollingCaps | None = None,
        alert: Alert | None = None,
        crypto: Mapping[str, CryptoLane] | None = None,
        options: OptionLane | None = None,
    ) -> None:
        """``caps``: the rolling caps a late order is weighed against (``None``: none, so it
        never pauses); ``alert``: told of each late order adopted; ``crypto``: the venue's
        crypto lanes by name, which crypto filings are followed on; ``options``: its option
        lane, which option filings are followed on."""
        self._ledger = ledger
        self._options = options
        self._crypto = dict(crypto or {})
        self.caps = caps
        self._alert = alert
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
        await self._look_for_late(report)
        return report

    async def _look_for_late(self, report: ReconcileReport) -> None:
        """Look a batch of the filings declared not placed within the day up at the broker;
        adopt each one found there (a late order)."""
        watched = await blocking(
            self._ledger.late.due, self._account, now=self._ledger.now(), batch=LATE_BATCH
        )
        for filing_id in watched:
            try:
                record = await blocking(self._ledger.filing, filing_id)
                found = await self._lookup(record)
            except NoAnswer:
                report.unreachable += 1
                continue
            except (BrokerRefusal, ProposalError, UnknownFilingError) as error:
                report.errors.append(f"{filing_id}: {type(error).__name__}")
                continue
            if found is not None:
                await self._adopt_late(record, found, report)

    async def _adopt_late(
        self, record: FilingRecord, order: BrokerOrder, report: ReconcileReport
    ) -> None:
        report.late += 1
        report.adopted += 1
        paused = await blocking(self._readopt, record, order, report)
        logger.warning(
            "a late order reached the broker and was adopted: filing %s%s",
            record.id,
            " (over a cap: trading paused)" if paused else "",
        )
        if self._alert is not None:
            body: dict[str, object] = {
                "event": LATE_ORDER_ADOPTED,
                "filing_id": str(record.id),
                "identity": record.identity,
                "symbol": record.terms.get("symbol"),
                "side": record.terms.get("side"),
                "order_id": order.order_id,
                "state": str(order.state),
                "paused": paused,
            }
            try:
                await self._alert(body)
            except Exception as error:  # an alert must never stop reconciliation
                logger.warning("late order alert failed: %s", type(error).__name__)

    def _readopt(self, record: FilingRecord, order: BrokerOrder, report: ReconcileReport) -> bool:
        """Adopt a late order: in one transaction the reservation held again and the order,
        its fills and status recorded (the reservation then corrected to the fills); then,
        on the committed spend, the journal entry and the pause when the account is now over
        a cap. Whether it paused."""
        ledger = self._ledger
        with ledger.transaction(record.account, events=True):
            # At its working notional (what the filing held), then ``_settle`` corrects it
            # to the fills once the order has ended.
            ledger.readopt(record.id, record.notional)
            ledger.record_status(
                record.id,
                FilingStatus.SUBMITTED,
                detail={"order_id": order.order_id, "adopted": True, "late": True},
            )
            ledger.late.drop(record.id)
            self._settle(record, order, report)
        spend = ledger.rolling_spend(record.account)
        caps = self.caps
        over = caps is not None and (
            spend.notional > caps.max_daily_usd or spend.orders > caps.max_orders_per_day
        )
        ledger.journal.append(
            identity="reconciler",
            kind=LATE_ORDER_ADOPTED,
            why="an order declared not placed reached the broker late; adopted"
            + ("; over a cap, trading paused" if over else ""),
            filing_id=record.id,
            detail={
                "order_id": order.order_id,
                "spent_24h": to_wire(spend.notional),
                "orders_24h": spend.orders,
                "over_cap": over,
            },
        )
        if over:
            ledger.controls.pause(
                f"a late order (filing {record.id}) took the account over a cap", by="reconciler"
            )
        return over

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
        if status is FilingStatus.PENDING_APPROVAL or record.kind == EXERCISE_KIND:
            return  # an exercise sent unanswered is a person's to settle: never sent again
        known = await blocking(self._order_id, record)
        if known is not None:
            order = await self._poll(record, known)
            await self.settle(record, order, report)
            return
        if status not in _IN_DOUBT and status is not FilingStatus.AWAITING_BROKER_APPROVAL:
            return
        found = await self._lookup(record)
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
        if self._ledger.now() - last >= wait:
            await blocking(self._not_placed, record)
            report.not_placed += 1
            report.moved += 1

    def crypto_lane(self, record: FilingRecord) -> CryptoLane:
        """The crypto lane ``record`` was placed on; ``ProposalError`` (field ``lane``) when
        the venue has no lane of that name."""
        lane = self._crypto.get(lane_of(record))
        if lane is None:
            raise ProposalError("lane", "the venue has no crypto lane of the filing's name")
        return lane

    def option_lane(self) -> OptionLane:
        """The venue's option lane; ``BrokerRefusal`` when it has none (an option filing is
        then left for a person)."""
        if self._options is None:
            raise BrokerRefusal("options_not_on_venue", "this venue takes no option orders")
        return self._options

    async def _poll(self, record: FilingRecord, order_id: str) -> BrokerOrder:
        if record.kind == CRYPTO_KIND:
            return await self.crypto_lane(record).poll(crypto_account_of(record), order_id)
        if record.kind == OPTION_KIND:
            return await self.option_lane().poll(self._account, order_id)
        return await self._executor.poll(self._account, order_id)

    async def _lookup(self, record: FilingRecord) -> BrokerOrder | None:
        since = self._venue_since(record)
        if record.kind == CRYPTO_KIND:
            lane = self.crypto_lane(record)
            return await lane.lookup(crypto_ticket_of(record), since=since)
        if record.kind == OPTION_KIND:
            return await self.option_lane().lookup(option_ticket_of(record), since=since)
        return await self._executor.lookup(ticket_of(record), since=since)

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

    def _not_placed(self, record: FilingRecord) -> None:
        """Declare ``record`` not placed, release its reservation and watch for its order
        for a day (``Ledger.late``), in one transaction."""
        with self._ledger.transaction(record.account, events=True):
            self._end(record.id, FilingStatus.NOT_PLACED, {"looked_up": True})
            self._ledger.late.watch(record.id, record.account, at=self._ledger.now())

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

    def _venue_since(self, record: FilingRecord) -> datetime:
        """When to look for ``record``'s order from, in the venue's (the market's) time: the
        filing is stamped in the record's time, so its age there is carried onto the market
        clock at the market's speed; the earlier of that and the stamp itself, less a slack."""
        age = self._ledger.now() - record.created_at
        carried = self._clock.now() - age * float(market_speed(self._clock))
        return min(record.created_at, carried) - _LOOKUP_SLACK

    def _last_event_at(self, record: FilingRecord) -> datetime:
        events = self._ledger.events(record.id)
        return events[-1].created_at if events else record.created_at
