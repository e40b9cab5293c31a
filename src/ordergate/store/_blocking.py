"""The one way async code runs a blocking call: ``await blocking(function, *args)``.

The database layer is synchronous (SQLAlchemy Core) and a write may wait on another process's
lock; async code calls it (and any other blocking call) through ``blocking`` so that wait never
stalls the event loop (and with it every other connection a gateway serves).
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
