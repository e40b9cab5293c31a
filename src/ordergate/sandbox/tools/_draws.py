"""Deterministic draws for generated research data: the same parts always give the same values.

A ``Draws`` is keyed by its parts (the venue seed, a symbol, a topic…) and hands out a
sequence of integers from BLAKE2b of the key and a counter. Decimals are built from those
integers, so no binary floating point touches the numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from decimal import Decimal
from typing import TypeVar

__all__ = ["Draws"]

_T = TypeVar("_T")


class Draws:
    __slots__ = ("_count", "_key")

    def __init__(self, *parts: object) -> None:
        self._key = "|".join(str(part) for part in parts)
        self._count = 0

    def _next(self) -> int:
        self._count += 1
        digest = hashlib.blake2b(f"{self._key}#{self._count}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big")

    def integer(self, low: int, high: int) -> int:
        """A whole number in ``[low, high]``."""
        return low + self._next() % (high - low + 1)

    def decimal(self, low: str, high: str, places: int) -> Decimal:
        """A decimal in ``[low, high]`` with ``places`` digits after the point."""
        scale = 10**places
        lo = int(Decimal(low) * scale)
        hi = int(Decimal(high) * scale)
        return Decimal(self.integer(lo, hi)).scaleb(-places)

    def chance(self, percent: int) -> bool:
        """True ``percent`` times in a hundred."""
        return self.integer(0, 99) < percent

    def pick(self, items: Sequence[_T]) -> _T:
        return items[self.integer(0, len(items) - 1)]
