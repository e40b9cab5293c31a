"""The equity curve's marks: the account's equity as it was read, kept across restarts.

A mark is written where equity is already read: by the guard for each order, in the
transaction that raises the high-water mark (``Controls.raise_high_water_mark`` with an
account), and by the gateway's periodic pass (``EquityMarks.record``). Either writes nothing
when a mark of the account lies within ``every`` of now (a minute on the order path), so a
burst of orders costs one insert a minute, not one an order. Nothing is written for an
equity that could not be read: the callers never pass a guess.

``EquityMarks.window`` reads the curve back: the last ``WINDOW`` (90 days) up to the
account's newest mark, one indexed range read (``ix_equity_marks_account``), thinned in SQL
to at most ``points`` marks, evenly by rank, the newest always kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from sqlalchemy import Connection, Engine, and_, bindparam, func, insert, or_, select

from ordergate.core import Clock, to_wire
from ordergate.ledger._schema import equity_marks
from ordergate.store import Statement, iso, parse_iso, write_transaction

__all__ = [
    "MARK_EVERY",
    "MARK_NEAR",
    "MAX_POINTS",
    "SOURCES",
    "WINDOW_DAYS",
    "EquityMark",
    "EquityMarks",
    "mark_equity",
    "marked_near",
]

MARK_EVERY = timedelta(minutes=1)
"""The order path writes at most one mark an account this often."""
WINDOW_DAYS = 90
MAX_POINTS = 500
SOURCES = ("paper", "broker")


@dataclass(frozen=True, slots=True)
class EquityMark:
    """The account's equity at ``at``, read from ``source`` (``paper`` or ``broker``)."""

    at: datetime
    equity: Decimal
    source: str


def mark_equity(
    connection: Connection,
    account: str,
    equity: Decimal,
    *,
    source: str,
    at: datetime,
    every: timedelta = MARK_EVERY,
) -> bool:
    """Within ``connection``'s write transaction: mark ``account``'s ``equity`` at ``at``
    unless it has a mark within ``every`` of ``at``; whether a mark was written."""
    if not account:
        raise ValueError("account: a mark is of one account")
    if source not in SOURCES:
        raise ValueError(f"source: {source!r} is not one of {', '.join(SOURCES)}")
    if not equity.is_finite():
        raise ValueError("equity: only a finite amount is marked")
    if marked_near(connection, account, at, every):
        return False
    _INSERT_MARK.run(
        connection, {"account": account, "at": iso(at), "equity": to_wire(equity), "source": source}
    )
    return True


def marked_near(
    connection: Connection, account: str, at: datetime, every: timedelta = MARK_EVERY
) -> bool:
    """Whether ``account`` has a mark within ``every`` of ``at`` (then none is due)."""
    near = _NEAR.first(
        connection, {"account": account, "after": iso(at - every), "before": iso(at + every)}
    )
    return near is not None


# A mark of ``account`` strictly between ``after`` and ``before`` (ix_equity_marks_account).
# Built once and run on the driver's cursor (a decision reads it inside its own statement).
MARK_NEAR = (
    select(equity_marks.c.seq)
    .where(
        equity_marks.c.account == bindparam("account"),
        equity_marks.c.at > bindparam("after"),
        equity_marks.c.at < bindparam("before"),
    )
    .limit(1)
)
_NEAR = Statement(MARK_NEAR)
_INSERT_MARK = Statement(insert(equity_marks))


class EquityMarks:
    """The marks of every account on the ledger."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def record(
        self,
        account: str,
        equity: Decimal,
        *,
        source: str,
        every: timedelta = MARK_EVERY,
        at: datetime | None = None,
    ) -> bool:
        """Mark ``account``'s ``equity`` at ``at`` (now) unless a mark lies within ``every``;
        whether a mark was written."""
        when = at if at is not None else self._clock.now()
        with write_transaction(self._engine) as connection:
            return mark_equity(connection, account, equity, source=source, at=when, every=every)

    def window(
        self, account: str, *, days: int = WINDOW_DAYS, points: int = MAX_POINTS
    ) -> list[EquityMark]:
        """The account's marks over the ``days`` up to its newest, oldest first, at most
        ``points`` of them (evenly spaced by rank, the first and the newest kept)."""
        if points < 2:
            raise ValueError("points: at least 2")
        marks = equity_marks.c
        with self._engine.connect() as connection:
            newest = connection.execute(
                select(func.max(marks.at)).where(marks.account == account)
            ).scalar()
            if newest is None:
                return []
            since = iso(parse_iso(newest) - timedelta(days=days))
            in_window = and_(marks.account == account, marks.at >= since)
            total = int(connection.execute(select(func.count()).where(in_window)).scalar_one())
            ranked = (
                select(
                    marks.at,
                    marks.equity,
                    marks.source,
                    func.row_number().over(order_by=(marks.at, marks.seq)).label("n"),
                )
                .where(in_window)
                .subquery()
            )
            # Every ``step``-th mark by rank (at most ``points - 1``), and the newest.
            step = -(-total // (points - 1))
            rows = connection.execute(
                select(ranked.c.at, ranked.c.equity, ranked.c.source)
                .where(or_((ranked.c.n - 1) % step == 0, ranked.c.n == total))
                .order_by(ranked.c.n)
            ).all()
        return [EquityMark(parse_iso(at), Decimal(equity), source) for at, equity, source in rows]
