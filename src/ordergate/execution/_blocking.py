"""Running the ledger's blocking calls off the event loop.

The ledger is synchronous (SQLAlchemy Core) and a filing may wait on another process's write
lock; the guard calls it through ``blocking`` so that wait never stalls the event loop (and
with it every other connection a gateway serves).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import anyio.to_thread

__all__ = ["blocking"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


async def blocking(function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``function(*args, **kwargs)`` in a worker thread."""
    return await anyio.to_thread.run_sync(functools.partial(function, *args, **kwargs))
