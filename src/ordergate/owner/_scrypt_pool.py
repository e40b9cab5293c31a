"""The passphrase's scrypt on threads of its own: ``ScryptPool``.

Each passphrase check derives 32 MiB of scrypt for some tens of milliseconds. Run on the
thread pool every ledger call uses (``ordergate.store.blocking``, 40 threads), a flood of wrong
passphrases took every thread and another agent's paper order from 12 ms to 2.6 s. So scrypt
runs here, on ``THREADS`` threads of its own, with at most ``QUEUE`` more checks waiting: a
check past that is refused at once with ``owner_busy`` (``OwnerRefused``) instead of queueing
without bound, and the ledger's pool never runs a derivation.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio
import anyio.to_thread

from ordergate.owner._errors import BUSY, OwnerRefused

__all__ = ["QUEUE", "THREADS", "ScryptPool"]

_T = TypeVar("_T")

THREADS = 1
QUEUE = 2


class ScryptPool:
    """``THREADS`` threads for scrypt; ``run`` refuses with ``owner_busy`` when ``THREADS``
    checks run and ``QUEUE`` more wait."""

    def __init__(self, *, threads: int = THREADS, queue: int = QUEUE) -> None:
        self._threads = threads
        self._capacity = threads + queue
        self._taken = 0
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    def __repr__(self) -> str:
        return f"ScryptPool(threads={self._threads}, capacity={self._capacity})"

    def _take(self) -> None:
        with self._lock:
            if self._taken >= self._capacity:
                raise OwnerRefused(BUSY)
            self._taken += 1
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    self._threads, thread_name_prefix="ordergate-scrypt"
                )

    def _give(self, *_: object) -> None:
        with self._lock:
            self._taken -= 1

    async def run(self, function: Callable[[], _T]) -> _T:
        """``function()`` on one of the pool's threads. Raises ``OwnerRefused`` (``owner_busy``)
        when the pool and its queue are full."""
        self._take()
        assert self._executor is not None
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # not asyncio's loop: anyio's threads, the same bound kept
            try:
                return await anyio.to_thread.run_sync(function)
            finally:
                self._give()
        future = self._executor.submit(function)
        # The slot is given back when the derivation ends, not when a cancelled caller leaves:
        # the thread is busy until then.
        future.add_done_callback(self._give)
        with anyio.CancelScope(shield=True):
            result = await asyncio.wrap_future(future)
        return result
