"""The sandbox venue's equity engine, run in process on any price feed and kept in
ordergate's database: what paper trading runs (see ``EquityEngine``).

``ObservedPrices`` is the feed made of quotes handed to it (what paper reads from the
upstream); ``EquityQuote``, ``EquityListing`` and ``Split`` are what it is handed, and
``observed_quote`` turns an upstream ``get_equity_quotes`` entry into an ``EquityQuote``
(``observed_option_instrument`` and ``observed_option_quote`` do the same for an option
contract and its quote).
``ObservedCryptoPrices`` is the crypto desk's feed of the same kind (``CryptoMarket``; the
seeded one is ``VenueCryptoMarket``), ``ObservedOptionPrices`` the options desk's
(``OptionMarket``; the seeded one is ``VenueOptionMarket``).
"""

from ordergate.sandbox.engine._engine import (
    ENGINE_TOOLS,
    READ_TOOLS,
    BookMismatch,
    EquityEngine,
    Wanted,
)
from ordergate.sandbox.engine._upstream import (
    observed_option_instrument,
    observed_option_quote,
    observed_quote,
)
from ordergate.sandbox.venue._crypto_market import CryptoMarket, VenueCryptoMarket
from ordergate.sandbox.venue._equity_market import (
    EquityListing,
    EquityMarket,
    EquityQuote,
    Split,
    VenueEquityMarket,
)
from ordergate.sandbox.venue._observed_prices import (
    DEFAULT_MAX_AGE,
    ObservedCryptoPrices,
    ObservedOptionPrices,
    ObservedPrices,
)
from ordergate.sandbox.venue._option_market import OptionMarket, VenueOptionMarket

__all__ = [
    "DEFAULT_MAX_AGE",
    "ENGINE_TOOLS",
    "READ_TOOLS",
    "BookMismatch",
    "CryptoMarket",
    "EquityEngine",
    "EquityListing",
    "EquityMarket",
    "EquityQuote",
    "ObservedCryptoPrices",
    "ObservedOptionPrices",
    "ObservedPrices",
    "OptionMarket",
    "Split",
    "VenueCryptoMarket",
    "VenueEquityMarket",
    "VenueOptionMarket",
    "Wanted",
    "observed_option_instrument",
    "observed_option_quote",
    "observed_quote",
]
