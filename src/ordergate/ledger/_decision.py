"""What a decision reads of the record, besides its open filings, in one statement.

Each decision (stage A, stage B) reads an account's rolling 24 h spend and order count, its
high-water mark and session-start equity (its own, else the ledger-wide ones kept from before
marks were kept per account), the pause flag (the rail's, and the filer's connection's:
``_connection_pause``), when a breaker last refused an
order on the account (its own trip, or the ledger-wide one kept from before trips were kept
per account, whichever is later), and whether the account's equity
curve has a mark from the last minute (so none is due). Each is a scalar subquery of one
``SELECT`` by its own index (``ix_reservations_window``, the ``controls`` primary key,
``ix_equity_marks_account``), so the decision's record costs one statement, not five, and
reads one snapshot.

Asked for a filer's ``identity`` and the proposal's filed ``terms`` (stage A), the same
statement counts the accepted filings (reservations) of the account in the rolling minute,
those of them the identity filed, and those the identity filed with exactly these terms
inside the duplicate window: each a range of ``ix_reservations_window`` (account, time) joined
to its filing by id, so the cost is bounded by the orders of the window, never the history.
A refused filing reserved nothing and is not counted: a refusal sent nothing, and counting
it would let a looping agent keep itself refused for ever.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, BindParameter, Connection, bindparam, func, select
from sqlalchemy.sql.selectable import ScalarSelect

from ordergate.core import to_us
from ordergate.ledger._canonical import canonical_json, from_units
from ordergate.ledger._connection_pause import connection_pause_key, digest_in
from ordergate.ledger._controls import (
    BREAKER_TRIP_KEY,
    HWM_KEY,
    PAUSE_KEY,
    SESSION_KEY,
    PauseState,
    SessionEquity,
    hwm_key,
    later_trip,
    pause_of,
    session_key,
    session_of,
    trip_key,
)
from ordergate.ledger._equity import MARK_EVERY, MARK_NEAR
from ordergate.ledger._filing import window_bounds, window_sums
from ordergate.ledger._models import Spend
from ordergate.ledger._schema import controls, filings, reservations
from ordergate.store import Statement, iso

__all__ = ["RATE_WINDOW", "DecisionReads", "RecentFilings", "decision_reads"]

RATE_WINDOW = timedelta(minutes=1)
"""The rolling window the order rate is counted over."""


@dataclass(frozen=True, slots=True)
class RecentFilings:
    """Accepted filings counted back from the decision's instant: the account's and the
    identity's in ``RATE_WINDOW``, the identity's with the same terms in the duplicate
    window."""

    identity_minute: int
    account_minute: int
    duplicates: int


@dataclass(frozen=True, slots=True)
class DecisionReads:
    spend: Spend
    high_water_mark: Decimal | None
    session_start: SessionEquity | None
    pause: PauseState
    marked_recently: bool  # the account's equity curve has a mark within ``MARK_EVERY``
    recent: RecentFilings | None = None  # when asked for an identity and terms
    breaker_tripped_at: datetime | None = None  # a breaker last found tripped (None: never)


def _control(key: str | BindParameter[str]) -> ScalarSelect[Any]:
    return select(controls.c.value).where(controls.c.key == key).scalar_subquery()


def _own_control(key: str, ledger_wide: str) -> Any:
    """The account's control (bound as ``key``), else the ledger-wide one kept from before."""
    return func.coalesce(_control(bindparam(key)), _control(ledger_wide))


_IN_WINDOW = (
    reservations.c.account == bindparam("account"),
    reservations.c.created_us > bindparam("low", type_=BigInteger),
    reservations.c.created_us <= bindparam("high", type_=BigInteger),
)


def _recent(low: str, *also: Any) -> ScalarSelect[Any]:
    """The account's reservations after ``low`` (the rolling window's upper bound is the
    spend's), joined to their filings when ``also`` filters on them."""
    source = reservations.join(filings, filings.c.id == reservations.c.filing_id)
    return (
        select(func.count())
        .select_from(source if also else reservations)
        .where(
            reservations.c.account == bindparam("account"),
            reservations.c.created_us > bindparam(low, type_=BigInteger),
            reservations.c.created_us <= bindparam("high", type_=BigInteger),
            *also,
        )
        .scalar_subquery()
    )


_IDENTITY = filings.c.identity == bindparam("identity")
_READS = Statement(
    select(
        *window_sums(*_IN_WINDOW),
        _own_control("hwm_key", HWM_KEY),
        _own_control("session_key", SESSION_KEY),
        _control(PAUSE_KEY),
        _control(bindparam("connection_pause")),
        _control(BREAKER_TRIP_KEY),
        _control(bindparam("trip_key")),
        MARK_NEAR.scalar_subquery(),
        _recent("minute"),
        _recent("minute", _IDENTITY),
        _recent("same_low", _IDENTITY, filings.c.terms == bindparam("terms")),
    )
)


def decision_reads(
    connection: Connection,
    account: str,
    now: datetime,
    *,
    identity: str | None = None,
    terms: Mapping[str, Any] | None = None,
    duplicate_window: timedelta = timedelta(0),
    filer: str | None = None,
) -> DecisionReads:
    """The record a decision on ``account`` at ``now`` reads (see the module's notes); with
    ``identity`` and ``terms`` (the proposal's, as they would be filed) its recent filings
    too (a zero ``duplicate_window`` counts no duplicates). The pause is the rail-wide one
    or, when that is off, the pause of the connection ``filer`` (else ``identity``) names
    (``_connection_pause``). ``TypeError`` for terms without a canonical form."""
    now_us = to_us(now)
    low, high = window_bounds(now_us)
    asked = identity is not None and terms is not None
    # Not asked: empty ranges (the subqueries read nothing).
    minute = now_us - _micros(RATE_WINDOW) if asked else high
    same_low = now_us - _micros(duplicate_window) if asked and duplicate_window else high
    params = {
        "account": account,
        "low": low,
        "high": high,
        "after": iso(now - MARK_EVERY),
        "before": iso(now + MARK_EVERY),
        "minute": minute,
        "same_low": same_low,
        "identity": identity or "",
        "terms": canonical_json(terms) if terms is not None else "",
        "trip_key": trip_key(account),
        "connection_pause": _connection_pause_key(filer or identity),
        "hwm_key": hwm_key(account),
        "session_key": session_key(account),
    }
    row = _READS.first(connection, params)
    units, ops, mark, session, pause, own_pause, trip, own_trip, near, in_minute, mine, same = row
    if pause is None or not json.loads(pause)["paused"]:
        pause = own_pause
    return DecisionReads(
        spend=Spend(notional=from_units(int(units)), orders=int(ops)),
        high_water_mark=None if mark is None else Decimal(json.loads(mark)),
        session_start=session_of(None if session is None else json.loads(session)),
        pause=pause_of(None if pause is None else json.loads(pause)),
        marked_recently=near is not None,
        recent=RecentFilings(int(mine), int(in_minute), int(same)) if asked else None,
        breaker_tripped_at=later_trip(_json(trip), _json(own_trip)),
    )


def _connection_pause_key(identity: str | None) -> str:
    """The control a decision for ``identity`` reads as its connection's pause (``""``, a key
    no control has, for an identity that names no connection)."""
    digest = None if identity is None else digest_in(identity)
    return "" if digest is None else connection_pause_key(digest)


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _micros(span: timedelta) -> int:
    """``span`` in whole microseconds."""
    return span // timedelta(microseconds=1)
