"""Taking access away: the owner's revoke of a connection or of caller tokens, and a person's
disconnect of their own connection.

Anyone at the owner's desk may revoke (it only takes access away): a connection is erased with
its tokens; ``caller:NAME`` (every token minted for the name) or ``caller:NAME#MINT`` (that
one) puts the caller's tokens on the ledger's denylist, which every replica reads on each
request. A person's disconnect is a prepared act their own code authorizes. Each is journalled.
"""

from __future__ import annotations

from typing import Any

from ordergate.core import RealtimeClock
from ordergate.gateway._caller_mints import revoke_mints
from ordergate.gateway._owner import connection_digest, identity_of
from ordergate.gateway.desk._connection_acts import disconnected
from ordergate.gateway.desk._connections import CALLER_PREFIX
from ordergate.gateway.desk._delayed import UNVERIFIED
from ordergate.gateway.desk._plans import Plan, text_param
from ordergate.gateway.oauth import GatewayStore
from ordergate.ledger import Ledger
from ordergate.owner import Credential
from ordergate.store import blocking

__all__ = ["Revocations"]


class Revocations:
    """Revocations of connections in ``store`` and caller tokens, journalled on ``ledger``."""

    def __init__(self, *, ledger: Ledger, store: GatewayStore) -> None:
        self._ledger = ledger
        self._store = store

    async def revoke(self, connection_id: str) -> dict[str, Any]:
        """Erase a connection with its tokens, or deny a caller's tokens (``caller:...``).
        ``revoked``: whether anything was left to revoke."""
        if connection_id.startswith(CALLER_PREFIX):
            return await self._revoke_caller(connection_id)
        erased = await blocking(self._store.erase, connection_id)
        if erased:
            await self._revoked(
                "connection_revoked",
                "a connection was revoked on the owner's desk",
                {"connection_id": connection_id},
            )
        return {"connection_id": connection_id, "revoked": erased}

    async def apply_disconnect(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        """The authorised disconnect: the person's connection erased with its tokens."""
        connection_id = text_param(plan.params, "connection_id")
        erased = await blocking(self._store.erase, connection_id)
        if erased:
            await blocking(
                self._ledger.journal.append,
                identity=identity_of(connection_id),
                kind="connection_revoked",
                why="a person disconnected their own connection with their code",
                detail={"connection": connection_digest(connection_id)},
            )
        return disconnected(connection_id, erased)

    async def _revoke_caller(self, connection_id: str) -> dict[str, Any]:
        caller, _, mint_id = connection_id.removeprefix(CALLER_PREFIX).partition("#")
        now = RealtimeClock().now()  # security time
        revoked = await blocking(revoke_mints, self._store.engine, caller, mint_id or None, now)
        if revoked:
            await self._revoked(
                "caller_revoked",
                "caller tokens were revoked on the owner's desk",
                {"caller": caller, "mint_ids": revoked},
            )
        return {"connection_id": connection_id, "revoked": bool(revoked), "mints": revoked}

    async def _revoked(self, kind: str, why: str, detail: dict[str, Any]) -> None:
        """Journal a revocation (anyone may revoke: it only takes access away)."""
        await blocking(
            self._ledger.journal.append, identity=UNVERIFIED, kind=kind, why=why, detail=detail
        )
