"""What the crypto desk needs from the market: the listed pairs and their quotes at an instant.

The desk reads prices only through ``CryptoMarket``, as the equity desk does through
``EquityMarket``, so one desk runs on the venue's seeded market (``VenueCryptoMarket``) or on
quotes observed elsewhere (``ObservedCryptoPrices``: what paper trading reads from the
upstream broker). A market with no usable quote for a pair at an instant answers ``None``:
the desk then refuses what needs a price (an order, a mark) and lets a resting order wait. It
never invents one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from ordergate.sandbox.market import CryptoPair, CryptoQuote, Market, UnknownInstrument

__all__ = ["CryptoMarket", "VenueCryptoMarket"]


class CryptoMarket(Protocol):
    """The market as the crypto desk reads it."""

    def pair(self, symbol: str) -> CryptoPair | None:
        """The pair listed as ``symbol`` (upper case, ``BTC-USD``), or ``None``."""
        ...

    def pairs(self) -> tuple[CryptoPair, ...]:
        """Every pair listed now."""
        ...

    def quote(self, symbol: str, at: datetime) -> CryptoQuote | None:
        """The quote of a listed pair at ``at`` (never later than the venue clock); ``None``
        when the market has no usable price for it then."""
        ...


class VenueCryptoMarket:
    """``CryptoMarket`` over the venue's seeded ``Market``."""

    def __init__(self, market: Market) -> None:
        self._market = market

    def pair(self, symbol: str) -> CryptoPair | None:
        try:
            return self._market.universe.crypto_pair(symbol)
        except UnknownInstrument:
            return None

    def pairs(self) -> tuple[CryptoPair, ...]:
        return tuple(self._market.universe.crypto_pairs)

    def quote(self, symbol: str, at: datetime) -> CryptoQuote:
        return self._market.crypto_quote(symbol, at)
