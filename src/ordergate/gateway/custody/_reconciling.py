"""One reconciliation loop per gateway process, for every connection and account.

In sealed custody each connection trades its own account through its own guard. Rather than
one reconciler per open guard (each polling its account whether anything is open), the
backend runs one loop: each pass reads what is open on the whole ledger
(``Ledger.open_filings``, the open-filings table: its cost is what is open, never history),
groups it by account, and for each account with something open runs one reconciler pass on
the guard of a live connection that filed there (opened if it is not; the guard's reconciler
follows every open filing of its account, whoever filed it). A pass with nothing open reads
one indexed table and nothing else.

With several replicas on one ledger one pass runs at a time across all of them
(``Ledger.turns.pass_turn``): the others skip that pass. So a replica that dies mid-order
leaves its filing to the next pass of any other: looked up by ``ref_id`` and adopted, or
declared ``not_placed`` past the grace, never placed again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ordergate.execution import Guard
from ordergate.gateway._owner import connection_digest, digest_in
from ordergate.ledger import Ledger
from ordergate.store import blocking

__all__ = ["PassReport", "reconcile_open"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PassReport:
    """What one pass did: whether it had the turn, the accounts it followed, and those with
    open filings no live connection could follow (they wait for one)."""

    turn: bool
    accounts: int = 0
    orphaned: int = 0


async def reconcile_open(
    ledger: Ledger,
    *,
    guard: Callable[[str], Awaitable[Guard]],
    live_connections: Callable[[], list[str]],
) -> PassReport:
    """One pass over every account with open filings (see the module docstring)."""
    async with ledger.turns.pass_turn() as turn:
        if not turn:
            return PassReport(turn=False)
        wanted: dict[str, set[str]] = {}
        for record in await blocking(ledger.open_filings):
            digest = digest_in(record.identity)
            if digest is not None:
                wanted.setdefault(record.account, set()).add(digest)
        if not wanted:
            return PassReport(turn=True)
        live = {connection_digest(cid): cid for cid in await blocking(live_connections)}
        followed = orphaned = 0
        for account, digests in sorted(wanted.items()):
            chosen = next((live[d] for d in sorted(digests) if d in live), None)
            if chosen is None:
                orphaned += 1
                continue
            try:
                on = await guard(chosen)
                if on.account != account:
                    orphaned += 1  # the connection now signs in to another account
                    continue
                await on.reconcile()
                followed += 1
            except Exception as error:  # one account's failure must not stop the others
                logger.warning("reconciling an account failed: %s", type(error).__name__)
        return PassReport(turn=True, accounts=followed, orphaned=orphaned)
