"""Wire vocabulary of the market-data tools; each value is the string on the wire."""

from __future__ import annotations

from enum import StrEnum

# Historicals' vocabulary is shared with the venue, so it lives in the core types.
from ordergate.core import Bounds, Interval

__all__ = ["AssetType", "Bounds", "Interval"]


class AssetType(StrEnum):
    """What ``search`` looks for."""

    EQUITY = "equity"
    CRYPTO = "crypto"
    INDEX = "index"
