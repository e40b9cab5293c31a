"""The sandbox venue's simulated market: listings, seeded prices, options.

``Market(seed, clock)`` answers quotes, closes, books, historicals, index and crypto quotes
and option chains/contracts/quotes, all as pure functions of the seed, the instant asked
about and the shocks applied (the market's one fault knob). NYSE sessions come from
``ordergate.calendar``.
"""

from ordergate.sandbox.market._bars import MAX_BARS, Bar, Bounds, Interval
from ordergate.sandbox.market._blackscholes import Valuation, black_scholes, norm_cdf
from ordergate.sandbox.market._errors import (
    InvalidBounds,
    InvalidInterval,
    MarketError,
    UnknownInstrument,
)
from ordergate.sandbox.market._market import Market
from ordergate.sandbox.market._options import (
    MULTIPLIER,
    MinTicks,
    OptionChain,
    OptionInstrument,
    OptionQuote,
    OptionType,
)
from ordergate.sandbox.market._quotes import (
    Book,
    BookLevel,
    Close,
    CryptoQuote,
    IndexQuote,
    Quote,
    QuoteState,
)
from ordergate.sandbox.market._universe import (
    CryptoPair,
    Equity,
    EquityKind,
    Index,
    OptionUnderlying,
    SearchResult,
    Tradability,
    Universe,
    instrument_uuid,
)

__all__ = [
    "MAX_BARS",
    "MULTIPLIER",
    "Bar",
    "Book",
    "BookLevel",
    "Bounds",
    "Close",
    "CryptoPair",
    "CryptoQuote",
    "Equity",
    "EquityKind",
    "Index",
    "IndexQuote",
    "Interval",
    "InvalidBounds",
    "InvalidInterval",
    "Market",
    "MarketError",
    "MinTicks",
    "OptionChain",
    "OptionInstrument",
    "OptionQuote",
    "OptionType",
    "OptionUnderlying",
    "Quote",
    "QuoteState",
    "SearchResult",
    "Tradability",
    "Universe",
    "UnknownInstrument",
    "Valuation",
    "black_scholes",
    "instrument_uuid",
    "norm_cdf",
]
