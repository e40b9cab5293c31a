"""The owner's acts on held orders: approve one (placed through its guard, or, above the
owner's approval threshold, once the owner's delay has passed) and deny one.

An approval that waits the delay stays open until it is due and ``APPROVAL_GRACE`` after;
denying an order ends what waits to approve it. Every refusal is a ``DeskError``. (What the
agent that filed a held order is answered meanwhile is ``gateway.mcp``'s ``HeldAnswers``.)
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from typing import Any

from ordergate.core import to_wire
from ordergate.execution import Guard, deny_approval
from ordergate.gateway.desk._delayed import UNVERIFIED, DelayedActs
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._plans import Plan
from ordergate.ledger import (
    AccountBusyError,
    Approval,
    ApprovalState,
    FilingRecord,
    Ledger,
    LedgerError,
)
from ordergate.owner import CODE_MISSING, OWNER_IDENTITY, Credential, DelayedAct, OwnerAct
from ordergate.store import blocking

__all__ = ["APPROVAL_GRACE", "GuardFor", "HeldOrders", "busy_refusal"]

GuardFor = Callable[[FilingRecord], AbstractAsyncContextManager[Guard]]
"""The guard that carries a held filing on (the running gateway's, or one opened for it)."""

APPROVAL_GRACE = timedelta(minutes=5)
"""How long an approval that waited the owner's delay stays open after it is due."""


class HeldOrders:
    """The held orders on ``ledger``, carried on by ``guard_for``'s guards; ``mode`` is what a
    denial's answer says the desk runs in."""

    def __init__(
        self, *, ledger: Ledger, delayed: DelayedActs, guard_for: GuardFor, mode: str
    ) -> None:
        self._ledger = ledger
        self._delayed = delayed
        self._guard_for = guard_for
        self._mode = mode

    async def passkey_may_approve(self, plan: Plan) -> None:
        """An order above the owner's threshold needs the code, never a passkey alone."""
        _, record = await self.pending(str(plan.params["approval_id"]))
        threshold = (await self._delayed.settings()).approve_above
        if threshold is not None and record.notional > threshold:
            raise DeskError(
                401,
                CODE_MISSING,
                "This order is above the owner's approval threshold: approving it needs the "
                "owner code, not a passkey alone.",
            )

    async def apply_approve(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        """The authorised approval: placed now, or waiting the delay above the threshold."""
        approval_id = str(plan.params["approval_id"])
        _, record = await self.pending(approval_id)
        threshold = (await self._delayed.settings()).approve_above
        if threshold is not None and record.notional > threshold:
            terms = record.terms
            summary = (
                f"approve {terms.get('side')} {terms.get('symbol')} "
                f"${to_wire(record.notional)} (above ${to_wire(threshold)}) · "
                f"order {record.id}"
            )
            waiting = await self._delayed.defer(OwnerAct.APPROVE, summary, dict(plan.detail))
            if waiting is not None:
                # The approval stays open until its delay has passed, and a little after.
                until = datetime.fromisoformat(waiting["delayed"]["effective_at"]) + APPROVAL_GRACE
                await blocking(self._ledger.approvals.hold_until, approval_id, until)
                return waiting
        return await self.place(record, approval_id)

    async def waits(self, approval_id: str) -> bool:
        """Whether approving ``approval_id`` already waits the owner's delay."""
        waiting = await blocking(self._delayed.delays.pending)
        return any(
            act.act is OwnerAct.APPROVE and act.payload["approval_id"] == approval_id
            for act in waiting
        )

    async def place(self, record: FilingRecord, approval_id: str) -> dict[str, Any]:
        """The approved order placed by the guard that carries ``record`` on."""
        # ``Guard.approve`` carries the order on in its account's turn, like any other order.
        async with self._guard_for(record) as guard:
            try:
                outcome = await guard.approve(approval_id, by=OWNER_IDENTITY)
            except AccountBusyError as busy:
                raise busy_refusal(busy) from None
            mode = "paper" if guard.paper else "live"
        return outcome.as_json(mode=mode)

    async def deny(self, approval_id: str, *, by: str = UNVERIFIED) -> dict[str, Any]:
        """End the held order in its account's turn, its hold released (no code: it only
        makes things safer); what waits to approve it ends too. ``by``: who denied it, as the
        approval keeps it (a person's connection's identity on their own console)."""
        _, record = await self.pending(approval_id)
        try:
            async with self._ledger.turns.account(record.account):
                outcome = await blocking(deny_approval, self._ledger, approval_id, by=by)
        except AccountBusyError as busy:
            raise busy_refusal(busy) from None
        for waiting in await blocking(self._delayed.delays.pending):
            if waiting.act is OwnerAct.APPROVE and waiting.payload["approval_id"] == approval_id:
                await self._delayed.cancel(waiting.id, why="the order was denied", by=UNVERIFIED)
        return outcome.as_json(mode=self._mode)

    async def due(self, act: DelayedAct) -> str | None:
        """An approval whose delay has passed: its order placed."""
        approval_id = str(act.payload["approval_id"])
        _, record = await self.pending(approval_id)
        outcome = await self.place(record, approval_id)
        return f"the approved order is {outcome.get('status')}"

    async def pending(self, approval_id: str) -> tuple[Approval, FilingRecord]:
        """A pending approval and the filing it holds; 404 for none, 409 when decided."""

        def read() -> tuple[Approval, FilingRecord]:
            approval = self._ledger.approvals.get(approval_id)
            return approval, self._ledger.filing(approval.filing_id)

        try:
            approval, record = await blocking(read)
        except (LedgerError, ValueError):
            raise DeskError(404, "unknown_approval", "No approval has that id.") from None
        if approval.state is not ApprovalState.PENDING:
            raise DeskError(
                409,
                "approval_decided",
                f"That approval was already decided ({approval.state.value}); nothing changed.",
            )
        return approval, record


def busy_refusal(busy: AccountBusyError) -> DeskError:
    """The refusal when another order held the account's turn past its bound."""
    return DeskError(
        409,
        busy.code,
        f"Another order on this account held its turn for over {busy.bound_s:g} s; nothing "
        "was done. Try again.",
    )
