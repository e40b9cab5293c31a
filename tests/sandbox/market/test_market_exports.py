from __future__ import annotations

import ordergate.sandbox.market as market


def test_market_package_exports_exactly_its_public_names() -> None:
    assert sorted(market.__all__) == sorted(
        [
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
            "UnknownInstrument",
            "Universe",
            "Valuation",
            "black_scholes",
            "instrument_uuid",
            "norm_cdf",
        ]
    )
    assert all(hasattr(market, name) for name in market.__all__)


def test_market_errors_share_one_root() -> None:
    for error in (
        market.UnknownInstrument,
        market.InvalidInterval,
        market.InvalidBounds,
    ):
        assert issubclass(error, market.MarketError)
