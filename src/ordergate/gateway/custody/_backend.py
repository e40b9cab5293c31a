"""``SealedBackend``: each connection's calls go out on its own upstream session, through its
own guard.

A connection's session (``Vault.session``) and the guard on that session's account
(``ordergate.runtime.guard_on``: paper unless live is armed by that session's own
``tools/list``) are opened on first use and then kept, each pair held open by a task of its
own in the backend's task group (a guard with a reconciler runs a task group, which must be
entered and left by one task). At most ``max_open`` are kept; past that the least recently
used one is closed (it reopens on its next call).

``holds(connection_id)`` (``ApprovalModes.holds``) is read each time a connection's guard is
handed out: while it says so, the guard comes narrowed to its policy with every order held for
the person (``_approval_mode``); ``limits(connection_id)`` (``overrides_of``, read with it)
narrows it to the connection's own limits under the rail's policy (``_person_limits``).
``notify`` is told of each order a guard holds (the push to
the person's phone, ``ordergate.gateway.push``), and nothing else is: a held order here is a
person's, theirs alone to see and decide, so the operator's approval webhook and the console
link logged for the owner (``WebhookNotifier``) are not given to these guards. Nor is a late
order's alert (it names the person's order); the pause it may cause shows as the rail's pause.

When the upstream refuses a connection's session (a refresh refused, or a 401 after one), the
vault has marked the connection dead; the backend closes its session and the call fails with
``LoginRequired`` (the agent hears "connect again"). ``disconnect`` closes and erases;
``close_ended`` (run every minute by the server) closes the sessions of connections ended any
other way, so an erased connection's upstream tokens do not stay in memory either.

Reconciliation is one loop for the whole backend (``_reconciling``), every
``reconcile_every`` seconds, not one per open guard: its cost is what is open on the ledger,
and with replicas one pass runs at a time across all of them.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup

from ordergate.client import LoginRequired, Robinhood
from ordergate.core import Clock
from ordergate.execution import ApprovalNotifier, Guard
from ordergate.gateway._owner import connection_digest, digest_in, identity_of
from ordergate.gateway.custody._approval_mode import held_policy
from ordergate.gateway.custody._person_limits import OwnLimits
from ordergate.gateway.custody._reconciling import PassReport, reconcile_open
from ordergate.gateway.custody._vault import SessionSource
from ordergate.ledger import FilingRecord, Ledger
from ordergate.policy import PolicyConfig
from ordergate.runtime import guard_on
from ordergate.store import blocking

__all__ = ["SealedBackend"]

_log = logging.getLogger(__name__)
_T = TypeVar("_T")
_OPEN_TIMEOUT_S = 60.0


@dataclass(slots=True)
class _Held:
    ready: anyio.Event = field(default_factory=anyio.Event)
    close: anyio.Event = field(default_factory=anyio.Event)
    closed: anyio.Event = field(default_factory=anyio.Event)
    rh: Robinhood | None = None
    guard: Guard | None = None
    error: BaseException | None = None


class SealedBackend:
    def __init__(
        self,
        *,
        vault: SessionSource,
        policy: PolicyConfig,
        ledger: Ledger,
        clock: Clock,
        erase: Callable[[str], Awaitable[None]],
        tasks: TaskGroup,
        live_connections: Callable[[], list[str]] | None = None,
        reconcile_every: float | None = None,
        max_open: int = 256,
        holds: Callable[[str], bool] | None = None,
        limits: Callable[[str], OwnLimits] | None = None,
        notify: ApprovalNotifier | None = None,
    ) -> None:
        if max_open < 1:
            raise ValueError("max_open must be at least 1")
        self._vault = vault
        self._policy = policy
        self._ledger = ledger
        self._clock = clock
        self._erase = erase
        self._tasks = tasks
        self._reconcile_every = reconcile_every
        self._max_open = max_open
        self._holds = holds
        self._limits = limits
        self._notify = notify
        self._live_connections = live_connections or (lambda: list(self._open))
        self._open: OrderedDict[str, _Held] = OrderedDict()
        self._lock = anyio.Lock()
        self._loop = anyio.CancelScope()

    @classmethod
    @asynccontextmanager
    async def running(cls, **kwargs: Any) -> AsyncIterator[SealedBackend]:
        """The backend for the block (reconciling every ``reconcile_every`` seconds, when
        given); every session it opened is closed when it ends."""
        async with anyio.create_task_group() as tasks:
            backend = cls(tasks=tasks, **kwargs)
            if backend._reconcile_every is not None:
                tasks.start_soon(backend._reconcile_forever, backend._reconcile_every)
            try:
                yield backend
            finally:
                backend._loop.cancel()
                await backend.close_all()

    async def reconcile(self) -> PassReport:
        """One reconciliation pass over every account with open filings."""
        return await reconcile_open(
            self._ledger,
            guard=self.guard,
            live_connections=self._live_connections,
        )

    async def _reconcile_forever(self, every: float) -> None:
        with self._loop:
            while True:  # bounded by the backend's lifetime: cancelled when it ends
                await anyio.sleep(every)
                try:
                    await self.reconcile()
                except Exception as error:  # one bad pass must not end reconciliation
                    _log.warning("a reconciliation pass failed: %s", type(error).__name__)

    # -- GatewayBackend -------------------------------------------------------------------

    async def upstream_tools(self, connection_id: str) -> list[dict[str, Any]]:
        async def listed(rh: Robinhood) -> list[dict[str, Any]]:
            return await rh.list_tools()

        return await self._on_session(connection_id, listed)

    async def forward(self, connection_id: str, name: str, arguments: dict[str, Any]) -> Any:
        async def called(rh: Robinhood) -> Any:
            return await rh.call(name, arguments)

        return await self._on_session(connection_id, called)

    async def guard(self, connection_id: str) -> Guard:
        held = await self._held(connection_id)
        guard = held.guard
        assert guard is not None
        policy = await blocking(self._narrowing, connection_id, guard.policy)
        return guard if policy is guard.policy else guard.narrowed(policy)

    def _narrowing(self, connection_id: str, policy: PolicyConfig) -> PolicyConfig:
        """``policy`` under the connection's own limits and its approval mode (blocking)."""
        if self._limits is not None:
            policy = self._limits(connection_id).apply(policy)
        if self._holds is not None and self._holds(connection_id):
            policy = held_policy(policy)
        return policy

    def open_guard(self, connection_id: str) -> Guard | None:
        # A forwarded read's fast path only: nothing is filed on this guard, so it is the
        # connection's own, not narrowed to its approval mode (``guard`` is, for every order).
        held = self._open.get(connection_id)
        if held is None or not held.ready.is_set() or held.error is not None:
            return None
        return held.guard

    def identity(self, connection_id: str) -> str:
        return identity_of(connection_id)

    # -- the owner's desk -------------------------------------------------------------------

    async def use_policy(self, policy: PolicyConfig) -> bool:
        """Every guard checks orders against ``policy`` from now on (those opened later too).
        Whether any open guard trades live."""
        async with self._lock:
            self._policy = policy
            guards = [held.guard for held in self._open.values() if held.guard is not None]
        for guard in guards:
            guard.use_policy(policy)
        return any(not guard.paper for guard in guards)

    @asynccontextmanager
    async def guard_for(self, record: FilingRecord) -> AsyncIterator[Guard]:
        """The guard of the connection that filed ``record`` (its identity names the hashed
        connection id: the connection's own, or a caller token's bound to it), opened if it
        is not. ``LookupError`` when no live connection filed it (it was erased, or the
        filing was made elsewhere)."""
        wanted = digest_in(record.identity)
        if wanted is not None:
            for connection_id in await blocking(self._live_connections):
                if connection_digest(connection_id) == wanted:
                    yield await self.guard(connection_id)
                    return
        raise LookupError("no live connection filed this order")

    async def disconnect(self, connection_id: str) -> None:
        await self._close(connection_id)
        await self._erase(connection_id)

    # -- sessions --------------------------------------------------------------------------

    async def _on_session(
        self, connection_id: str, use: Callable[[Robinhood], Awaitable[_T]]
    ) -> _T:
        held = await self._held(connection_id)
        assert held.rh is not None
        try:
            return await use(held.rh)
        except LoginRequired:
            await self._close(connection_id)
            raise

    async def _held(self, connection_id: str) -> _Held:
        async with self._lock:
            held = self._open.get(connection_id)
            if held is None:
                held = _Held()
                self._open[connection_id] = held
                self._tasks.start_soon(self._hold, connection_id, held)
                evicted = self._evictions()
            else:
                self._open.move_to_end(connection_id)
                evicted = []
        for old in evicted:
            old.close.set()
        with anyio.fail_after(_OPEN_TIMEOUT_S):
            await held.ready.wait()
        if held.error is not None:
            async with self._lock:
                if self._open.get(connection_id) is held:
                    del self._open[connection_id]
            raise held.error
        return held

    def _evictions(self) -> list[_Held]:
        evicted = []
        while len(self._open) > self._max_open:
            _, old = self._open.popitem(last=False)
            evicted.append(old)
        return evicted

    async def _hold(self, connection_id: str, held: _Held) -> None:
        try:
            async with (
                self._vault.session(connection_id) as rh,
                guard_on(
                    rh,
                    policy=self._policy,
                    ledger=self._ledger,
                    clock=self._clock,
                    notify=self._notify,
                ) as (guard, _arming),
            ):
                held.rh, held.guard = rh, guard
                held.ready.set()
                await held.close.wait()
        except Exception as error:  # reported to the caller that asked for the session
            if not held.ready.is_set():
                held.error = error
            else:
                _log.warning("a connection's upstream session ended (%s)", type(error).__name__)
        finally:
            held.ready.set()
            held.closed.set()

    async def _close(self, connection_id: str) -> None:
        async with self._lock:
            held = self._open.pop(connection_id, None)
        if held is not None:
            held.close.set()
            with anyio.move_on_after(_OPEN_TIMEOUT_S):
                await held.closed.wait()

    async def close_ended(self, live: Callable[[list[str]], set[str]]) -> int:
        """Close the sessions of connections that are no longer live (erased by the revoke
        endpoint or for idleness, or marked dead), so their upstream tokens leave memory too.
        ``live(ids)`` says which of ``ids`` are live (a blocking read, run off the loop).
        How many were closed."""
        async with self._lock:
            open_ids = list(self._open)
        if not open_ids:
            return 0
        alive = await blocking(live, open_ids)
        ended = [connection_id for connection_id in open_ids if connection_id not in alive]
        for connection_id in ended:
            await self._close(connection_id)
        return len(ended)

    async def close_all(self) -> None:
        async with self._lock:
            everything = list(self._open.values())
            self._open.clear()
        for held in everything:
            held.close.set()
        with anyio.move_on_after(_OPEN_TIMEOUT_S):
            for held in everything:
                await held.closed.wait()
