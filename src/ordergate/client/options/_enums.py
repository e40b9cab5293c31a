"""Option vocabulary not shared with other asset classes (values are the wire strings)."""

from __future__ import annotations

from enum import StrEnum

from ordergate.core import OptionType

__all__ = ["OptionType", "PositionType"]


class PositionType(StrEnum):
    """Which side of a contract a position holds."""

    LONG = "long"
    SHORT = "short"
