"""Verifying the record: any edited, deleted or reordered filing or event is found.

``verify`` walks both chains (``_walk``): every filing against its own hash and its place in
its account's chain, every event against the one before it. The first failure is reported
and the walk stops.

A chain alone cannot show that its *tail* was cut off, nor that someone rewrote a suffix and
re-hashed it. The ``chain_heads`` table, written with every filing, must name each account's
last filing (a careless cut is found without more), but whoever can edit the database can
edit it too: a checkpoint exported elsewhere is the proof. ``Ledger.head`` gives one for the
filings, ``(seq, digest of every account's last hash)``: the walk recomputes that digest over
the filings numbered up to ``seq``, so a cut or rewrite of any account's chain up to then is
found. (A checkpoint taken before migration 0003, the ``hash`` of filing ``seq`` itself, is
still accepted for what it pins.) ``Ledger.event_head`` gives the events chain's last link.

**Since a checkpoint** (``since``, ``events_since``; ``ordergate audit verify --since``): only
what follows is walked, so a check after each export costs what was filed since, not the
whole history. What "since" means for each chain:

- the filings: ``since`` is a filings checkpoint ``(S, D)``. Each account's last filing up to
  ``S`` is read (one row per account the heads table names), checked against its own hash,
  and the digest of their hashes must be ``D``: then every account's chain up to ``S`` is the
  one the checkpoint pinned (``_anchors``). Every filing numbered after ``S`` is walked from
  those links, and the heads table must name where each account's chain ends now. A filing
  numbered after ``S`` cannot join the ledger-wide chain of before migration 0003.
- the events: ``events_since`` is an events checkpoint ``(E, H)``. Event ``E`` must be on file,
  intact and hash to ``H``; events from ``E + 1`` are walked from it, with no gap.
- each is independent: a chain without its ``since`` is walked whole.

A ``since`` that does not match the ledger (past its end, anchors that do not digest to it:
a checkpoint of another ledger, or a record before it cut off or rewritten) fails as the
chain's first bad record at the checkpoint. A ``checkpoint`` given with ``since`` must not be
older than it (``CheckpointError``); one equal to it adds nothing.

Last, the derived ``open_filings`` table is checked against the chains (``_derived``): every
row of it, and the accepted filings in the walk's scope. It is not part of the record, so a
disagreement is reported on its own chain name, ``open_filings``. So are the reservations
(``_reserved``): each is replayed from its filing and its events, so a zeroed, edited or
deleted one is reported on ``reservations``. The controls' own chain is walked (after
``controls_since``) and every control row checked against it (``_control_chain``), reported
on ``controls``.

Everything is read from one snapshot (one transaction; repeatable read on Postgres), so
filings committed meanwhile cannot make the chains and the heads table disagree. ``progress``
is told how far each walk has come every 100,000 records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Select, select

from ordergate.ledger import _walk
from ordergate.ledger._anchors import event_anchor, filing_anchors
from ordergate.ledger._control_chain import against_controls
from ordergate.ledger._derived import against_open
from ordergate.ledger._errors import CheckpointError
from ordergate.ledger._models import ChainHead, VerifyResult
from ordergate.ledger._reserved import against_reservations
from ordergate.ledger._schema import chain_heads, filing_events, filings
from ordergate.ledger._walk import (
    Heads,
    Progress,
    against_heads,
    as_bytes,
    event_links,
    filing_links,
    rows,
)

if TYPE_CHECKING:
    from ordergate.ledger._ledger import Ledger

__all__ = ["verify"]


def verify(
    ledger: Ledger,
    *,
    checkpoint: ChainHead | None = None,
    event_checkpoint: ChainHead | None = None,
    since: ChainHead | None = None,
    events_since: ChainHead | None = None,
    controls_since: ChainHead | None = None,
    progress: Progress | None = None,
) -> VerifyResult:
    """Check both chains (after ``since`` / ``events_since`` when given) and the open set;
    ``VerifyResult.ok`` or the first bad record and why. Reads only. Raises
    ``CheckpointError`` for a checkpoint older than the ``since`` beside it, or a ``since``
    from before account chains."""
    since = None if since is None or since.seq == 0 else since
    events_since = None if events_since is None or events_since.seq == 0 else events_since
    checkpoint = _beyond(checkpoint, since, "--checkpoint", "--since")
    event_checkpoint = _beyond(event_checkpoint, events_since, "--events-checkpoint",
                               "--events-since")  # fmt: skip
    with ledger.engine.connect() as connection:
        if connection.dialect.name == "postgresql":
            connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            result = _verify(
                connection, checkpoint, event_checkpoint, since, events_since, progress
            )
            if not result.ok:
                return result
            controlled = against_controls(connection, controls_since)
            return result if controlled.ok else controlled


def _verify(
    connection: Connection,
    checkpoint: ChainHead | None,
    event_checkpoint: ChainHead | None,
    since: ChainHead | None,
    events_since: ChainHead | None,
    progress: Progress | None,
) -> VerifyResult:
    heads: Heads = {}
    if since is not None:
        anchored = filing_anchors(connection, since)
        if isinstance(anchored, VerifyResult):
            return anchored
        heads = anchored
    if events_since is not None:
        started = event_anchor(connection, events_since)
        if started is not None:
            return started
    after = 0 if since is None else since.seq
    with as_bytes(connection):
        filed, heads = filing_links(
            rows(connection, _after(_FILINGS, filings.c.seq, after), "filings"),
            checkpoint, heads=heads, after=after, progress=progress,
        )  # fmt: skip
        if filed.ok:
            filed = against_heads(filed, heads, rows(connection, _HEADS, "heads"))
        if not filed.ok:
            return filed
        first = 0 if events_since is None else events_since.seq
        events = event_links(
            rows(connection, _after(_EVENTS, filing_events.c.seq, first), "events"),
            event_checkpoint, start=events_since, progress=progress,
        )  # fmt: skip
    if not events.ok:
        return events
    opened, count = against_open(connection, since, events_since)
    if progress is not None and count >= _walk.PROGRESS_EVERY:
        progress(f"open filings: {count} checked")
    if not opened.ok:
        return opened
    held, _ = against_reservations(connection, since, events_since)
    if not held.ok:
        return held
    return VerifyResult(ok=True, checked=filed.checked + events.checked)


def _beyond(
    checkpoint: ChainHead | None, since: ChainHead | None, name: str, since_name: str
) -> ChainHead | None:
    """``checkpoint`` when it pins more than ``since`` does; ``None`` when it is ``since``."""
    if checkpoint is None or since is None or checkpoint.seq > since.seq:
        return checkpoint
    if checkpoint == since:
        return None
    if checkpoint.seq == since.seq:
        raise CheckpointError(f"{name} and {since_name} disagree at {since.seq}")
    raise CheckpointError(f"{name} {checkpoint.seq} is older than {since_name} {since.seq}")


def _after(query: Select[Any], seq: Any, after: int) -> Select[Any]:
    return query if after == 0 else query.where(seq > after)


_FILINGS = select(
    filings.c.seq, filings.c.account_seq, filings.c.id, filings.c.identity, filings.c.account,
    filings.c.created_at, filings.c.kind, filings.c.status, filings.c.decision,
    filings.c.reasons, filings.c.terms, filings.c.notional, filings.c.prev_hash, filings.c.hash,
).order_by(filings.c.seq)  # fmt: skip
_HEADS = select(chain_heads.c.account, chain_heads.c.seq, chain_heads.c.hash)
_EVENTS = select(
    filing_events.c.seq, filing_events.c.filing_id, filing_events.c.created_at,
    filing_events.c.kind, filing_events.c.status, filing_events.c.detail,
    filing_events.c.prev_hash, filing_events.c.hash,
).order_by(filing_events.c.seq)  # fmt: skip
