"""The crypto desk on observed quotes: no usable price is never an invented one.

The desk reads quotes through ``ObservedCryptoPrices`` fed by the test (as paper trading
feeds it from the upstream's ``get_crypto_quotes``): a market order without a usable quote
is refused, a resting order waits for one, a stale quote is no quote, and the pair's
increments and sizes are the ones it was listed with.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from derivatives_testkit import SATURDAY, Desks, build

from ordergate.sandbox.engine import ObservedCryptoPrices
from ordergate.sandbox.market import CryptoPair, CryptoQuote, Universe


def _pair(symbol: str = "BTC-USD") -> CryptoPair:
    return Universe.default().crypto_pair(symbol)


def _quote(symbol: str, mark: str, at: datetime) -> CryptoQuote:
    price = Decimal(mark)
    return CryptoQuote(
        symbol=symbol,
        id=_pair(symbol).id,
        bid_price=price - Decimal("0.50"),
        ask_price=price + Decimal("0.50"),
        mark_price=price,
        open_price=price,
        high_price=price,
        low_price=price,
        volume=Decimal(1000),
        updated_at=at,
    )


def _observed(
    max_age: timedelta | None = timedelta(minutes=1),
) -> tuple[Desks, ObservedCryptoPrices]:
    prices = ObservedCryptoPrices(max_age=max_age)
    prices.list(_pair("BTC-USD"))
    return build(start=SATURDAY, crypto_market=prices), prices


def test_a_market_order_without_any_quote_is_refused_unavailable() -> None:
    d, _ = _observed()
    error = d.error(
        "place_crypto_order",
        **d.crypto_args(symbol="BTC-USD", side="buy", type="market", quantity="0.01"),
    )
    assert (error["code"], error["field"]) == ("UNAVAILABLE", "symbol")
    assert d.crypto.orders(d.number) == []


def test_a_market_buy_fills_at_the_observed_ask() -> None:
    d, prices = _observed()
    prices.observe(_quote("BTC-USD", "50000.00", SATURDAY))
    order = d.place_crypto(symbol="BTC-USD", side="buy", type="market", quantity="0.1")
    prices.observe(_quote("BTC-USD", "50010.00", SATURDAY + timedelta(seconds=2)))
    d.advance(2)
    filled = d.crypto_order(order["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["price"] == "50010.50"
    assert d.agentic.cash == Decimal("100000.00") - Decimal("5001.05")


def test_a_resting_limit_waits_without_a_quote_and_fills_once_one_crosses_it() -> None:
    d, prices = _observed()
    prices.observe(_quote("BTC-USD", "50000.00", SATURDAY))
    order = d.place_crypto(
        symbol="BTC", side="buy", type="limit", quantity="0.1", limit_price="49000.00"
    )
    assert order["symbol"] == "BTC-USD"
    d.advance(minutes=5)  # the only quote is now stale: nothing to look at
    assert d.crypto_order(order["id"])["state"] == "confirmed"
    prices.observe(_quote("BTC-USD", "48000.00", SATURDAY + timedelta(minutes=5, seconds=1)))
    d.advance(2)
    filled = d.crypto_order(order["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["price"] == "48000.50"


def test_a_quote_older_than_max_age_is_no_quote() -> None:
    d, prices = _observed(max_age=timedelta(seconds=30))
    prices.observe(_quote("BTC-USD", "50000.00", SATURDAY))
    d.advance(31)
    error = d.error(
        "preview_crypto_order",
        **d.crypto_args(symbol="BTC-USD", side="buy", type="market", quantity="0.01"),
    )
    assert error["code"] == "UNAVAILABLE"
    assert prices.quote("BTC-USD", SATURDAY + timedelta(seconds=30)) is not None
    assert prices.quote("BTC-USD", SATURDAY - timedelta(seconds=1)) is None


def test_holdings_are_not_marked_without_a_usable_quote() -> None:
    d, prices = _observed()
    prices.observe(_quote("BTC-USD", "50000.00", SATURDAY))
    d.place_crypto(symbol="BTC-USD", side="buy", type="market", quantity="0.1")
    prices.observe(_quote("BTC-USD", "50000.00", SATURDAY + timedelta(seconds=2)))
    d.advance(2)
    assert d.call("get_crypto_positions", rhs_account_number=d.rhs)["positions"]
    d.advance(minutes=2)
    error = d.error("get_crypto_positions", rhs_account_number=d.rhs)
    assert error["code"] == "UNAVAILABLE"


def test_the_pairs_listed_increments_and_sizes_are_the_ones_checked() -> None:
    d, prices = _observed()
    prices.list(dataclasses.replace(_pair("BTC-USD"), min_order_size=Decimal("0.5")))
    prices.observe(_quote("BTC-USD", "50000.00", SATURDAY))
    error = d.error(
        "place_crypto_order",
        **d.crypto_args(symbol="BTC-USD", side="buy", type="market", quantity="0.1"),
    )
    assert error["field"] == "quantity"
    assert "0.5" in error["message"]


def test_a_pair_never_listed_is_not_found_and_cannot_be_observed() -> None:
    d, prices = _observed()
    error = d.error(
        "place_crypto_order",
        **d.crypto_args(symbol="ETH-USD", side="buy", type="market", quantity="1"),
    )
    assert (error["code"], error["field"]) == ("NOT_FOUND", "symbol")
    with pytest.raises(KeyError, match="ETH-USD is not listed"):
        prices.observe(_quote("ETH-USD", "3000.00", SATURDAY))


def test_memory_keeps_only_the_window_max_age_can_still_ask_about() -> None:
    prices = ObservedCryptoPrices(max_age=timedelta(seconds=10))
    prices.list(_pair())
    for second in range(100):
        prices.observe(_quote("BTC-USD", str(50000 + second), SATURDAY + timedelta(seconds=second)))
    assert len(prices._observed["BTC-USD"].quotes) == 11
    found = prices.quote("BTC-USD", SATURDAY + timedelta(seconds=99))
    assert found is not None and found.mark_price == Decimal(50099)


def test_the_same_instant_observed_again_replaces_the_earlier_quote() -> None:
    prices = ObservedCryptoPrices(max_age=None)
    prices.list(_pair())
    prices.observe(_quote("BTC-USD", "50000.00", SATURDAY))
    prices.observe(_quote("BTC-USD", "50100.00", SATURDAY))
    found = prices.quote("BTC-USD", SATURDAY + timedelta(days=30))
    assert found is not None and found.mark_price == Decimal("50100.00")
    assert prices.max_age is None


def test_max_age_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_age must be positive"):
        ObservedCryptoPrices(max_age=timedelta(0))
