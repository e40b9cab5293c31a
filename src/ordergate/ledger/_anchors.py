"""Where a walk after a checkpoint starts: each account's last link at a filings checkpoint,
and the event of an events checkpoint, both proven against the checkpoint.

A filings checkpoint ``(S, D)`` (``Ledger.head``) is the digest ``D`` of every account's last
hash among the filings numbered up to ``S``. Its anchors are read, for each account the heads
table names, as the account's last filing numbered up to ``S`` (``ix_filings_account``:
account, seq, read backwards), one row each: each must match its own hash, and their hashes
must digest to ``D``. An account missing from the heads table (its whole chain deleted) is
missing from the digest, and an anchor rewritten or cut off changes it, so the anchors are
what the checkpoint pinned; the walk then checks every filing after ``S`` against them. The
place of an anchor from before account chains (``account_seq`` NULL) is not in its row: it is
taken as the one before its account's next filing (that filing's link to it is still
checked).

An events checkpoint ``(E, H)`` is the hash of event ``E``: the row must be there, match its
own hash and hash to ``H``; the walk goes on from event ``E + 1``, linked to ``H``.
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, select

from ordergate.ledger._canonical import (
    chain_hash,
    event_body,
    filing_body,
    heads_digest,
    linked_filing_body,
)
from ordergate.ledger._errors import CheckpointError
from ordergate.ledger._models import ChainHead, VerifyResult
from ordergate.ledger._schema import chain_heads, filing_events, filings
from ordergate.ledger._walk import Heads, bad

__all__ = ["event_anchor", "filing_anchors"]

_FIELDS = (
    filings.c.seq, filings.c.account_seq, filings.c.id, filings.c.identity, filings.c.account,
    filings.c.created_at, filings.c.kind, filings.c.status, filings.c.decision,
    filings.c.reasons, filings.c.terms, filings.c.notional, filings.c.prev_hash, filings.c.hash,
)  # fmt: skip
_ANCHOR = (
    select(*_FIELDS)
    .where(filings.c.account == bindparam("account"), filings.c.seq <= bindparam("seq"))
    .order_by(filings.c.seq.desc())
    .limit(1)
)
_NEXT_PLACE = (
    select(filings.c.account_seq)
    .where(filings.c.account == bindparam("account"), filings.c.seq > bindparam("seq"))
    .order_by(filings.c.seq)
    .limit(1)
)
_EVENT = select(
    filing_events.c.seq, filing_events.c.filing_id, filing_events.c.created_at,
    filing_events.c.kind, filing_events.c.status, filing_events.c.detail,
    filing_events.c.prev_hash, filing_events.c.hash,
).where(filing_events.c.seq == bindparam("seq"))  # fmt: skip
_SEPARATOR = "\x1f"


def filing_anchors(connection: Connection, since: ChainHead) -> Heads | VerifyResult:
    """Every account's last link at ``since`` (keyed as the walk keys them), or the result
    saying why the ledger does not match it. Raises ``CheckpointError`` for a checkpoint of
    the ledger-wide chain from before migration 0003 (the hash of filing ``since.seq``)."""
    accounts = connection.execute(select(chain_heads.c.account, chain_heads.c.seq)).all()
    end = max((row.seq for row in accounts), default=0)
    if since.seq > end:
        reason = (
            f"the filings end at {end} but the --since checkpoint is at {since.seq} "
            "(truncated, or a checkpoint of another ledger)"
        )
        return bad("filings", end + 1, None, reason)
    heads: Heads = {}
    pairs = []
    for account in sorted(row.account for row in accounts):
        row = connection.execute(_ANCHOR, {"account": account, "seq": since.seq}).first()
        if row is None:
            continue  # the account's first filing came after the checkpoint
        fields = (row.id, row.identity, row.account, row.created_at, row.kind, row.status,
                  row.decision, row.reasons, row.terms, row.notional)  # fmt: skip
        if row.account_seq is None:
            body = filing_body(row.seq, *fields)
            place = connection.execute(_NEXT_PLACE, {"account": account, "seq": row.seq}).scalar()
            place = 0 if place is None else int(place) - 1
        else:
            body = linked_filing_body(row.seq, row.account_seq, *fields)
            place = int(row.account_seq)
        if chain_hash(row.prev_hash, body) != row.hash or _SEPARATOR in "".join(fields):
            return bad("filings", row.seq, row.id, f"filings {row.seq} does not match its hash "
                       "(edited)")  # fmt: skip
        heads[account.encode()] = [place, row.hash.encode(), row.seq]
        pairs.append((account, row.hash))
    if heads_digest(pairs) != since.hash:
        pinned = connection.execute(
            select(filings.c.account_seq, filings.c.hash).where(filings.c.seq == since.seq)
        ).first()
        if pinned is not None and pinned.account_seq is None and pinned.hash == since.hash:
            raise CheckpointError(
                f"the checkpoint is filing {since.seq}'s own hash, from before account chains: "
                "it cannot start a walk (verify the whole ledger with --checkpoint instead)"
            )
        reason = (
            f"the filings up to {since.seq} differ from the --since checkpoint (an account's "
            "chain was cut off or rewritten up to it, or it is a checkpoint of another ledger)"
        )
        return bad("filings", since.seq, None, reason)
    return heads


def event_anchor(connection: Connection, since: ChainHead) -> VerifyResult | None:
    """``None`` when event ``since.seq`` is on file, intact, and hashes to ``since.hash``;
    else the result saying why not."""
    row = connection.execute(_EVENT, {"seq": since.seq}).first()
    if row is None:
        reason = (
            f"events {since.seq}, where --events-since starts, is missing (truncated or "
            "deleted, or a checkpoint of another ledger)"
        )
        return bad("events", since.seq, None, reason)
    fields = (row.filing_id, row.created_at, row.kind, row.status, row.detail)
    body = event_body(row.seq, *fields)
    if chain_hash(row.prev_hash, body) != row.hash or _SEPARATOR in "".join(fields):
        return bad("events", row.seq, row.filing_id, f"events {row.seq} does not match its hash "
                   "(edited)")  # fmt: skip
    if row.hash != since.hash:
        reason = (
            f"events {since.seq} differs from the --events-since checkpoint (rewritten, or a "
            "checkpoint of another ledger)"
        )
        return bad("events", since.seq, row.filing_id, reason)
    return None
