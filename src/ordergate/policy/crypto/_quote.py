"""``CryptoQuote`` and ``CryptoPairRules``: a pair's best bid and ask, and what the venue takes.

Both are plain values a crypto lane answers (``ordergate.venues.CryptoLane``); the policy
weighs an order against them and never reads a venue itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

__all__ = ["CryptoPairRules", "CryptoQuote"]


@dataclass(frozen=True, slots=True)
class CryptoQuote:
    """A pair's best bid and ask at ``at`` (the venue's time). A non-positive price counts as
    absent (``None``)."""

    pair: str
    bid: Decimal | None
    ask: Decimal | None
    at: datetime | None

    @property
    def crossed(self) -> bool:
        """The bid above the ask: a quote nothing may be priced on."""
        return self.bid is not None and self.ask is not None and self.bid > self.ask


@dataclass(frozen=True, slots=True)
class CryptoPairRules:
    """What the venue takes for one pair, from its trading pairs: the smallest and largest
    order (units of the asset), the size step and the price tick, and whether it trades now.
    A step or tick the venue did not give is ``None`` (the check that needs it refuses)."""

    pair: str
    min_order_size: Decimal
    max_order_size: Decimal | None
    asset_increment: Decimal | None
    quote_increment: Decimal | None
    tradable: bool
