"""Option vocabulary not shared with other asset classes (values are the wire strings)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["OptionType", "PositionType"]


class OptionType(StrEnum):
    CALL = "call"
    PUT = "put"


class PositionType(StrEnum):
    """Which side of a contract a position holds."""

    LONG = "long"
    SHORT = "short"
