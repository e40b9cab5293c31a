"""What a decision reads of the record, besides its open filings, in one statement.

Each decision (stage A, stage B) reads an account's rolling 24 h spend and order count, the
high-water mark, the session-start equity, the pause flag, and whether the account's equity
curve has a mark from the last minute (so none is due). Each is a scalar subquery of one
``SELECT`` by its own index (``ix_reservations_window``, the ``controls`` primary key,
``ix_equity_marks_account``), so the decision's record costs one statement, not five, and
reads one snapshot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, Connection, bindparam, select
from sqlalchemy.sql.selectable import ScalarSelect

from ordergate.ledger._canonical import from_units
from ordergate.ledger._controls import (
    HWM_KEY,
    PAUSE_KEY,
    SESSION_KEY,
    PauseState,
    SessionEquity,
    pause_of,
    session_of,
)
from ordergate.ledger._equity import MARK_EVERY, MARK_NEAR
from ordergate.ledger._filing import window_bounds, window_sums
from ordergate.ledger._models import Spend
from ordergate.ledger._schema import controls, reservations
from ordergate.store import Statement, iso, to_us

__all__ = ["DecisionReads", "decision_reads"]


@dataclass(frozen=True, slots=True)
class DecisionReads:
    spend: Spend
    high_water_mark: Decimal | None
    session_start: SessionEquity | None
    pause: PauseState
    marked_recently: bool  # the account's equity curve has a mark within ``MARK_EVERY``


def _control(key: str) -> ScalarSelect[Any]:
    return select(controls.c.value).where(controls.c.key == key).scalar_subquery()


_IN_WINDOW = (
    reservations.c.account == bindparam("account"),
    reservations.c.created_us > bindparam("low", type_=BigInteger),
    reservations.c.created_us <= bindparam("high", type_=BigInteger),
)
_READS = Statement(
    select(
        *window_sums(*_IN_WINDOW),
        _control(HWM_KEY),
        _control(SESSION_KEY),
        _control(PAUSE_KEY),
        MARK_NEAR.scalar_subquery(),
    )
)


def decision_reads(connection: Connection, account: str, now: datetime) -> DecisionReads:
    """The record a decision on ``account`` at ``now`` reads (see the module's notes)."""
    low, high = window_bounds(to_us(now))
    params = {
        "account": account,
        "low": low,
        "high": high,
        "after": iso(now - MARK_EVERY),
        "before": iso(now + MARK_EVERY),
    }
    units, ops, mark, session, pause, near = _READS.first(connection, params)
    return DecisionReads(
        spend=Spend(notional=from_units(int(units)), orders=int(ops)),
        high_water_mark=None if mark is None else Decimal(json.loads(mark)),
        session_start=session_of(None if session is None else json.loads(session)),
        pause=pause_of(None if pause is None else json.loads(pause)),
        marked_recently=near is not None,
    )
