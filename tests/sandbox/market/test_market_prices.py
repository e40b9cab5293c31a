from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from market_testkit import et, market_at

from ordergate.calendar import OutOfCalendar, Session
from ordergate.sandbox.market import Market, QuoteState, UnknownInstrument

MONDAY_10 = et(2026, 11, 30, 10, 15)
MARKET, CLOCK = market_at(MONDAY_10)


def test_same_seed_and_instant_give_the_same_quote_whatever_the_call_order() -> None:
    other, _ = market_at(MONDAY_10)
    later = MONDAY_10 + timedelta(hours=3)
    first = other.quote("AAPL", later)
    assert other.quote("AAPL") == MARKET.quote("AAPL")
    assert MARKET.quote("AAPL", later) == first


def test_different_seeds_give_different_prices() -> None:
    other, _ = market_at(MONDAY_10, seed=8)
    symbols = ["AAPL", "MSFT", "SPY", "TSLA"]
    assert [MARKET.price(s) for s in symbols] != [other.price(s) for s in symbols]


def test_prices_are_continuous_second_to_second_during_a_session() -> None:
    previous = MARKET.quote("NVDA", MONDAY_10).last_trade_price
    for step in range(1, 900):
        current = MARKET.quote("NVDA", MONDAY_10 + timedelta(seconds=step)).last_trade_price
        assert abs(current - previous) <= previous * Decimal("0.0005") + Decimal("0.01")
        previous = current


def test_prices_wander_a_few_percent_a_day_around_the_base() -> None:
    aapl = MARKET.universe.equity("AAPL")
    closes = [
        MARKET.close("AAPL", d).price
        for d in MARKET.calendar.session_days(date(2026, 9, 1), date(2026, 11, 25))
    ]
    moves = [abs(b / a - 1) for a, b in itertools.pairwise(closes)]
    assert max(moves) < Decimal("0.12")
    assert Decimal("0.005") < sum(moves) / len(moves) < Decimal("0.03")
    assert all(abs(c / aapl.base_price - 1) < Decimal("0.25") for c in closes)


def test_equities_stand_still_while_the_market_is_closed() -> None:
    saturday = et(2026, 11, 28, 12)
    quotes = [MARKET.quote("AAPL", saturday + timedelta(hours=h)) for h in range(0, 30, 3)]
    assert len({q.last_trade_price for q in quotes}) == 1
    assert all(q.session is Session.CLOSED for q in quotes)
    friday_close = MARKET.quote("AAPL", et(2026, 11, 27, 17))
    assert friday_close.last_trade_price == quotes[0].last_trade_price
    assert quotes[0].venue_last_trade_time == et(2026, 11, 27, 17)


def test_equities_move_overnight_and_in_extended_hours() -> None:
    for start in (et(2026, 11, 29, 21), et(2026, 11, 30, 7, 30), et(2026, 11, 30, 17)):
        prices = {MARKET.price("MSFT", start + timedelta(minutes=m)) for m in range(0, 60, 5)}
        assert len(prices) > 1


def test_crypto_moves_on_saturday() -> None:
    saturday = et(2026, 11, 28, 12)
    marks = {
        MARKET.crypto_quote("BTC-USD", saturday + timedelta(minutes=m)).mark_price
        for m in range(0, 60, 5)
    }
    assert len(marks) > 1


def test_indexes_move_only_in_regular_sessions() -> None:
    evening = [
        MARKET.index_quote("SPX", et(2026, 11, 30, 17) + timedelta(hours=h)) for h in range(6)
    ]
    assert len({q.value for q in evening}) == 1
    assert evening[0].value == MARKET.index_quote("SPX", et(2026, 11, 30, 16)).value
    regular = {MARKET.index_quote("SPX", MONDAY_10 + timedelta(minutes=m)).value for m in range(10)}
    assert len(regular) > 1
    day = MARKET.index_quote("SPX", et(2026, 12, 1, 12))
    assert day.previous_close == evening[0].value
    assert day.previous_close_date == date(2026, 11, 30)
    assert day.session is Session.REGULAR


def test_equity_prices_are_in_cents_above_a_dollar_and_four_places_below() -> None:
    assert MARKET.quote("AAPL").last_trade_price.as_tuple().exponent == -2
    tlry = MARKET.quote("TLRY", et(2026, 6, 1, 11))
    exponent = -2 if tlry.last_trade_price >= 1 else -4
    assert tlry.bid_price.as_tuple().exponent == exponent
    sivbq = MARKET.quote("SIVBQ")
    assert sivbq.last_trade_price == Decimal("0.0520")


def test_crypto_prices_follow_each_pairs_increment() -> None:
    for pair in MARKET.universe.crypto_pairs:
        quote = MARKET.crypto_quote(pair.symbol)
        assert quote.mark_price % pair.quote_increment == 0
        assert quote.bid_price < quote.mark_price < quote.ask_price
        assert quote.low_price <= quote.mark_price <= quote.high_price
        assert quote.volume > 0 and quote.id == pair.id


def test_a_halted_listing_quotes_halted_and_never_moves() -> None:
    quotes = [MARKET.quote("SIVBQ", MONDAY_10 + timedelta(days=d)) for d in range(5)]
    assert {q.state for q in quotes} == {QuoteState.HALTED}
    assert len({q.last_trade_price for q in quotes}) == 1
    assert MARKET.quote("AAPL").state is QuoteState.ACTIVE


def test_quote_carries_previous_regular_close_and_its_date() -> None:
    quote = MARKET.quote("AAPL")
    assert quote.previous_close_date == date(2026, 11, 27)
    assert quote.previous_close == MARKET.close("AAPL", date(2026, 11, 27)).price
    assert quote.previous_close == MARKET.quote("AAPL", et(2026, 11, 27, 13)).last_trade_price
    assert quote.adjusted_previous_close == quote.previous_close
    assert quote.has_traded and quote.instrument_id == MARKET.universe.equity("AAPL").instrument_id
    after_hours = MARKET.quote("AAPL", et(2026, 11, 30, 18))
    assert after_hours.previous_close_date == date(2026, 11, 27)
    overnight = MARKET.quote("AAPL", et(2026, 11, 30, 21))
    assert overnight.previous_close_date == date(2026, 11, 30)


def test_close_defaults_to_the_latest_finished_session() -> None:
    assert MARKET.close("AAPL").date == date(2026, 11, 27)
    evening, _ = market_at(et(2026, 11, 30, 18))
    assert evening.close("AAPL").date == date(2026, 11, 30)
    saturday, _ = market_at(et(2026, 11, 28, 12))
    assert saturday.close("MSFT").date == date(2026, 11, 27)
    close = MARKET.close("AAPL")
    assert not close.interpolated and close.source == "sandbox" and close.symbol == "AAPL"


def test_non_regular_trade_fields_are_set_only_outside_regular_hours() -> None:
    regular = MARKET.quote("AAPL")
    assert regular.last_non_reg_trade_price is None
    assert regular.venue_last_non_reg_trade_time is None
    for instant in (et(2026, 11, 30, 8), et(2026, 11, 30, 18), et(2026, 11, 30, 22)):
        quote = MARKET.quote("AAPL", instant)
        assert quote.last_non_reg_trade_price == quote.last_trade_price
        assert quote.venue_last_non_reg_trade_time == instant
    assert MARKET.quote("AAPL", et(2026, 11, 28, 12)).last_non_reg_trade_price is None


def test_spread_widens_outside_regular_hours() -> None:
    def spread(instant: datetime) -> Decimal:
        quote = MARKET.quote("SPY", instant)
        return (quote.ask_price - quote.bid_price) / quote.mid_price

    assert spread(et(2026, 11, 30, 22)) > spread(MONDAY_10)


@settings(max_examples=150, deadline=None)
@given(
    st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2028, 12, 31)),
    st.sampled_from(["AAPL", "TLRY", "BRK.A", "SIVBQ", "SPY", "SNAP", "TSLA"]),
)
def test_bid_is_below_last_which_is_below_ask_at_any_instant(naive: datetime, symbol: str) -> None:
    quote = MARKET.quote(symbol, naive.replace(tzinfo=UTC))
    assert Decimal(0) < quote.bid_price < quote.last_trade_price < quote.ask_price
    assert quote.bid_size > 0 and quote.ask_size > 0
    assert quote.previous_close > 0


def test_shock_moves_the_path_from_its_instant_onward_only() -> None:
    market, clock = market_at(MONDAY_10)
    before = market.quote("AAPL", MONDAY_10 - timedelta(minutes=1))
    unshocked = market.quote("AAPL", MONDAY_10 + timedelta(minutes=1))
    market.shock("AAPL", Decimal(-10))
    assert market.quote("AAPL", MONDAY_10 - timedelta(minutes=1)) == before
    shocked = market.quote("AAPL", MONDAY_10 + timedelta(minutes=1)).last_trade_price
    expected = unshocked.last_trade_price * Decimal("0.9")
    assert abs(shocked - expected) <= Decimal("0.01")
    clock.advance(timedelta(minutes=5))
    assert market.price("AAPL") < unshocked.last_trade_price * Decimal("0.95")


def test_shocks_compound_and_are_deterministic() -> None:
    first, _ = market_at(MONDAY_10)
    second, _ = market_at(MONDAY_10)
    base = first.price("TSLA")
    for market in (first, second):
        market.shock("TSLA", Decimal(10), MONDAY_10 - timedelta(hours=1))
        market.shock("TSLA", Decimal(10), MONDAY_10 - timedelta(minutes=30))
    assert first.price("TSLA") == second.price("TSLA")
    assert abs(first.price("TSLA") - base * Decimal("1.21")) <= Decimal("0.01")


def test_shock_reaches_the_previous_close_once_the_close_is_past() -> None:
    market, _ = market_at(MONDAY_10)
    before = market.quote("AAPL").previous_close
    market.shock("AAPL", Decimal(5), et(2026, 11, 27, 12))
    after = market.quote("AAPL").previous_close
    assert abs(after - before * Decimal("1.05")) <= Decimal("0.01")


def test_shock_applies_to_indexes_and_crypto_while_the_market_is_closed() -> None:
    market, _ = market_at(et(2026, 11, 28, 12))
    spx, btc = market.price("SPX"), market.price("BTC-USD")
    market.shock("SPX", Decimal(-20))
    market.shock("BTC-USD", Decimal(50))
    assert abs(market.price("SPX") - spx * Decimal("0.8")) <= Decimal("0.01")
    assert market.price("BTC-USD") > btc * Decimal("1.4")


def test_shock_refuses_wiping_out_the_price_and_unknown_symbols() -> None:
    with pytest.raises(ValueError):
        MARKET.shock("AAPL", Decimal(-100))
    with pytest.raises(UnknownInstrument):
        MARKET.shock("NOPE", Decimal(1))


def test_book_top_level_is_the_quote_and_levels_step_away() -> None:
    quote = MARKET.quote("AAPL")
    book = MARKET.book("AAPL")
    assert book.symbol == "AAPL" and book.updated_at == quote.updated_at
    assert (book.bids[0].price, book.bids[0].quantity) == (quote.bid_price, quote.bid_size)
    assert (book.asks[0].price, book.asks[0].quantity) == (quote.ask_price, quote.ask_size)
    bids = [level.price for level in book.bids]
    asks = [level.price for level in book.asks]
    assert bids == sorted(bids, reverse=True) and len(set(bids)) == len(bids) == 5
    assert asks == sorted(asks) and len(set(asks)) == len(asks) == 5
    assert max(bids) < min(asks)
    assert all(isinstance(level.quantity, int) and level.quantity > 0 for level in book.bids)


def test_book_never_quotes_a_non_positive_bid_and_refuses_zero_depth() -> None:
    book = MARKET.book("SIVBQ", depth=30)
    assert all(level.price > 0 for level in book.bids)
    assert len(book.asks) == 30
    with pytest.raises(ValueError):
        MARKET.book("AAPL", depth=0)


def test_session_and_unknown_lookups() -> None:
    assert MARKET.session() is Session.REGULAR
    assert MARKET.session(et(2026, 11, 28, 12)) is Session.CLOSED
    with pytest.raises(UnknownInstrument):
        MARKET.quote("NOPE")
    with pytest.raises(OutOfCalendar):
        MARKET.quote("AAPL", datetime(2035, 1, 2, 15, tzinfo=UTC))
    assert isinstance(MARKET, Market) and MARKET.seed == 7 and MARKET.clock is CLOCK
    assert "seed=7" in repr(MARKET)
    assert MARKET.now() == CLOCK.now()


def test_a_split_divides_the_price_path_from_its_instant_on() -> None:
    from ordergate.core import SteppedClock

    clock = SteppedClock(start=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))
    market = Market(seed=7, clock=clock)
    earlier = clock.now() - timedelta(minutes=5)
    before = market.price("MSFT", earlier)
    unsplit = market.price("MSFT")
    market.split("MSFT", Decimal(3))
    # A third of the price, to the tick the venue quotes in.
    assert abs(market.price("MSFT") * 3 - unsplit) < Decimal("0.03")
    assert market.price("MSFT", earlier) == before  # the path before the split is as it was
    with pytest.raises(ValueError, match="ratio"):
        market.split("MSFT", Decimal(1))
    with pytest.raises(KeyError, match="only shares split"):
        market.split("SPX", Decimal(2))
