"""The grader: finds each filled placement on the ledger and grades it once, a trading day on.

A pass does bounded work in two steps:

1. **Queue the new fills.** It reads at most ``batch`` filing events after its cursor
   (``events_after``: the events' primary key). Each ``filled`` or ``cancelled`` status of an
   equity order with executions booked becomes a ``pending`` grade: the average fill price
   (the executions' notional over their quantity, to 10⁻⁸, half to even), the last
   execution's time, and the session day whose regular close grades it (``grading_day``).
   The cursor moves in the same transaction, guarded by its old value, so two graders on one
   ledger never queue the same events twice (the grade's key is the filing id besides). A
   cursor never skips an event: events are numbered under the events chain's lock, held to
   commit, so they become visible in ``seq`` order.
2. **Grade what is due.** At most ``batch`` pending grades whose next try has come
   (ix_grades_due: state, next_try_at), oldest first. Each needs three prices from
   ``Closes``: the symbol's close on the grading day, SPY's close that day and SPY's price
   when the order filled. With all three it is graded (``excess_bps``) and written once
   (``UPDATE … WHERE state = 'pending'``: a re-run changes nothing). When any is missing it
   stays pending, "not yet", and is tried again ``retry`` later; when the upstream does not
   answer, the same. No price is ever guessed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import anyio
from sqlalchemy import Connection, insert, select, update

from ordergate.calendar import CalendarError, NyseCalendar
from ordergate.core import Clock, Side, ToolError, to_wire
from ordergate.ledger import EventRecord, FilingStatus, Ledger, events_after, write_transaction
from ordergate.record._arithmetic import excess_bps
from ordergate.record._closes import Closes
from ordergate.record._days import grading_day
from ordergate.record._schema import CURSOR_KEY, grades, grading_cursor
from ordergate.store import blocking, iso, parse_iso

__all__ = ["BENCHMARK", "DEFAULT_BATCH", "GradePass", "Grader"]

logger = logging.getLogger(__name__)

BENCHMARK = "SPY"
DEFAULT_BATCH = 100
DEFAULT_RETRY = timedelta(hours=1)
PENDING = "pending"
GRADED = "graded"
_PRICE_PLACES = Decimal("0.00000001")
_ENDINGS = frozenset({FilingStatus.FILLED.value, FilingStatus.CANCELLED.value})
_PLACEMENT = "equity_order"
_SIDES = frozenset(side.value for side in Side)


@dataclass(slots=True)
class GradePass:
    """What one pass did: events read, fills queued, grades written, grades not yet due
    their prices, and grades the upstream gave no answer for."""

    events: int = 0
    queued: int = 0
    graded: int = 0
    not_yet: int = 0
    unreachable: int = 0
    errors: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "queued": self.queued,
            "graded": self.graded,
            "not_yet": self.not_yet,
            "unreachable": self.unreachable,
            "errors": list(self.errors),
        }


class _Benchmark:
    """SPY's prices for one pass, each asked once (a pass grades many fills of one day)."""

    def __init__(self, closes: Closes) -> None:
        self._closes = closes
        self._by_day: dict[date, Decimal | None] = {}
        self._by_instant: dict[datetime, Decimal | None] = {}

    async def close(self, day: date) -> Decimal | None:
        if day not in self._by_day:
            self._by_day[day] = await self._closes.close(BENCHMARK, day)
        return self._by_day[day]

    async def price_at(self, instant: datetime) -> Decimal | None:
        if instant not in self._by_instant:
            self._by_instant[instant] = await self._closes.price_at(BENCHMARK, instant)
        return self._by_instant[instant]


class _Busy(Exception):
    """Another grader moved the cursor first: this pass's queueing is rolled back."""


class Grader:
    """Grades the filled placements of ``ledger`` with the prices of ``closes``."""

    def __init__(
        self,
        ledger: Ledger,
        closes: Closes,
        *,
        clock: Clock,
        calendar: NyseCalendar | None = None,
        batch: int = DEFAULT_BATCH,
        retry: timedelta = DEFAULT_RETRY,
    ) -> None:
        if batch < 1:
            raise ValueError("batch must be positive")
        self._ledger = ledger
        self._closes = closes
        self._clock = clock
        self._calendar = calendar or NyseCalendar()
        self._batch = batch
        self._retry = retry

    async def run_once(self) -> GradePass:
        """One bounded pass: queue the fills filed since the last, grade what is due."""
        report = GradePass()
        await blocking(self._queue, report)
        now = self._clock.now()
        benchmark = _Benchmark(self._closes)
        for row in await blocking(self._due, now):
            try:
                await self._grade(row, now, benchmark, report)
            except ToolError as error:
                report.unreachable += 1
                logger.warning("grading %s: the upstream did not answer (%s)", row.filing_id,
                               error.code)  # fmt: skip
                await blocking(self._later, row.filing_id, now)
        return report

    async def run_forever(
        self, every: float, *, pause: Callable[[float], Awaitable[None]] = anyio.sleep
    ) -> None:
        """Pass after pass, ``every`` seconds apart, until cancelled; a failed pass is logged
        and the next one tried (fail closed: nothing is graded by a pass that failed)."""
        while True:
            try:
                report = await self.run_once()
            except Exception:
                logger.exception("a grading pass failed")
            else:
                if report.graded or report.queued:
                    logger.info("graded %d placements, %d waiting", report.graded,
                                report.queued)  # fmt: skip
            await pause(every)

    # -- step 1: queue new fills ---------------------------------------------------------

    def _queue(self, report: GradePass) -> None:
        engine = self._ledger.engine
        with engine.connect() as connection:
            start = int(
                connection.execute(
                    select(grading_cursor.c.seq).where(grading_cursor.c.key == CURSOR_KEY)
                ).scalar_one()
            )
        events = events_after(engine, start, limit=self._batch)
        if not events:
            return
        rows = [row for row in (self._pending_row(event) for event in events) if row]
        try:
            with write_transaction(engine) as connection:
                moved = connection.execute(
                    update(grading_cursor)
                    .where(grading_cursor.c.key == CURSOR_KEY, grading_cursor.c.seq == start)
                    .values(seq=events[-1].seq)
                )
                if moved.rowcount != 1:
                    raise _Busy
                report.queued += sum(_insert_new(connection, row) for row in rows)
        except _Busy:
            return
        report.events += len(events)

    def _pending_row(self, event: EventRecord) -> dict[str, Any] | None:
        if event.kind != "status" or event.status not in _ENDINGS:
            return None
        filing = self._ledger.filing(event.filing_id)
        symbol, side = filing.terms.get("symbol"), filing.terms.get("side")
        if filing.kind != _PLACEMENT or not isinstance(symbol, str) or side not in _SIDES:
            return None
        fills = self._ledger.orders.executions(filing.id)
        quantity = sum((fill.quantity for fill in fills), Decimal(0))
        if quantity <= 0:
            return None
        notional = sum((fill.notional for fill in fills), Decimal(0))
        price = (notional / quantity).quantize(_PRICE_PLACES, rounding=ROUND_HALF_EVEN)
        filled_at = max(fill.executed_at for fill in fills)
        try:
            day = grading_day(self._calendar, filled_at)
            due = self._calendar.regular_close(day)
        except CalendarError as error:
            logger.warning("filing %s filled outside the calendar: %s", filing.id, error)
            return None
        return {
            "filing_id": str(filing.id), "identity": filing.identity, "account": filing.account,
            "symbol": symbol, "side": str(side), "quantity": to_wire(quantity),
            "fill_price": to_wire(price), "filled_at": iso(filled_at),
            "grading_day": day.isoformat(), "due_at": iso(due), "next_try_at": iso(due),
            "state": PENDING,
        }  # fmt: skip

    # -- step 2: grade what is due ---------------------------------------------------------

    def _due(self, now: datetime) -> list[Any]:
        query = (
            select(grades)
            .where(grades.c.state == PENDING, grades.c.next_try_at <= iso(now))
            .order_by(grades.c.next_try_at, grades.c.filing_id)
            .limit(self._batch)
        )
        with self._ledger.engine.connect() as connection:
            return list(connection.execute(query))

    async def _grade(
        self,
        row: Any,
        now: datetime,
        benchmark: _Benchmark,
        report: GradePass,
    ) -> None:
        day = date.fromisoformat(row.grading_day)
        filled_at = parse_iso(row.filled_at)
        close = await self._closes.close(row.symbol, day)
        spy_close = await benchmark.close(day)
        spy_start = await benchmark.price_at(filled_at)
        if close is None or spy_close is None or spy_start is None:
            report.not_yet += 1
            await blocking(self._later, row.filing_id, now)
            return
        excess = excess_bps(
            Side(row.side),
            fill=Decimal(row.fill_price),
            close=close,
            spy_start=spy_start,
            spy_close=spy_close,
        )
        values = {
            "state": GRADED, "close": to_wire(close), "spy_start": to_wire(spy_start),
            "spy_close": to_wire(spy_close), "return_bps": to_wire(excess.return_bps),
            "spy_bps": to_wire(excess.spy_bps), "excess_bps": to_wire(excess.excess_bps),
            "graded_at": iso(now),
        }  # fmt: skip
        report.graded += await blocking(self._write, row.filing_id, values)

    def _write(self, filing_id: str, values: dict[str, Any]) -> int:
        with write_transaction(self._ledger.engine) as connection:
            written = connection.execute(
                update(grades)
                .where(grades.c.filing_id == filing_id, grades.c.state == PENDING)
                .values(**values)
            )
            return int(written.rowcount)

    def _later(self, filing_id: str, now: datetime) -> None:
        with write_transaction(self._ledger.engine) as connection:
            connection.execute(
                update(grades)
                .where(grades.c.filing_id == filing_id, grades.c.state == PENDING)
                .values(next_try_at=iso(now + self._retry))
            )


def _insert_new(connection: Connection, row: dict[str, Any]) -> int:
    """Queue ``row`` unless its filing already has a grade (the key is the filing id)."""
    known = connection.execute(
        select(grades.c.filing_id).where(grades.c.filing_id == row["filing_id"])
    ).first()
    if known is not None:
        return 0
    connection.execute(insert(grades).values(**row))
    return 1
