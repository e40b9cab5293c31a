"""Planning an owner act: what the owner will be shown of it, read from where things stand.

``ActPlanner.plan`` turns a requested act and its parameters into a ``Plan`` (``_plans``):
its summary lines, the state it binds and whether it needs a code. The desk plans an act when
it is prepared and again when it is authorised; the two digests must match, so an act whose
grounds changed in between is refused rather than run on what the owner did not see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ordergate.gateway._owner import connection_digest
from ordergate.gateway.desk._connection_acts import (
    connection_kind,
    connection_of,
    connection_resume_plan,
    disconnect_plan,
)
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._held import HeldOrders
from ordergate.gateway.desk._mints import CallerMints
from ordergate.gateway.desk._plans import (
    Plan,
    approve_plan,
    policy_plan,
    resume_plan,
    text_param,
)
from ordergate.gateway.desk._policy_acts import policy_baseline
from ordergate.gateway.oauth import GatewayStore
from ordergate.gateway.oauth._records import ConnectionKind
from ordergate.ledger import Ledger
from ordergate.owner import OwnerAct
from ordergate.store import blocking

__all__ = ["REQUESTED_AS", "ActPlanner"]

REQUESTED_AS = {OwnerAct.ARM_LIVE: OwnerAct.POLICY_APPLY}
"""The act a prepared act was requested as, where it is journalled as another."""


class ActPlanner:
    """Plans the owner's acts over ``ledger`` and ``store``: held orders by ``held``, caller
    tokens by ``mints``."""

    def __init__(
        self, *, ledger: Ledger, store: GatewayStore, held: HeldOrders, mints: CallerMints
    ) -> None:
        self._ledger = ledger
        self._store = store
        self._held = held
        self._mints = mints

    async def plan(self, act: str, params: Mapping[str, Any]) -> Plan:
        """The plan of ``act`` with ``params``; ``DeskError`` for an act that cannot be done."""
        if act == OwnerAct.APPROVE:
            approval_id = text_param(params, "approval_id")
            approval, record = await self._held.pending(approval_id)
            if await self._held.waits(approval_id):
                raise DeskError(
                    409,
                    "approval_waiting",
                    "That approval already waits the owner's delay; nothing changed.",
                )
            return approve_plan(approval, record)
        if act == OwnerAct.RESUME:
            connection_id = connection_of(params)
            if connection_id is not None:
                await blocking(connection_kind, self._store.engine, connection_id)
                digest = connection_digest(connection_id)
                pause = await blocking(self._ledger.controls.connection_pause, digest)
                return connection_resume_plan(connection_id, pause)
            return resume_plan(await blocking(self._ledger.controls.pause_state))
        if act == OwnerAct.DISCONNECT:
            connection_id = text_param(params, "connection_id")
            kind = await blocking(connection_kind, self._store.engine, connection_id)
            if kind is not ConnectionKind.SEALED:
                raise DeskError(
                    409,
                    "not_a_persons_connection",
                    "Only a person's own connection is disconnected with their code; revoke "
                    "this one instead.",
                )
            return disconnect_plan(connection_id)
        if act == OwnerAct.POLICY_APPLY:
            baseline, applied_sha = await blocking(policy_baseline, self._ledger)
            return policy_plan(text_param(params, "text"), baseline, applied_sha)
        if act == OwnerAct.TOKEN_MINT:
            return await blocking(self._mints.plan, params)
        raise DeskError(400, "unknown_act", "No such owner act to prepare.")
