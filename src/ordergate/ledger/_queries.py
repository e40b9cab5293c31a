"""Reads the ledger makes in more than one place, each bounded by an index (named beside it).

A filing's current status is its latest status event's (``FilingStatus`` of the filing when
it has none); ``open_filings`` holds it for the filings still open.
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, func, select

from ordergate.ledger._errors import UnknownFilingError
from ordergate.ledger._models import FilingStatus
from ordergate.ledger._schema import agent_keys, filing_events, filings, open_filings
from ordergate.store import Statement, step_memo

__all__ = [
    "EVENTS_HEAD",
    "FILING",
    "FILING_ACCOUNT",
    "KEYED_FILING",
    "LATEST_STATUS",
    "OPEN",
    "OPEN_OF",
    "TERMINAL",
    "WITH_STATUS",
    "filing_account",
]

TERMINAL = tuple(status.value for status in FilingStatus if status.terminal)

# A filing's latest status event (ix_filing_events_filing: filing_id, seq, read backwards),
# correlated to the filings row of the enclosing query.
LATEST_STATUS = (
    select(filing_events.c.status)
    .where(filing_events.c.filing_id == filings.c.id, filing_events.c.kind == "status")
    .order_by(filing_events.c.seq.desc())
    .limit(1)
    .correlate(filings)
    .scalar_subquery()
)
WITH_STATUS = select(filings, LATEST_STATUS.label("current"))
# One filing by its id (the unique index on filings.id).
FILING = Statement(WITH_STATUS.where(filings.c.id == bindparam("id")))
# The filing an identity filed under an agent key: the agent_keys primary key (identity,
# agent_key), then the filing by its unique id.
KEYED_FILING = Statement(
    WITH_STATUS.join(agent_keys, agent_keys.c.filing_id == filings.c.id).where(
        agent_keys.c.identity == bindparam("identity"),
        agent_keys.c.agent_key == bindparam("agent_key"),
    )
)
# The open filings with their filing rows: ix_open_filings_account (account, seq) when an
# account is given, each joined by seq (the filings primary key).
_OPEN = (
    select(filings, open_filings.c.status.label("current"))
    .join(open_filings, open_filings.c.seq == filings.c.seq)
    .order_by(open_filings.c.seq)
)
OPEN = Statement(_OPEN)
# An account's open filings (ix_open_filings_account).
OPEN_OF = Statement(_OPEN.where(open_filings.c.account == bindparam("account")))
# The account of one filing (the unique index on filings.id): whether it is on file.
FILING_ACCOUNT = Statement(select(filings.c.account).where(filings.c.id == bindparam("id")))
# The events chain's last link, by its primary key (the max of the primary key first).
EVENTS_HEAD = Statement(
    select(filing_events.c.seq, filing_events.c.hash).where(
        filing_events.c.seq == select(func.max(filing_events.c.seq)).scalar_subquery()
    )
)


def filing_account(connection: Connection, key: str) -> str:
    """The account of filing ``key``; ``UnknownFilingError`` if there is none. Inside a write
    transaction it is read once (a filing row never changes once filed; a step that rolls
    back empties the memo, so a filing filed and undone in it is read again)."""
    memo = step_memo(connection)
    if memo is not None and ("filing", key) in memo:
        known: str = memo["filing", key]
        return known
    account = FILING_ACCOUNT.scalar(connection, {"id": key})
    if account is None:
        raise UnknownFilingError(key)
    if memo is not None:
        memo["filing", key] = str(account)
    return str(account)
