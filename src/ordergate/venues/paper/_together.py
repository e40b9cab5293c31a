"""``both``: two independent awaits at once, each result where the caller expects it.

Reads that do not depend on each other (the paper book and a quote, say) are made at once
rather than one after the other. An anyio task group would do it, but raises any failure
wrapped in an ``ExceptionGroup``, which ``except SomeError`` around the call no longer
catches; ``both`` raises the first failure as it was raised (the other await is cancelled).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

import anyio

__all__ = ["both"]

A = TypeVar("A")
B = TypeVar("B")


async def both(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """``(await first, await second)``, run at once; the first exception either raises is
    raised as it is, after the other is cancelled."""
    results: list[Any] = [None, None]
    failures: list[BaseException] = []

    async def run(index: int, awaitable: Awaitable[Any], scope: anyio.CancelScope) -> None:
        try:
            results[index] = await awaitable
        except Exception as error:
            failures.append(error)
            scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(run, 1, second, group.cancel_scope)
        await run(0, first, group.cancel_scope)
    if failures:
        raise failures[0]
    return results[0], results[1]
