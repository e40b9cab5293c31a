"""Wire vocabulary of the market-data tools; each value is the string on the wire."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["AssetType", "Bounds", "Interval"]


class Interval(StrEnum):
    """The width of one historicals bar."""

    SECOND_15 = "15second"
    MINUTE_5 = "5minute"
    MINUTE_10 = "10minute"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    MONTH_3 = "3month"
    YEAR = "year"
    YEAR_5 = "5year"
    YEAR_10 = "10year"
    YEAR_50 = "50year"


class Bounds(StrEnum):
    """Which sessions' bars a historicals answer holds."""

    REGULAR = "regular"
    EXTENDED = "extended"
    TRADING = "trading"
    H24_5 = "24_5"
    H24_7 = "24_7"


class AssetType(StrEnum):
    """What ``search`` looks for."""

    EQUITY = "equity"
    CRYPTO = "crypto"
    INDEX = "index"
