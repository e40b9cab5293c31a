"""Walking the hash chains: any edited, deleted or reordered filing or event is found.

For each record in ``seq`` order the walk checks that ``seq`` follows the previous one with no
gap (a deletion), that ``prev_hash`` is the previous record's ``hash`` (a deletion or a
reorder), and that ``hash`` is ``SHA-256(prev_hash ‖ canonical bytes of the stored fields)``
(an edit of any field, or a swap of two rows' ``seq``, which the bytes include). The first
failure is reported and the walk stops.

A chain alone cannot show that its *tail* was cut off, nor that someone rewrote a suffix and
re-hashed it: a checkpoint (``ChainHead`` from ``Ledger.head``, exported elsewhere) pins that
the record at its ``seq`` still exists with that hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Select, select

from ordergate.ledger._canonical import EVENT_TAG, FILING_TAG, GENESIS, SEPARATOR
from ordergate.ledger._models import ChainHead, VerifyResult
from ordergate.ledger._schema import filing_events, filings

if TYPE_CHECKING:
    from ordergate.ledger._ledger import Ledger

__all__ = ["verify"]

_BATCH = 10_000


def verify(
    ledger: Ledger,
    *,
    checkpoint: ChainHead | None = None,
    event_checkpoint: ChainHead | None = None,
) -> VerifyResult:
    """Check both chains; ``VerifyResult.ok`` or the first bad record and why. Reads only."""
    with ledger.engine.connect() as connection:
        result = _walk(connection, "filings", _FILINGS, FILING_TAG, checkpoint)
        if not result.ok:
            return result
        events = _walk(connection, "events", _EVENTS, EVENT_TAG, event_checkpoint)
    if not events.ok:
        return events
    return VerifyResult(ok=True, checked=result.checked + events.checked)


_FILINGS = select(
    filings.c.seq, filings.c.id, filings.c.identity, filings.c.account, filings.c.created_at,
    filings.c.kind, filings.c.status, filings.c.decision, filings.c.reasons, filings.c.terms,
    filings.c.notional, filings.c.prev_hash, filings.c.hash,
).order_by(filings.c.seq)  # fmt: skip
_EVENTS = select(
    filing_events.c.seq, filing_events.c.filing_id, filing_events.c.created_at,
    filing_events.c.kind, filing_events.c.status, filing_events.c.detail,
    filing_events.c.prev_hash, filing_events.c.hash,
).order_by(filing_events.c.seq)  # fmt: skip
_SEPARATORS = {FILING_TAG: 11, EVENT_TAG: 6}


@contextmanager
def _as_bytes(connection: Connection) -> Iterator[None]:
    """On SQLite, fetch text as UTF-8 bytes for the walk: decoding every field to ``str`` only
    to encode it again was a third of the verification time."""
    driver = connection.connection.driver_connection
    if connection.dialect.name != "sqlite" or driver is None:
        yield
        return
    previous = driver.text_factory
    driver.text_factory = bytes
    try:
        yield
    finally:
        driver.text_factory = previous


def _walk(
    connection: Connection,
    chain: str,
    query: Select[Any],
    tag: str,
    checkpoint: ChainHead | None,
) -> VerifyResult:
    with _as_bytes(connection):
        return _links(chain, _rows(connection, query), tag, checkpoint)


def _rows(connection: Connection, query: Select[Any]) -> Iterator[Any]:
    # The walk reads plain DBAPI tuples (the statement still compiled by SQLAlchemy): result
    # rows cost more per record than the hash. On Postgres a named (server-side) cursor keeps
    # a long chain out of memory.
    sql = str(query.compile(dialect=connection.dialect))
    dbapi = connection.connection.dbapi_connection
    assert dbapi is not None
    if connection.dialect.name == "postgresql":
        cursor = dbapi.cursor(name="ordergate_verify")
    else:
        cursor = dbapi.cursor()
    try:
        cursor.execute(sql)
        while batch := cursor.fetchmany(_BATCH):
            yield from batch
    finally:
        cursor.close()


def _links(chain: str, rows: Iterator[Any], tag: str, checkpoint: ChainHead | None) -> VerifyResult:
    # The body is built inline (the join of ``_canonical.filing_body``): this loop is the
    # verification rate.
    mark = SEPARATOR.encode()
    join = mark.join
    prefix = tag.encode()
    sha256 = hashlib.sha256
    separators = _SEPARATORS[tag]
    expected = 1
    link = GENESIS.encode()
    pinned: bytes | None = None
    for row in rows:
        seq = row[0]
        if type(row[-1]) is not bytes:
            row = tuple(f.encode() if type(f) is str else f for f in row)
        if seq != expected:
            return _bad(
                chain, expected, None, f"{chain} {expected} is missing (next on file: {seq})"
            )
        if row[-2] != link:
            return _bad(chain, seq, row[1], f"{chain} {seq} does not link to {seq - 1}")
        body = join((prefix, b"%d" % seq, *row[1:-2]))
        link = sha256(link + body).hexdigest().encode()
        if link != row[-1] or body.count(mark) != separators:
            return _bad(chain, seq, row[1], f"{chain} {seq} does not match its hash (edited)")
        if checkpoint is not None and seq == checkpoint.seq:
            pinned = link
        expected += 1
    last = expected - 1
    if checkpoint is not None and checkpoint.seq > 0:
        if checkpoint.seq > last:
            return _bad(
                chain,
                last + 1,
                None,
                f"{chain} end at {last} but the checkpoint has {checkpoint.seq} (truncated)",
            )
        if pinned != checkpoint.hash.encode():
            return _bad(
                chain,
                checkpoint.seq,
                None,
                f"{chain} {checkpoint.seq} differs from the checkpoint (rewritten)",
            )
    return VerifyResult(ok=True, checked=last)


def _bad(chain: str, seq: int, record_id: bytes | None, reason: str) -> VerifyResult:
    return VerifyResult(
        ok=False,
        chain=chain,
        first_bad_seq=seq,
        filing_id=None if record_id is None else record_id.decode(errors="replace"),
        reason=reason,
    )
