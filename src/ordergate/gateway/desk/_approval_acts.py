"""The operator turns a person's connection's approval mode on (``custody._approval_mode``).

Holding every order of a connection for its person only tightens, so the operator does it with
no one's consent, like a pause of that connection; turning it off loosens and stays the
person's own act, with their code on their own route — the desk refuses it, journalled.
"""

from __future__ import annotations

from typing import Any

from ordergate.gateway.custody import ApprovalModeRefused, ApprovalModes
from ordergate.gateway.desk._connection_acts import connection_kind
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.oauth import GatewayStore
from ordergate.gateway.oauth._records import ConnectionKind
from ordergate.ledger import Ledger
from ordergate.store import blocking

__all__ = ["ApprovalModeActs"]


class ApprovalModeActs:
    def __init__(self, *, ledger: Ledger, store: GatewayStore) -> None:
        self._ledger = ledger
        self._store = store
        self._modes = ApprovalModes(store.engine, persons=None)

    async def set(self, connection_id: str, on: bool) -> dict[str, Any]:
        """Turn the live person's connection's approval mode ``on``; 404 for a connection
        that is not a live person's, 403 ``approval_mode_off_person_only`` for off."""
        kind = await blocking(connection_kind, self._store.engine, connection_id)
        if kind is not ConnectionKind.SEALED:
            raise DeskError(
                404, "unknown_connection", "No live connection of a person has that connection_id."
            )
        try:
            changed = await blocking(
                lambda: self._modes.set_by_operator(connection_id, on=on, ledger=self._ledger)
            )
        except ApprovalModeRefused as refused:
            raise DeskError(403, refused.code, str(refused)) from None
        return {"connection_id": connection_id, "approval_mode": True, "changed": changed}
