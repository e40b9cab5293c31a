"""The owner's kill switch: pause the rail (or one connection) and resume it.

Pausing only makes things safer, so it needs no code: the pause goes on the ledger, every
act that waits the owner's delay ends, and with ``cancel_open`` every working order the
gateway filed is cancelled, each account's by its guard in the account's turn
(``Guard.cancel_open``), once the pause is on the ledger so none is placed after it. Pausing
one connection is ``_connection_acts``'s. Resuming loosens: it is a prepared act, and this is
what runs once it is authorised (on a person's connection, by that person).
"""

from __future__ import annotations

from typing import Any

from ordergate.gateway._owner import identity_of
from ordergate.gateway.desk._authorizing import Authorizer
from ordergate.gateway.desk._connection_acts import (
    connection_of,
    pause_connection,
    resume_connection,
)
from ordergate.gateway.desk._delayed import UNVERIFIED, DelayedActs
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._held import GuardFor
from ordergate.gateway.desk._plans import Plan
from ordergate.gateway.oauth import GatewayStore
from ordergate.ledger import FilingRecord, Ledger
from ordergate.owner import OWNER_IDENTITY, Credential
from ordergate.store import blocking

__all__ = ["KillSwitch"]


class KillSwitch:
    """Pause and resume on ``ledger`` (a connection's, found in ``store``); working orders
    cancelled by ``guard_for``'s guards; what waits in ``delayed`` ends on a pause."""

    def __init__(
        self,
        *,
        ledger: Ledger,
        store: GatewayStore,
        delayed: DelayedActs,
        guard_for: GuardFor,
        authorizer: Authorizer,
    ) -> None:
        self._ledger = ledger
        self._store = store
        self._delayed = delayed
        self._guard_for = guard_for
        self._authorizer = authorizer

    async def pause(
        self, reason: str, *, cancel_open: bool = False, connection_id: str | None = None
    ) -> dict[str, Any]:
        """Pause the rail (with ``cancel_open``, its working orders cancelled too), or the
        live connection ``connection_id`` alone (404 for none)."""
        if connection_id is not None:
            if cancel_open:
                raise DeskError(
                    400, "invalid_request", "cancel_open pauses the whole rail: omit connection_id."
                )
            return await blocking(
                pause_connection,
                self._store.engine,
                self._ledger,
                connection_id,
                reason,
                by=UNVERIFIED,
            )

        def act() -> dict[str, Any]:
            current = self._ledger.controls.pause_state()
            if current.paused:
                return _pause_json(current, changed=False)
            return _pause_json(self._ledger.controls.pause(reason, by=UNVERIFIED), changed=True)

        paused = await blocking(act)
        cancelled = await self._delayed.cancel(None, why="the owner paused", by=UNVERIFIED)
        answer = {**paused, "cancelled": cancelled} if cancelled else paused
        if not cancel_open:
            return answer
        return {**answer, "cancels": await self._cancel_working()}

    async def _cancel_working(self) -> list[dict[str, Any]]:
        first_of: dict[str, FilingRecord] = {}
        for record in await blocking(self._ledger.open_filings):
            first_of.setdefault(record.account, record)
        reports: list[dict[str, Any]] = []
        for record in first_of.values():
            async with self._guard_for(record) as guard:
                done = await guard.cancel_open(identity=UNVERIFIED, why="the owner paused")
            reports.extend(report.as_json() for report in done)
        return reports

    async def apply_resume(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        """The authorised resume: of the connection it names (by its person, on a sealed
        one), else of the rail."""
        connection_id = connection_of(plan.params)
        if connection_id is not None:
            person = await self._authorizer.person_for(plan.act, plan.params)
            by = OWNER_IDENTITY if person is None else identity_of(person)
            return await blocking(resume_connection, self._ledger, connection_id, by=by)
        current = await blocking(self._ledger.controls.pause_state)
        if not current.paused:
            return {"paused": False, "changed": False}
        await blocking(self._ledger.controls.resume, by=OWNER_IDENTITY)
        return {"paused": False, "changed": True, "was": _pause_json(current, changed=False)}


def _pause_json(state: Any, *, changed: bool) -> dict[str, Any]:
    return {
        "paused": state.paused,
        "changed": changed,
        "reason": state.reason,
        "since": state.since.isoformat() if state.since else None,
    }
