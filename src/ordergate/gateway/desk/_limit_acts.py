"""The desk's side of a person's own limits (``custody._person_limits``): reading a
connection's limits under the rail's ceiling, the person setting theirs with their code, and
the operator tightening them with no one's consent (never loosening them).

The ceiling is the policy applied on the ledger (``policy_baseline``), the one every guard of
the rail enforces; a refusal is a ``DeskError`` whose sentence names the field.
"""

from __future__ import annotations

from typing import Any

from ordergate.core import Clock
from ordergate.gateway.custody import ConnectionLimits, LimitRefused
from ordergate.gateway.custody._person import PersonCodes, PersonRefused
from ordergate.gateway.desk._connection_acts import connection_kind
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._policy_acts import policy_baseline
from ordergate.gateway.oauth import GatewayStore
from ordergate.gateway.oauth._records import ConnectionKind
from ordergate.ledger import Ledger
from ordergate.store import blocking

__all__ = ["LimitActs"]


class LimitActs:
    """Each connection's own limits, as the desk reads and sets them."""

    def __init__(
        self, *, ledger: Ledger, store: GatewayStore, persons: PersonCodes | None, clock: Clock
    ) -> None:
        self._store = store
        self.limits = ConnectionLimits(
            store.engine,
            persons=persons,
            ledger=ledger,
            ceiling=lambda: policy_baseline(ledger)[0],
            clock=clock,
        )

    async def view(self, connection_id: str) -> list[dict[str, Any]]:
        return await blocking(self.limits.view, connection_id)

    async def by_person(
        self, connection_id: str, asked: object, code: str | None, *, passkey: bool = False
    ) -> dict[str, Any]:
        try:
            return await blocking(
                lambda: self.limits.set_by_person(connection_id, asked, code, passkey=passkey)
            )
        except LimitRefused as refused:
            raise DeskError(refused.status, refused.code, f"{refused.field}: {refused}") from None
        except PersonRefused as refused:
            raise DeskError(refused.status, refused.reason, str(refused)) from None

    async def check_person(self, connection_id: str, asked: object) -> None:
        try:
            await blocking(self.limits.within_ceiling, connection_id, asked)
        except LimitRefused as refused:
            raise DeskError(refused.status, refused.code, f"{refused.field}: {refused}") from None

    async def tighten(self, connection_id: str, asked: object) -> dict[str, Any]:
        kind = await blocking(connection_kind, self._store.engine, connection_id)
        if kind is not ConnectionKind.SEALED:
            raise DeskError(
                404, "unknown_connection", "No live connection of a person has that connection_id."
            )
        try:
            answer = await blocking(self.limits.tighten, connection_id, asked)
        except LimitRefused as refused:
            raise DeskError(refused.status, refused.code, f"{refused.field}: {refused}") from None
        return {"connection_id": connection_id, **answer}
