"""``PushNotifier``: an order held for a person reaches their phone (the guard's notifier).

The guard tells its notifier of each new pending approval; on a hosted rail this one finds the
person's connection the filing names (its own identity, or a caller token's bound to it) and
sends each of that connection's subscriptions one push: the event, the filing's and the
approval's ids, when the approval expires and the link to the approval's page on the person's
own console — nothing of the order itself (no symbol, side or amount) and nothing secret. A
push service that says the subscription is gone (404, 410) has it dropped.

The order path never waits for it: ``__call__`` only starts the delivery on the notifier's own
task group and returns; at most ``max_in_flight`` deliveries run at once (past that a held
order's push is skipped, journalled), and each send is bounded (``PushSender``). Every outcome
is journalled (``kind`` ``push``, under the connection's identity): the subscription's id and
the HTTP status, never its endpoint or keys.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import TaskGroup
from sqlalchemy import Engine

from ordergate.gateway._owner import identity_of
from ordergate.gateway.custody._person import sealed_connection_of
from ordergate.gateway.push._send import Delivered, PushSender
from ordergate.gateway.push._subscriptions import PushSubscriptions
from ordergate.ledger import Approval, FilingRecord, Ledger
from ordergate.store import blocking

__all__ = ["PushNotifier", "approval_push"]

logger = logging.getLogger(__name__)
_MAX_IN_FLIGHT = 32


def approval_push(approval: Approval, record: FilingRecord, *, console: str) -> dict[str, Any]:
    """What a held order's push carries: ids, expiry and the approval's page on ``console``
    (the person's own console, never the operator's), no terms."""
    return {
        "event": "approval_pending",
        "title": "An order waits for your approval",
        "filing_id": str(record.id),
        "approval_id": str(approval.id),
        "expires_at": approval.expires_at.isoformat(),
        "url": f"{console.rstrip('/')}/approvals/{approval.id}",
    }


class PushNotifier:
    """Announces held orders to their persons' subscriptions, in the background."""

    def __init__(
        self,
        *,
        engine: Engine,
        ledger: Ledger,
        subscriptions: PushSubscriptions,
        sender: PushSender,
        console: str,
        tasks: TaskGroup,
        max_in_flight: int = _MAX_IN_FLIGHT,
    ) -> None:
        self._engine = engine
        self._ledger = ledger
        self._subscriptions = subscriptions
        self._sender = sender
        self._console = console
        self._tasks = tasks
        self._max_in_flight = max_in_flight
        self._in_flight = 0

    def __repr__(self) -> str:
        return "PushNotifier(<subscriptions>)"

    @classmethod
    @asynccontextmanager
    async def running(cls, **kwargs: Any) -> AsyncIterator[PushNotifier]:
        """The notifier for the block; deliveries still running when it ends are cancelled."""
        async with anyio.create_task_group() as tasks:
            try:
                yield cls(tasks=tasks, **kwargs)
            finally:
                tasks.cancel_scope.cancel()

    async def __call__(self, approval: Approval, record: FilingRecord) -> None:
        if self._in_flight >= self._max_in_flight:
            await blocking(
                self._journal, record.identity, "push skipped: too many in flight",
                {"filing_id": str(record.id), "outcome": "skipped"},
            )  # fmt: skip
            return
        self._in_flight += 1
        self._tasks.start_soon(self._deliver, approval, record)

    async def _deliver(self, approval: Approval, record: FilingRecord) -> None:
        try:
            await self._deliver_all(approval, record)
        except Exception as error:  # a push must never take the notifier's task group down
            logger.warning("a held order's push failed: %s", type(error).__name__)
        finally:
            self._in_flight -= 1

    async def _deliver_all(self, approval: Approval, record: FilingRecord) -> None:
        connection_id = await blocking(sealed_connection_of, self._engine, record.identity)
        if connection_id is None:
            return
        found = await blocking(self._subscriptions.of, connection_id)
        if not found:
            return
        payload = json.dumps(
            approval_push(approval, record, console=self._console), separators=(",", ":")
        ).encode("utf-8")
        ttl_s = max(0, int((approval.expires_at - approval.created_at).total_seconds()))
        identity = identity_of(connection_id)
        for subscription_id, subscription in found:
            delivery = await self._sender.send(subscription, payload, ttl_s=ttl_s)
            if delivery.outcome is Delivered.GONE:
                await blocking(self._subscriptions.drop, subscription_id)
            detail: dict[str, Any] = {
                "filing_id": str(record.id),
                "subscription_id": subscription_id,
                "outcome": delivery.outcome.value,
                "status": delivery.status,
            }
            if delivery.reason is not None:
                detail["reason"] = delivery.reason
            await blocking(self._journal, identity, f"push {delivery.outcome.value}", detail)

    def _journal(self, identity: str, why: str, detail: dict[str, Any]) -> None:
        self._ledger.journal.append(identity=identity, kind="push", why=why, detail=detail)
