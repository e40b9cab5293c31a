"""The events as a feed: every filing event after a sequence number, oldest first, so a
follower (the grader) reads what happened since it last looked by the events' primary key
(``filing_events.seq``), never the history."""

from __future__ import annotations

from sqlalchemy import Engine, select

from ordergate.ledger._models import EventRecord
from ordergate.ledger._rows import event_record
from ordergate.ledger._schema import filing_events

__all__ = ["events_after"]


def events_after(engine: Engine, seq: int, *, limit: int) -> list[EventRecord]:
    """At most ``limit`` events with ``seq`` greater than ``seq``, in order."""
    if limit < 1:
        raise ValueError("limit must be positive")
    query = (
        select(filing_events)
        .where(filing_events.c.seq > seq)
        .order_by(filing_events.c.seq)
        .limit(limit)
    )
    with engine.connect() as connection:
        return [event_record(row) for row in connection.execute(query)]
