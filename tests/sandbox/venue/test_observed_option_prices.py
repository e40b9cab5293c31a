"""The options desk on observed quotes: no usable price is never an invented one.

The desk reads contracts and quotes through ``ObservedOptionPrices`` fed by the test (as
paper trading feeds it from the upstream's ``get_option_instruments`` and
``get_option_quotes``) and the underlying's price from an equity feed: an order without a
usable quote is refused, a resting order waits for one, a stale quote is no quote, and an
expired position settles only on an observed price of the underlying at the close.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from derivatives_testkit import FRIDAY_CLOSE, START, Desks, build, leg

from ordergate.sandbox.engine import (
    EquityListing,
    EquityQuote,
    ObservedOptionPrices,
    ObservedPrices,
    VenueOptionMarket,
)
from ordergate.sandbox.market import OptionInstrument, OptionQuote
from ordergate.sandbox.tools import VenueError


def _observed(
    max_age: timedelta | None = timedelta(minutes=1),
) -> tuple[Desks, ObservedOptionPrices, ObservedPrices]:
    """A venue whose options desk reads observed quotes, the seeded contracts listed."""
    equities = ObservedPrices(max_age=max_age)
    prices = ObservedOptionPrices(equities, max_age=max_age)
    d = build(option_market=prices)
    seeded = VenueOptionMarket(d.venue.market)
    for kind in ("call", "put"):
        for offset in (0, 1):
            instrument = seeded.instrument(d.option(kind, offset=offset).id)
            assert instrument is not None
            prices.list(instrument)
    equities.list(
        EquityListing(symbol="AAPL", instrument_id="aapl-id", name="Apple", simple_name="Apple")
    )
    return d, prices, equities


def _quote(d: Desks, instrument: OptionInstrument, at: datetime, **moved: Decimal) -> OptionQuote:
    """The seeded quote of ``instrument`` stamped ``at`` (with any field moved)."""
    seeded = d.venue.market.option_quote(instrument.id)
    return dataclasses.replace(seeded, updated_at=at, **moved)


def _spot(symbol: str, last: str, at: datetime) -> EquityQuote:
    price = Decimal(last)
    return EquityQuote(
        symbol=symbol,
        bid=price,
        ask=price,
        last=price,
        bid_size=Decimal(100),
        ask_size=Decimal(100),
        previous_close=price,
        previous_close_date=None,
        at=at,
        last_trade_at=at,
    )


def test_an_order_without_any_quote_is_refused_unavailable_and_nothing_is_placed() -> None:
    d, _, _ = _observed()
    call = d.option("call")
    error = d.error("place_option_order", **d.option_args(leg(call.id), quantity="1", price="5"))
    assert (error["code"], error["field"]) == ("UNAVAILABLE", "symbol")
    assert d.options.orders(d.number) == []


def test_a_contract_the_feed_never_listed_is_not_found() -> None:
    d, _, _ = _observed()
    unlisted = d.option("call", offset=3)
    error = d.error(
        "review_option_order", **d.option_args(leg(unlisted.id), quantity="1", price="5")
    )
    assert error["field"].startswith("legs")
    assert error["code"] != "UNAVAILABLE"


def test_observing_an_unlisted_contract_is_refused() -> None:
    d, prices, _ = _observed()
    with pytest.raises(KeyError, match="not listed"):
        prices.observe(_quote(d, d.option("call", offset=3), START))


def test_a_limit_buy_fills_at_the_observed_ask_and_waits_while_the_quote_is_stale() -> None:
    d, prices, _ = _observed()
    call = d.option("call")
    prices.observe(_quote(d, call, START, ask_price=Decimal("2.00"), bid_price=Decimal("1.90")))
    order = d.place_option(leg(call.id), quantity="1", price="1.95", time_in_force="gtc")
    d.advance(minutes=5)  # the ask is above the limit, then the only quote is stale
    assert d.option_order(order["id"])["state"] == "confirmed"
    at = d.clock.now()
    prices.observe(_quote(d, call, at - timedelta(minutes=2), ask_price=Decimal("1.90")))
    d.advance(2)  # crossing, but older than max_age: no quote
    assert d.option_order(order["id"])["state"] == "confirmed"
    prices.observe(_quote(d, call, at, ask_price=Decimal("1.95"), bid_price=Decimal("1.85")))
    d.advance(2)
    filled = d.option_order(order["id"])
    assert filled["state"] == "filled"
    assert filled["legs"][0]["executions"][0]["price"] == "1.95"
    assert d.agentic.cash == Decimal("100000.00") - Decimal("195.00")


def test_a_mark_without_a_usable_quote_is_refused_unavailable() -> None:
    d, prices, _ = _observed()
    call = d.option("call")
    prices.observe(_quote(d, call, START, ask_price=Decimal("2.00"), bid_price=Decimal("1.90")))
    d.place_option(leg(call.id), quantity="1", price="2.00")
    d.advance(2)
    assert d.options.positions.quantity(d.number, call.id) == 1
    assert d.options.market_value(d.number) == d.quote(call.id).mark_price * 100
    d.advance(minutes=5)
    with pytest.raises(VenueError) as raised:
        d.options.market_value(d.number)
    assert raised.value.code == "UNAVAILABLE"


def test_an_expired_position_waits_for_the_underlyings_price_then_settles_at_it() -> None:
    d, prices, equities = _observed()
    call = d.option("call")
    prices.observe(_quote(d, call, START, ask_price=Decimal("2.00"), bid_price=Decimal("1.90")))
    d.place_option(leg(call.id), quantity="1", price="2.00")
    d.advance(2)
    assert d.options.positions.quantity(d.number, call.id) == 1
    d.set_time(FRIDAY_CLOSE + timedelta(minutes=1))
    assert d.options.positions.quantity(d.number, call.id) == 1  # no price at the close yet
    cash = d.agentic.cash
    spot = call.strike_price + Decimal("3.25")
    equities.observe(_spot("AAPL", str(spot), FRIDAY_CLOSE - timedelta(seconds=5)))
    d.advance(1)
    assert d.options.positions.held() == []
    assert d.agentic.cash == cash + Decimal("325.00")
    (trade,) = d.options.closed_trades(d.number)
    assert (trade.close_price, trade.closed_at) == (Decimal("3.25"), FRIDAY_CLOSE)


def test_a_covered_calls_review_names_the_underlying_from_its_chain_or_its_listing() -> None:
    d, prices, _ = _observed()
    d.give_shares("AAPL", 100)
    call = d.option("call")
    prices.observe(_quote(d, call, START))
    args = d.option_args(leg(call.id, "sell"), quantity="1", price="0.01")
    listing = d.equity.listing("AAPL")
    assert listing is not None
    review = d.call("review_option_order", **args)
    assert review["collateral"]["equities"][0]["instrument_id"] == listing.instrument_id
    chain = d.venue.market.option_chain("AAPL")
    prices.list_chain(dataclasses.replace(chain, underlying_instrument_id="from-the-chain"))
    review = d.call("review_option_order", **args)
    assert review["collateral"]["equities"][0]["instrument_id"] == "from-the-chain"
    assert prices.chain("MSFT") is None


def test_the_seeded_option_market_knows_no_chain_or_contract_it_does_not_list() -> None:
    d = build()
    seeded = VenueOptionMarket(d.venue.market)
    assert seeded.chain("NOPE") is None
    assert seeded.instrument("00000000-0000-0000-0000-000000000000") is None
    call = d.option("call")
    assert seeded.underlying_price(call, START) == d.quote(call.id).underlying_price
