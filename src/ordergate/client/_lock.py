"""An inter-process lock beside the token file: ``fcntl.flock`` on ``<token_file>.lock``.

Robinhood rotates refresh tokens, so two processes that refresh at once would both spend the
same refresh token and one of them would be signed out. Whoever refreshes holds this lock
from re-reading the file until the new set is written.

``flock`` locks belong to an open file, so two tasks of one process that each open the lock
file exclude each other too; the kernel drops the lock when its holder dies.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from ordergate.core import ToolError, ensure_private_dir

__all__ = ["lock_path", "token_file_lock"]

# A non-blocking attempt, retried: a blocking flock in a worker thread could not be
# cancelled, and the wait has to be bounded.
_RETRY_S = 0.01


def lock_path(token_file: Path) -> Path:
    return token_file.with_name(token_file.name + ".lock")


@asynccontextmanager
async def token_file_lock(token_file: Path, *, timeout_s: float = 30.0) -> AsyncIterator[None]:
    """Hold the lock of ``token_file``; ``ToolError`` (code ``token_lock``) if it is not free
    within ``timeout_s``."""
    path = lock_path(token_file)
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            with anyio.fail_after(timeout_s):
                while not _try_lock(fd):
                    await anyio.sleep(_RETRY_S)
        except TimeoutError:
            raise ToolError(
                f"another process held the token lock {path} for {timeout_s:g} s",
                code="token_lock",
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
