"""Wire vocabulary of the watchlist tools; each value is the string on the wire."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["PositionType"]


class PositionType(StrEnum):
    """Which side of an option contract the option watchlist follows."""

    LONG = "long"
    SHORT = "short"
