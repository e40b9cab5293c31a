"""What the options desk needs from the market: contracts, chains, quotes and the underlying.

The desk reads prices only through ``OptionMarket``, as the equity and crypto desks do
through theirs, so one desk runs on the venue's seeded market (``VenueOptionMarket``) or on
quotes observed elsewhere (``ObservedOptionPrices``: what paper trading reads from the
upstream broker). A market with no usable quote of a contract at an instant answers
``None``: the desk then refuses what needs a price (an order, a mark), lets a resting order
wait and leaves an expired position unsettled until the underlying's price at the
expiration is known. It never invents one.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Protocol

from ordergate.sandbox.market import (
    Market,
    OptionChain,
    OptionInstrument,
    OptionQuote,
    UnknownInstrument,
)

__all__ = ["OptionMarket", "VenueOptionMarket"]


class OptionMarket(Protocol):
    """The market as the options desk reads it."""

    def instrument(self, option_id: str) -> OptionInstrument | None:
        """The contract listed as ``option_id`` (lower case), open or expired, or ``None``."""
        ...

    def chain(self, symbol: str) -> OptionChain | None:
        """The option chain of the underlying ``symbol`` (upper case), or ``None``."""
        ...

    def quote(self, option_id: str, at: datetime) -> OptionQuote | None:
        """The quote of a listed contract at ``at`` (never later than the venue clock);
        ``None`` when the market has no usable price for it then."""
        ...

    def underlying_price(self, instrument: OptionInstrument, at: datetime) -> Decimal | None:
        """The price of ``instrument``'s underlying at ``at`` (what an expiration settles
        at); ``None`` when the market has no usable price for it then."""
        ...


class VenueOptionMarket:
    """``OptionMarket`` over the venue's seeded ``Market``."""

    def __init__(self, market: Market) -> None:
        self._market = market

    def instrument(self, option_id: str) -> OptionInstrument | None:
        try:
            return self._market.option_instrument(option_id)
        except UnknownInstrument:
            return None

    def chain(self, symbol: str) -> OptionChain | None:
        try:
            return self._market.option_chain(symbol)
        except UnknownInstrument:
            return None

    def quote(self, option_id: str, at: datetime) -> OptionQuote:
        return self._market.option_quote(option_id, at)

    def underlying_price(self, instrument: OptionInstrument, at: datetime) -> Decimal:
        return self._market.option_quote(instrument.id, at).underlying_price
