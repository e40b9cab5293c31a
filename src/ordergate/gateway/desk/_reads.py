"""What the owner's desk reads: the rail's status, the waiting orders, the connections.

Each is one blocking read over the ledger or the gateway's store; the desk runs what has come
due of the delayed acts before it reads (``OwnerDesk``), so a read never shows an act that is
already done as waiting.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from ordergate.core import RealtimeClock
from ordergate.gateway._owner import digest_in
from ordergate.gateway.desk._connections import client_names, list_caller_mints, list_connections
from ordergate.gateway.desk._delayed import DelayedActs
from ordergate.gateway.desk._policy_acts import policy_baseline
from ordergate.ledger import Ledger
from ordergate.owner import OwnerAuthority

__all__ = ["every_connection", "rail_status", "waiting_approvals"]


def rail_status(
    authority: OwnerAuthority, ledger: Ledger, delayed: DelayedActs, mode: str
) -> dict[str, Any]:
    """The owner's state, the pause, the policy in force, the mode and the delays."""
    owner = authority.status()
    pause = ledger.controls.pause_state()
    applied = ledger.controls.applied_policy()
    return {
        "owner": owner.as_json(),
        "paused": pause.paused,
        "pause_reason": pause.reason if pause.paused else None,
        "policy_sha256": applied.sha256 if applied else None,
        "mode": mode,
        "delays": delayed.delays.settings().to_json(),
        "waiting_acts": len(delayed.delays.pending()),
    }


def waiting_approvals(ledger: Ledger) -> list[dict[str, Any]]:
    """The waiting orders: each approval's announcement, the reasons its filing was held,
    and the registered name of the client whose connection filed it (when one did)."""
    from ordergate.runtime import approval_announcement

    names = client_names(ledger.engine)
    applied = policy_baseline(ledger)[0].approval
    rule = f'the policy asks the owner (approval = "{applied}")'
    waiting = []
    for approval in ledger.approvals.pending():
        record = ledger.filing(approval.filing_id)
        digest = digest_in(record.identity)
        waiting.append(
            {
                **approval_announcement(approval, record),
                "held_because": [*record.reasons, rule],
                "client_name": names.get(digest) if digest else None,
            }
        )
    return waiting


def every_connection(engine: Engine) -> list[dict[str, Any]]:
    """The connections, then the caller tokens minted (each as ``caller:NAME#MINT``)."""
    now = RealtimeClock().now()
    return [*list_connections(engine), *list_caller_mints(engine, now=now)]
