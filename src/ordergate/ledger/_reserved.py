"""``verify``'s check of the reservations against the chains they follow from.

A reservation is not part of the record (nothing in its row is hashed), yet the rolling caps
are summed from it, so zeroing or deleting one frees the daily cap. Every move of it is on
the chains: an accepted filing reserves its notional and one order at its filing time
(``filings``), and each later move is an event of the filing (``filing_events``: ``reprice``
to a notional, ``release`` to nothing, ``correct`` to what filled, ``readopt`` a late order
held again). So the row each accepted filing must have is replayed from its filing and its
events, and compared with the row on file: its account, filing time, state, the amount it
holds, the amount it reserved and its order count. A refused filing must have none.

Scope: every accepted filing; after a checkpoint, those filed after it, those with a
reservation event after the events checkpoint, and those the rolling window holds now (the
reservations of each account filed within a day of its latest filing): what the caps read is
always checked, whatever the checkpoints. Filings of the ledger-wide chain from before
migration 0003 are not (long out of every window). A row with no accepted filing only adds to the
spend (it tightens), and is not looked for. Each filing's events are read by
``ix_filing_events_filing``. Reported on its own chain name, ``reservations``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, select

from ordergate.core import to_us
from ordergate.ledger._canonical import to_units
from ordergate.ledger._filing import WINDOW_US
from ordergate.ledger._models import ChainHead, FilingStatus, VerifyResult
from ordergate.ledger._schema import chain_heads, filing_events, filings, reservations
from ordergate.ledger._walk import bad
from ordergate.store import parse_iso

__all__ = ["against_reservations"]

_CHAIN = "reservations"
_MOVES = ("reprice", "release", "correct", "readopt")
_BATCH = 500
_ROWS = select(
    filings.c.seq,
    filings.c.account_seq,
    filings.c.id,
    filings.c.account,
    filings.c.created_at,
    filings.c.status.label("outcome"),
    filings.c.notional,
    reservations.c.filing_id.label("held"),
    reservations.c.account.label("held_account"),
    reservations.c.created_us,
    reservations.c.state,
    reservations.c.amount_units,
    reservations.c.reserved_units,
    reservations.c.ops,
).select_from(filings.outerjoin(reservations, reservations.c.filing_id == filings.c.id))
_EVENTS = (
    select(filing_events.c.filing_id, filing_events.c.kind, filing_events.c.detail)
    .where(filing_events.c.kind.in_(_MOVES))
    .order_by(filing_events.c.seq)
)


def against_reservations(
    connection: Connection, since: ChainHead | None, events_since: ChainHead | None
) -> tuple[VerifyResult, int]:
    """The first reservation that disagrees with the chains (or ok), and how many were
    checked."""
    checked = 0
    for row in _scope(connection, since, events_since):
        checked += 1
        failure = _check(connection, row)
        if failure is not None:
            return failure, checked
    return VerifyResult(ok=True), checked


def _scope(
    connection: Connection, since: ChainHead | None, events_since: ChainHead | None
) -> Iterator[Any]:
    accepted = _ROWS.where(filings.c.status == FilingStatus.ACCEPTED.value)
    if since is None or events_since is None:
        yield from _batched(connection, accepted)
        return
    moved = select(filing_events.c.filing_id).where(
        filing_events.c.seq > events_since.seq, filing_events.c.kind.in_(_MOVES)
    )
    scopes = [accepted.where(filings.c.id.in_(moved))]
    # The rolling window each account's caps read now: its reservations filed within a day
    # of its latest filing (chain_heads, then ix_reservations_window).
    for head in connection.execute(select(chain_heads.c.account, chain_heads.c.seq)).all():
        latest = connection.execute(
            select(filings.c.created_at).where(filings.c.seq == head.seq)
        ).scalar()
        if latest is None:
            continue
        window = select(reservations.c.filing_id).where(
            reservations.c.account == head.account,
            reservations.c.created_us > to_us(parse_iso(latest)) - WINDOW_US,
        )
        scopes.append(accepted.where(filings.c.id.in_(window)))
    seen: set[str] = set()
    # Filed after the checkpoint (by the primary key, a batch at a time), then the moved and
    # the windows' (each bounded by what it names).
    for row in _batched(connection, accepted, after=since.seq):
        seen.add(row.id)
        yield row
    for scope in scopes:
        for row in connection.execute(scope).all():
            if row.id not in seen:
                seen.add(row.id)
                yield row


def _batched(connection: Connection, query: Any, *, after: int = 0) -> Iterable[Any]:
    while True:
        rows = connection.execute(
            query.where(filings.c.seq > after).order_by(filings.c.seq).limit(_BATCH)
        ).all()
        if not rows:
            return
        yield from rows
        after = int(rows[-1].seq)


def _check(connection: Connection, row: Any) -> VerifyResult | None:
    if row.account_seq is None:
        return None  # the ledger-wide chain of before migration 0003: long out of any window
    if row.held is None:
        reason = f"filings {row.seq} was accepted but its reservation is missing (deleted)"
        return bad(_CHAIN, row.seq, row.id, reason)
    units = to_units(Decimal(row.notional))
    state, amount, reserved, ops = "reserved", units, units, 1
    events = connection.execute(_EVENTS.where(filing_events.c.filing_id == row.id))
    for event in events:
        detail = json.loads(event.detail)
        if event.kind == "reprice":
            amount = reserved = to_units(Decimal(detail["notional"]))
        elif event.kind == "release":
            state, amount, ops = "released", 0, 0
        elif event.kind == "correct":
            state, amount, ops = "corrected", to_units(Decimal(detail["filled_notional"])), 1
        else:  # readopt
            state, amount, ops = "reserved", to_units(Decimal(detail["notional"])), 1
    expected = (row.account, to_us(parse_iso(row.created_at)), state, amount, reserved, ops)
    found = (row.held_account, int(row.created_us), row.state, int(row.amount_units),
             int(row.reserved_units), int(row.ops))  # fmt: skip
    if found != expected:
        reason = (
            f"the reservation of filings {row.seq} holds {found[3]} units ({found[2]}) but its "
            f"filing and events say {amount} ({state}) (edited)"
        )
        return bad(_CHAIN, row.seq, row.id, reason)
    return None
