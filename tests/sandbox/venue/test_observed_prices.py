"""The equity desk on observed prices: no usable price is never an invented one.

The desk reads quotes through ``ObservedPrices`` fed by the test (as paper trading feeds it
from the upstream broker): a market order without a usable quote is refused, a resting order
waits for one, a stale quote is no quote, and a split the feed announces re-bases the lots.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from equity_testkit import START, TOOLS, Harness, ScriptedMarket
from sandbox_testkit import tool_table

from ordergate.core import SteppedClock
from ordergate.sandbox.market import Market
from ordergate.sandbox.venue import Venue, stable_uuid
from ordergate.sandbox.venue._equity import EquityDesk
from ordergate.sandbox.venue._equity_market import EquityListing, EquityQuote, VenueEquityMarket
from ordergate.sandbox.venue._observed_prices import ObservedPrices


def _observed(max_age: timedelta | None = timedelta(minutes=1)) -> Harness:
    clock = SteppedClock(start=START)
    venue = Venue(seed=1, clock=clock)
    prices = ObservedPrices(calendar=venue.market.calendar, max_age=max_age)
    market = ScriptedMarket(clock, prices)
    market.list("AAPL")
    desk = EquityDesk(venue, market=prices)
    venue.add_desk(desk)
    return Harness(clock=clock, venue=venue, table=tool_table(TOOLS), market=market, desk=desk)


def _quote(symbol: str, last: str, at: datetime) -> EquityQuote:
    price = Decimal(last)
    return EquityQuote(
        symbol=symbol,
        bid=price - Decimal("0.01"),
        ask=price + Decimal("0.01"),
        last=price,
        bid_size=Decimal(100),
        ask_size=Decimal(100),
        previous_close=price,
        previous_close_date=date(2026, 11, 30),
        at=at,
        last_trade_at=at,
    )


def test_a_market_order_without_any_quote_is_refused_unavailable() -> None:
    h = _observed()
    error = h.error(
        "place_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="market", quantity="1"),
    )
    assert (error["code"], error["field"]) == ("UNAVAILABLE", "symbol")
    assert h.desk.orders(h.agentic.account_number) == []


def test_a_dollar_amount_without_a_quote_is_refused_unavailable() -> None:
    h = _observed()
    error = h.error(
        "place_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="market", dollar_amount="10.00"),
    )
    assert error["code"] == "UNAVAILABLE"


def test_a_review_without_a_quote_is_refused_unavailable() -> None:
    h = _observed()
    error = h.error(
        "review_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="limit", limit_price="100", quantity="1"),
    )
    assert (error["code"], error["field"]) == ("UNAVAILABLE", "symbol")


def test_a_resting_limit_order_waits_without_a_quote_and_fills_once_one_is_observed() -> None:
    h = _observed()
    placed = h.place(symbol="AAPL", side="buy", type="limit", limit_price="100.00", quantity="2")
    h.advance(30)
    assert h.order(placed["id"])["state"] == "confirmed"
    h.market.set("AAPL", "99.98", "100.00", last="99.99")
    h.advance(2)
    order = h.order(placed["id"])
    assert order["state"] == "filled"
    assert order["executions"][0]["price"] == "100.00"


def test_a_quote_older_than_max_age_is_no_usable_price() -> None:
    h = _observed(max_age=timedelta(minutes=1))
    h.market.set("AAPL", "99.98", "100.00")
    h.advance(61)
    error = h.error(
        "place_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="market", quantity="1"),
    )
    assert error["code"] == "UNAVAILABLE"


def test_a_resting_order_does_not_fill_on_a_stale_quote() -> None:
    h = _observed(max_age=timedelta(minutes=1))
    # An ask under the limit, observed two minutes before the order is placed and never
    # since: the order waits rather than fill on it.
    h.market.set("AAPL", "99.00", "99.02")
    h.advance(120)
    placed = h.place(symbol="AAPL", side="buy", type="limit", limit_price="100.00", quantity="1")
    h.advance(30)
    assert h.order(placed["id"])["state"] == "confirmed"
    h.market.set("AAPL", "99.00", "99.02")
    h.advance(2)
    assert h.order(placed["id"])["state"] == "filled"


def test_a_position_without_a_usable_quote_is_not_marked_unavailable() -> None:
    h = _observed(max_age=timedelta(minutes=1))
    h.market.set("AAPL", "99.98", "100.00")
    h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    h.advance(2)
    h.advance(120)
    account = h.agentic.account_number
    error = h.error("get_equity_positions", account_number=account)
    assert (error["code"], error["field"]) == ("UNAVAILABLE", "symbol")
    assert h.error("get_portfolio", account_number=account)["code"] == "UNAVAILABLE"


def test_observations_older_than_the_window_are_dropped_but_the_window_still_answers() -> None:
    prices = ObservedPrices(max_age=timedelta(seconds=10))
    prices.list(_listing("AAPL"))
    for second in range(1_000):
        prices.observe(_quote("AAPL", "100.00", START + timedelta(seconds=second)))
    newest = START + timedelta(seconds=999)
    kept = prices._observed["AAPL"].instants
    assert len(kept) == 11
    assert prices.quote("AAPL", newest - timedelta(seconds=10)) is not None
    assert prices.quote("AAPL", newest + timedelta(seconds=11)) is None


def test_an_observation_of_a_past_instant_keeps_the_one_that_answers_before_it() -> None:
    # Paper observes the close a later quote reports at the close's instant: an order placed
    # half an hour before it, its book read again only hours later, still finds the price
    # of its placement (it fills at it), not nothing until the close (and expires).
    prices = ObservedPrices(max_age=timedelta(minutes=1))
    prices.list(_listing("AAPL"))
    prices.observe(_quote("AAPL", "100.00", START))
    prices.observe(_quote("AAPL", "104.00", START + timedelta(hours=3)))
    prices.observe(_quote("AAPL", "102.00", START + timedelta(minutes=30)))
    placed = prices.quote("AAPL", START + timedelta(seconds=2))
    assert placed is not None and placed.last == Decimal("100.00")
    close = prices.quote("AAPL", START + timedelta(minutes=30, seconds=2))
    assert close is not None and close.last == Decimal("102.00")
    # The next newest observation moves the window on as before.
    prices.observe(_quote("AAPL", "105.00", START + timedelta(hours=6)))
    assert prices.quote("AAPL", START + timedelta(seconds=2)) is None


def test_the_same_instant_observed_again_replaces_the_earlier_observation() -> None:
    prices = ObservedPrices()
    prices.list(_listing("AAPL"))
    prices.observe(_quote("AAPL", "100.00", START))
    prices.observe(_quote("AAPL", "101.00", START))
    quote = prices.quote("AAPL", START)
    assert quote is not None and quote.last == Decimal("101.00")


def test_a_quote_answers_with_its_own_instant_and_nothing_before_the_first() -> None:
    prices = ObservedPrices()
    prices.list(_listing("AAPL"))
    prices.observe(_quote("AAPL", "100.00", START))
    assert prices.quote("AAPL", START - timedelta(microseconds=1)) is None
    later = prices.quote("AAPL", START + timedelta(seconds=5))
    assert later is not None and later.at == START
    assert prices.quote("MSFT", START) is None


def test_an_unlisted_symbol_cannot_be_observed_or_split() -> None:
    prices = ObservedPrices()
    with pytest.raises(KeyError):
        prices.observe(_quote("AAPL", "100.00", START))
    with pytest.raises(KeyError):
        prices.split("AAPL", Decimal(2), START)


@pytest.mark.parametrize("ratio", ["1", "0", "-2", "NaN"])
def test_a_split_ratio_that_is_not_positive_or_is_one_is_refused(ratio: str) -> None:
    prices = ObservedPrices()
    prices.list(_listing("AAPL"))
    with pytest.raises(ValueError):
        prices.split("AAPL", Decimal(ratio), START)


def test_max_age_must_be_positive() -> None:
    with pytest.raises(ValueError):
        ObservedPrices(max_age=timedelta(0))
    assert ObservedPrices(max_age=timedelta(seconds=5)).max_age == timedelta(seconds=5)


def test_the_venue_refuses_a_split_while_an_order_in_the_symbol_is_open() -> None:
    h = _observed(max_age=None)
    h.market.set("AAPL", "99.98", "100.00")
    h.place(symbol="AAPL", side="buy", type="limit", limit_price="90.00", quantity="1")
    with pytest.raises(ValueError):
        h.desk.split("AAPL", Decimal(2))
    assert h.market.prices.splits() == []


def test_a_split_the_feed_announces_rebases_every_lot_at_its_instant() -> None:
    h = _observed(max_age=None)
    h.market.set("AAPL", "99.98", "100.00", last="99.99")
    h.place(symbol="AAPL", side="buy", type="market", quantity="3")
    h.advance(2)
    rest = h.place(symbol="AAPL", side="sell", type="limit", limit_price="150.00", quantity="1")
    h.advance(2)
    at = h.clock.now() + timedelta(seconds=10)
    h.market.prices.split("AAPL", Decimal(2), at)
    h.market.set("AAPL", "49.99", "50.01", last="50.00", at=at)
    h.advance(20)
    account = h.agentic.account_number
    [lot] = h.call("get_equity_tax_lots", account_number=account, symbol="AAPL")["tax_lots"]
    assert (lot["quantity"], lot["cost_basis_per_share"], lot["cost_basis"]) == (
        "6",
        "50.00",
        "300.00",
    )
    [position] = h.call("get_equity_positions", account_number=account)["positions"]
    assert (position["average_buy_price"], position["unrealized_pnl"]) == ("50.0000", "0.00")
    # The open sell named pre-split shares and prices: cancelled at the split's instant.
    cancelled = h.order(rest["id"])
    assert cancelled["state"] == "cancelled"
    assert cancelled["last_transaction_at"] == at.isoformat().replace("+00:00", "") + ".000000Z"


def test_the_seeded_market_records_the_splits_it_makes() -> None:
    clock = SteppedClock(start=START)
    feed = VenueEquityMarket(Market(seed=3, clock=clock))
    before = feed.quote("AAPL", START)
    feed.split("AAPL", Decimal(4), START)
    after = feed.quote("AAPL", START)
    assert [(s.symbol, s.ratio, s.at) for s in feed.splits()] == [("AAPL", Decimal(4), START)]
    assert after.last * 4 == pytest.approx(before.last, abs=Decimal("0.04"))


def _listing(symbol: str) -> EquityListing:
    return EquityListing(
        symbol=symbol,
        instrument_id=stable_uuid("equity", symbol),
        name=symbol,
        simple_name=symbol,
    )


assert START.tzinfo is UTC
