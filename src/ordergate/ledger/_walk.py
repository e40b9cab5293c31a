"""The chain walks ``verify`` runs: each record against its own hash and its place in its chain.

Filings are walked in ``seq`` order, each checked against the chain of its account: its
``account_seq`` follows the account's previous filing with no gap (a deletion) and no repeat,
its ``prev_hash`` is that filing's ``hash`` (a deletion or a reorder), and its ``hash`` is
``SHA-256(prev_hash ‖ canonical bytes of the stored fields)`` (an edit of any field, or a swap
of two rows' ``seq`` or ``account_seq``, which the bytes include). Filings from before account
chains (``account_seq`` NULL, ``ordergate.filing/1``) come first and are checked as the one
ledger-wide chain they are: ``seq`` from 1 with no gap, each linked to the one before; each
account's chain then goes on from its last such filing. Events are one chain: ``seq`` from 1
with no gap, each linked to the one before. The first failure is reported and the walk stops.

A walk may start after a checkpoint (``_anchors``): the filings walk from each account's last
link at the checkpoint, the events walk from the checkpoint's event.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Select

from ordergate.ledger._canonical import (
    ACCOUNT_FILING_TAG,
    EVENT_TAG,
    FILING_TAG,
    GENESIS,
    SEPARATOR,
    heads_digest,
)
from ordergate.ledger._models import ChainHead, VerifyResult

__all__ = [
    "PROGRESS_EVERY",
    "Heads",
    "Progress",
    "against_heads",
    "as_bytes",
    "bad",
    "event_links",
    "filing_links",
    "rows",
]

_BATCH = 10_000
PROGRESS_EVERY = 100_000

Progress = Callable[[str], None]
"""Told how far a walk has come (a line of text), every ``PROGRESS_EVERY`` records."""

# An account's last filing as far as the walk has come: [account_seq, hash, seq].
Heads = dict[bytes, list[Any]]


@contextmanager
def as_bytes(connection: Connection) -> Iterator[None]:
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


def rows(connection: Connection, query: Select[Any], name: str) -> Iterator[Any]:
    # The walk reads plain DBAPI tuples (the statement still compiled by SQLAlchemy): result
    # rows cost more per record than the hash. On Postgres a named (server-side) cursor keeps
    # a long chain out of memory.
    sql = str(query.compile(dialect=connection.dialect, compile_kwargs={"literal_binds": True}))
    dbapi = connection.connection.dbapi_connection
    assert dbapi is not None
    if connection.dialect.name == "postgresql":
        cursor = dbapi.cursor(name=f"ordergate_verify_{name}")
    else:
        cursor = dbapi.cursor()
    try:
        cursor.execute(sql)
        while batch := cursor.fetchmany(_BATCH):
            yield from batch
    finally:
        cursor.close()


def filing_links(
    rows: Iterator[Any],
    checkpoint: ChainHead | None,
    *,
    heads: Heads | None = None,
    after: int = 0,
    progress: Progress | None = None,
) -> tuple[VerifyResult, Heads]:
    """Walk the filings ``rows`` (in ``seq`` order); with ``heads``, every account's last
    link at filing ``after``, the walk goes on from there (the ledger-wide chain is over by
    then). Returns the result and every account's last link."""
    # The bodies are built inline (the joins of ``_canonical``'s ``linked_filing_body`` and
    # ``filing_body``): this loop is the verification rate.
    mark = SEPARATOR.encode()
    join = mark.join
    linked = ACCOUNT_FILING_TAG.encode()
    wide = FILING_TAG.encode()
    sha256 = hashlib.sha256
    genesis = GENESIS.encode()
    heads = {} if heads is None else heads
    get = heads.get
    pin = checkpoint.seq if checkpoint is not None and checkpoint.seq > 0 else None
    at_pin: Heads | None = None
    pinned: bytes | None = None  # filing ``pin``'s hash if ledger-wide, b"" if linked
    # The next seq of the ledger-wide chain while it lasts, then 0 (a walk that starts after
    # a checkpoint starts after it: checkpoints of account chains follow the ledger-wide one).
    wide_next = 1 if after == 0 else 0
    wide_link = genesis
    seq, count = after, 0
    report_at = PROGRESS_EVERY if progress is not None else -1
    for row in rows:
        seq = row[0]
        place = row[1]
        if type(row[-1]) is not bytes:
            row = tuple(f.encode() if type(f) is str else f for f in row)
        if pin is not None and at_pin is None and seq > pin:
            at_pin = {account: list(last) for account, last in heads.items()}
        # First the row against its own hash (an edit of any field), then its place.
        if place is not None:
            body = join((linked, b"%d" % seq, b"%d" % place, *row[2:-2]))
            separators = 12
        else:
            body = join((wide, b"%d" % seq, *row[2:-2]))
            separators = 11
        digest = sha256(row[-2] + body).hexdigest().encode()
        last = get(row[4])
        if digest != row[-1] or body.count(mark) != separators:
            link = wide_link if place is None else genesis if last is None else last[1]
            if sha256(link + body).hexdigest().encode() == row[-1]:  # only prev_hash changed
                reason = f"filings {seq} does not link to {_after(last)}"
            else:
                reason = f"filings {seq} does not match its hash (edited)"
            return bad("filings", seq, row[2], reason), heads
        if place is not None:
            wide_next = 0
            expected, link = (1, genesis) if last is None else (last[0] + 1, last[1])
            if place != expected:
                return _bad_place(seq, row[2], place, last), heads
        else:
            if seq != wide_next:
                return _bad_wide(seq, row[2], wide_next), heads
            link = wide_link
            place = 1 if last is None else last[0] + 1
            wide_next += 1
            wide_link = digest
        if row[-2] != link:
            reason = f"filings {seq} does not link to {_after(last)}"
            return bad("filings", seq, row[2], reason), heads
        heads[row[4]] = [place, digest, seq]
        if seq == pin:
            pinned = b"" if row[1] is not None else digest
        count += 1
        if count == report_at:
            assert progress is not None
            progress(f"filings: {count} checked")
            report_at += PROGRESS_EVERY
    checked = VerifyResult(ok=True, checked=count)
    if checkpoint is not None and pin is not None:
        return _against_checkpoint(
            checked, checkpoint, heads if at_pin is None else at_pin, pinned, seq
        ), heads
    return checked, heads


def _after(last: list[Any] | None) -> str:
    return (
        "the start of its account's chain"
        if last is None
        else f"filings {last[2]}, its account's last"
    )


def _bad_place(seq: int, record_id: bytes, place: int, last: list[Any] | None) -> VerifyResult:
    if place > (0 if last is None else last[0]):
        reason = (
            f"filings {seq} is its account's filing {place} but follows {_after(last)}: "
            "a filing is missing (deleted)"
        )
    else:
        reason = f"filings {seq} repeats its account's filing {place} (reordered)"
    return bad("filings", seq, record_id, reason)


def _bad_wide(seq: int, record_id: bytes, wide_next: int) -> VerifyResult:
    if wide_next == 0:
        reason = (
            f"filings {seq} claims the ledger-wide chain after account chains began (reordered)"
        )
        return bad("filings", seq, record_id, reason)
    return bad("filings", wide_next, None, f"filings {wide_next} is missing (next on file: {seq})")


def _against_checkpoint(
    checked: VerifyResult, checkpoint: ChainHead, heads: Heads, pinned: bytes | None, last: int
) -> VerifyResult:
    pin = checkpoint.seq
    if pin > last:
        reason = f"filings end at {last} but the checkpoint has {pin} (truncated)"
        return bad("filings", last + 1, None, reason)
    if pinned is None:
        reason = f"filings {pin}, which the checkpoint pins, is missing (truncated or deleted)"
        return bad("filings", pin, None, reason)
    if pinned == checkpoint.hash.encode():  # a checkpoint of the ledger-wide chain
        return checked
    digest = heads_digest((account.decode(), last[1].decode()) for account, last in heads.items())
    if digest != checkpoint.hash:
        reason = (
            f"the filings up to {pin} differ from the checkpoint "
            "(an account's chain was cut off or rewritten)"
        )
        return bad("filings", pin, None, reason)
    return checked


def against_heads(checked: VerifyResult, heads: Heads, rows: Iterator[Any]) -> VerifyResult:
    """Every account's chain must end where ``chain_heads`` says it does."""
    named: set[bytes] = set()
    for account, seq, digest in rows:
        key = account if type(account) is bytes else account.encode()
        last = heads.get(key)
        expected = digest if type(digest) is bytes else digest.encode()
        if last is None or last[2] != seq or last[1] != expected:
            ends = "no filing" if last is None else f"filings {last[2]}"
            reason = (
                f"filings {seq} is an account's last by the heads table but its chain ends at "
                f"{ends} (truncated)"
            )
            return bad("filings", seq, None, reason)
        named.add(key)
    unnamed = sorted(last[2] for account, last in heads.items() if account not in named)
    if unnamed:
        reason = f"filings {unnamed[0]} ends a chain the heads table does not name (edited)"
        return bad("filings", unnamed[0], None, reason)
    return checked


def event_links(
    rows: Iterator[Any],
    checkpoint: ChainHead | None,
    *,
    start: ChainHead | None = None,
    progress: Progress | None = None,
) -> VerifyResult:
    """Walk the events chain ``rows``: seq from 1 (or after ``start``, linked to its hash),
    each linked to the one before."""
    chain = "events"
    mark = SEPARATOR.encode()
    join = mark.join
    prefix = EVENT_TAG.encode()
    sha256 = hashlib.sha256
    separators = 6
    first = 0 if start is None else start.seq
    expected = first + 1
    link = (GENESIS if start is None else start.hash).encode()
    pinned: bytes | None = None
    report_at = first + PROGRESS_EVERY if progress is not None else -1
    for row in rows:
        seq = row[0]
        if type(row[-1]) is not bytes:
            row = tuple(f.encode() if type(f) is str else f for f in row)
        if seq != expected:
            return bad(
                chain, expected, None, f"{chain} {expected} is missing (next on file: {seq})"
            )
        if row[-2] != link:
            return bad(chain, seq, row[1], f"{chain} {seq} does not link to {seq - 1}")
        body = join((prefix, b"%d" % seq, *row[1:-2]))
        link = sha256(link + body).hexdigest().encode()
        if link != row[-1] or body.count(mark) != separators:
            return bad(chain, seq, row[1], f"{chain} {seq} does not match its hash (edited)")
        if checkpoint is not None and seq == checkpoint.seq:
            pinned = link
        if seq == report_at:
            assert progress is not None
            progress(f"events: {seq - first} checked")
            report_at += PROGRESS_EVERY
        expected += 1
    last = expected - 1
    if checkpoint is not None and checkpoint.seq > 0:
        if checkpoint.seq > last:
            return bad(
                chain,
                last + 1,
                None,
                f"{chain} end at {last} but the checkpoint has {checkpoint.seq} (truncated)",
            )
        if pinned != checkpoint.hash.encode():
            return bad(
                chain,
                checkpoint.seq,
                None,
                f"{chain} {checkpoint.seq} differs from the checkpoint (rewritten)",
            )
    return VerifyResult(ok=True, checked=last - first)


def bad(chain: str, seq: int, record_id: bytes | str | None, reason: str) -> VerifyResult:
    """The result naming the first bad record of ``chain``."""
    if isinstance(record_id, bytes):
        record_id = record_id.decode(errors="replace")
    return VerifyResult(
        ok=False, chain=chain, first_bad_seq=seq, filing_id=record_id, reason=reason
    )
