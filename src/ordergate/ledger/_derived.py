"""``verify``'s check of the one derived table it relies on: ``open_filings`` against the chains.

``open_filings`` is not part of the record (nothing in it is hashed): it is what the chains
say is open, kept with them so that reads need not walk history. Whoever can edit the
database can edit it, and a stale row would hide an order from the reconciler or count one
too many against the open-order cap, so verification checks it agrees with the chains it was
derived from:

- every row names a filing on file, accepted, with the row's seq, account and identity, whose
  latest status event (or none) says the row's status, a status that is not terminal;
- no accepted filing whose latest status is not terminal lacks a row.

The first is bounded by what is open (each row's filing by its unique id, its latest status
by ``ix_filing_events_filing``), compared by the database, which returns only the first row
that disagrees. The second reads every accepted filing in scope: all of
them, or after a checkpoint those after it and those with status events after the events
checkpoint. Both read the same snapshot as the walks.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, exists, func, or_, select

from ordergate.ledger._models import ChainHead, FilingStatus, VerifyResult
from ordergate.ledger._queries import LATEST_STATUS, TERMINAL
from ordergate.ledger._schema import filing_events, filings, open_filings
from ordergate.ledger._walk import bad

__all__ = ["against_open"]

_CHAIN = "open_filings"
_ACCEPTED = FilingStatus.ACCEPTED.value
_CURRENT = func.coalesce(LATEST_STATUS, filings.c.status)
# The first row that disagrees with its filing: the database compares, only that row comes
# back (a verification reads every row, and an open set can be large).
_DISAGREES = (
    select(
        open_filings.c.filing_id, open_filings.c.seq, open_filings.c.account,
        open_filings.c.identity, open_filings.c.status, filings.c.seq.label("filed_seq"),
        filings.c.account.label("filed_account"), filings.c.identity.label("filed_identity"),
        filings.c.status.label("outcome"), _CURRENT.label("current"),
    )
    .select_from(open_filings.outerjoin(filings, filings.c.id == open_filings.c.filing_id))
    .where(
        or_(
            filings.c.seq.is_(None),
            filings.c.seq != open_filings.c.seq,
            filings.c.account != open_filings.c.account,
            filings.c.identity != open_filings.c.identity,
            filings.c.status != _ACCEPTED,
            open_filings.c.status.in_(TERMINAL),
            open_filings.c.status != _CURRENT,
        )
    )
    .order_by(open_filings.c.seq)
    .limit(1)
)  # fmt: skip
_COUNT = select(func.count()).select_from(open_filings)
_MISSING = (
    select(filings.c.seq, filings.c.id, _CURRENT.label("current"))
    .where(
        filings.c.status == _ACCEPTED,
        ~exists().where(open_filings.c.filing_id == filings.c.id),
        _CURRENT.not_in(TERMINAL),
    )
    .order_by(filings.c.seq)
    .limit(1)
)


def against_open(
    connection: Connection, since: ChainHead | None, events_since: ChainHead | None
) -> tuple[VerifyResult, int]:
    """The first disagreement between ``open_filings`` and the chains (or ok), and how many
    rows it holds."""
    count = int(connection.execute(_COUNT).scalar_one())
    row = connection.execute(_DISAGREES).first()
    if row is not None:
        return _disagreement(row), count
    scopes = [_MISSING]
    if since is not None and events_since is not None:
        # Two bounded reads rather than one with an OR, which would read every filing: the
        # filings after the checkpoint (by the primary key) and those with status events
        # after the events checkpoint (by the events' primary key, then the filing's id).
        moved = select(filing_events.c.filing_id).where(
            filing_events.c.seq > events_since.seq, filing_events.c.kind == "status"
        )
        scopes = [
            _MISSING.where(filings.c.seq > since.seq),
            _MISSING.where(filings.c.id.in_(moved)),
        ]
    found = [hit for scope in scopes if (hit := connection.execute(scope).first()) is not None]
    if found:
        lost = min(found, key=lambda row: int(row.seq))
        reason = f"filings {lost.seq} is open ({lost.current}) but missing from open_filings"
        return bad(_CHAIN, lost.seq, lost.id, reason), count
    return VerifyResult(ok=True), count


def _disagreement(row: Any) -> VerifyResult:
    if row.filed_seq is None:
        reason = f"open_filings names filing {row.filing_id}, which is not on file"
        return bad(_CHAIN, row.seq, row.filing_id, reason)
    facts = (row.filed_seq, row.filed_account, row.filed_identity, row.outcome)
    if facts != (row.seq, row.account, row.identity, _ACCEPTED):
        reason = f"open_filings' row for filings {row.filed_seq} does not match the filing"
        return bad(_CHAIN, row.filed_seq, row.filing_id, reason)
    reason = f"open_filings says filings {row.seq} is {row.status} but its events say {row.current}"
    return bad(_CHAIN, row.seq, row.filing_id, reason)
