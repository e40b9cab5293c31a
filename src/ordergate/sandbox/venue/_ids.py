"""Deterministic identifiers: the same seed and the same sequence of calls give the same ids."""

from __future__ import annotations

import hashlib
import uuid

__all__ = ["IdFactory", "stable_uuid"]

_NAMESPACE = uuid.UUID("6f9f3a2e-8f57-4d0b-9a57-0b6f7c1e2d10")


def stable_uuid(*parts: object) -> str:
    """A UUID fixed by its parts (for instruments, chains, pairs: the same everywhere)."""
    return str(uuid.uuid5(_NAMESPACE, "|".join(str(p) for p in parts)))


class IdFactory:
    """Fresh ids in sequence, derived from the seed (UUID version 4 layout); ``namespace``
    (a sandbox user's name) draws a sequence and account numbers of its own from the same
    seed, ``""`` the sandbox's one unnamed user's."""

    __slots__ = ("_counter", "_seed")

    def __init__(self, seed: int, namespace: str = "") -> None:
        self._seed = f"{seed}/{namespace}" if namespace else str(seed)
        self._counter = 0

    @property
    def issued(self) -> int:
        """How many ids ``next`` has given so far."""
        return self._counter

    def resume(self, issued: int) -> None:
        """Carry on after ``issued`` ids (a factory reloaded from storage)."""
        self._counter = issued

    def next(self, kind: str) -> str:
        self._counter += 1
        digest = hashlib.blake2b(
            f"{self._seed}|{kind}|{self._counter}".encode(), digest_size=16
        ).digest()
        return str(uuid.UUID(bytes=digest, version=4))

    def account_number(self, kind: str, width: int = 9) -> str:
        digest = hashlib.blake2b(f"{self._seed}|account|{kind}".encode(), digest_size=8).digest()
        number = int.from_bytes(digest, "big") % (10**width)
        return f"{number:0{width}d}"
