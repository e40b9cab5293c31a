from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from ordergate.sandbox.market import (
    EquityKind,
    OptionUnderlying,
    Tradability,
    Universe,
    UnknownInstrument,
    instrument_uuid,
)
from ordergate.sandbox.market._universe import NAMESPACE

U = Universe.default()


def test_universe_lists_at_least_forty_us_equities_and_the_major_etfs() -> None:
    symbols = {e.symbol for e in U.equities}
    assert len(symbols) >= 40
    assert {"AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "JPM", "V"} <= symbols
    assert {"SPY", "QQQ", "IWM", "VTI", "DIA"} <= symbols
    assert all(e.country == "US" for e in U.equities)
    assert {e.kind for e in U.equities} == {EquityKind.STOCK, EquityKind.ETF}
    assert all(e.base_price > 0 and e.spread_bp > 0 for e in U.equities)


def test_instrument_ids_are_uuid5_of_the_fixed_namespace_and_symbol() -> None:
    aapl = U.equity("AAPL")
    assert aapl.instrument_id == str(uuid.uuid5(NAMESPACE, "equity:AAPL"))
    assert Universe.default().equity("AAPL").instrument_id == aapl.instrument_id
    ids = [e.instrument_id for e in U.equities] + [i.instrument_id for i in U.indexes]
    ids += [p.id for p in U.crypto_pairs]
    assert len(set(ids)) == len(ids)
    assert U.by_id(aapl.instrument_id.upper()) is aapl


def test_some_listings_limit_trading_so_tradability_rules_can_be_tested() -> None:
    halted = [e for e in U.equities if not e.tradeable]
    assert halted and all(e.state == "inactive" for e in halted)
    assert U.equity("AAPL").state == "active"
    assert any(
        e.tradeable and e.fractional_tradability is Tradability.UNTRADABLE for e in U.equities
    )
    assert U.equity("BRK.A").fractional_tradability is Tradability.UNTRADABLE
    assert not U.equity("TLRY").shortable


def test_indexes_and_crypto_pairs_are_listed_with_ids_and_sizes() -> None:
    assert {"SPX", "NDX", "DJX", "RUT", "VIX"} <= {i.symbol for i in U.indexes}
    assert U.index("spx").instrument_id == instrument_uuid("index", "SPX")
    pairs = {p.symbol for p in U.crypto_pairs}
    assert {"BTC-USD", "ETH-USD", "SOL-USD", "DOGE-USD"} <= pairs
    btc = U.crypto_pair("btc")
    assert btc.symbol == "BTC-USD" and btc.asset_code == "BTC" and btc.quote_code == "USD"
    assert btc.min_order_size > 0 and btc.asset_increment > 0
    assert btc.asset_currency_id != btc.quote_currency_id
    assert U.by_id(btc.id) is btc


def test_option_underlyings_are_listed_equities() -> None:
    assert {"AAPL", "SPY", "TSLA", "QQQ", "NVDA"} <= {o.symbol for o in U.option_underlyings}
    assert U.option_underlying("aapl").implied_volatility > 0
    with pytest.raises(ValueError):
        Universe(
            equities=[],
            indexes=[],
            crypto_pairs=[],
            option_underlyings=[OptionUnderlying("ZZZ", Decimal("0.3"))],
        )


def test_unknown_symbols_and_ids_raise_unknown_instrument() -> None:
    for lookup in (U.equity, U.index, U.crypto_pair, U.option_underlying, U.by_id):
        with pytest.raises(UnknownInstrument) as caught:
            lookup("NOPE")
        assert caught.value.code == "unknown_instrument"
        assert caught.value.key == "NOPE"


def test_search_ranks_exact_symbol_then_prefix_then_name_words() -> None:
    found = U.search("AMD")
    assert found.equities[0].symbol == "AMD"
    assert [e.symbol for e in U.search("goog").equities][:2] == ["GOOG", "GOOGL"]
    assert U.search("apple").equities[0].symbol == "AAPL"
    assert U.search("bitcoin").crypto_pairs[0].symbol == "BTC-USD"
    assert U.search("S&P").indexes[0].symbol == "SPX"
    assert "TSLA" in {e.symbol for e in U.search("esl").equities}  # substring of the name


def test_search_honours_limit_and_ignores_empty_queries() -> None:
    assert len(U.search("a", limit=3).equities) == 3
    assert U.search("  ").equities == ()
    assert U.search("AAPL", limit=0).equities == ()
    assert U.search("zzzzzz").equities == ()
