"""The account's turn held as another process holds it — an exclusive ``flock`` on the SQLite
ledger's ``<database>.turn`` file — and a short bound for the turns a test opens after."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ordergate.ledger import _turns

SHORT_S = 0.2
"""The bound a refused wait waits out."""


@contextmanager
def turn_held_elsewhere(database: str | os.PathLike[str]) -> Iterator[None]:
    """Every account's turn on the SQLite ledger at ``database`` held for the block."""
    descriptor = os.open(f"{os.fspath(database)}.turn", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def impatient_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turns opened from now on wait ``SHORT_S`` at most."""
    monkeypatch.setattr(_turns, "TURN_BOUND_S", SHORT_S)
