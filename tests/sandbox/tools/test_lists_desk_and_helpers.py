"""The lists desk's alert watching, and the small helpers the lists and research tools share."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from lists_testkit import START, build

from ordergate.core import SteppedClock
from ordergate.sandbox.tools import VenueError
from ordergate.sandbox.tools._draws import Draws
from ordergate.sandbox.tools._indicators import bollinger, ema, macd, rsi, sma
from ordergate.sandbox.tools._paging import page
from ordergate.sandbox.tools._wire_format import iso, iso_day, money, number
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._lists import Alert, Lists, Observation, _market_observer

D = Decimal


class ScriptedPrices:
    """Prices a test sets by hand; a symbol with no price is unobservable."""

    def __init__(self) -> None:
        self.prices: dict[str, Observation] = {}

    def __call__(self, symbol: str, asset_class: str) -> Observation | None:
        return self.prices.get(symbol)


def _desk() -> tuple[Venue, SteppedClock, Lists, ScriptedPrices]:
    clock = SteppedClock(start=START)
    venue = Venue(seed=3, clock=clock)
    prices = ScriptedPrices()
    desk = Lists(venue, prices)
    venue.add_desk(desk)
    return venue, clock, desk, prices


def _alert(desk: Lists, venue: Venue, condition: str, threshold: str) -> Alert:
    now = venue.now()
    alert = Alert(
        venue.ids.next("alert"), "XYZ", "equity", condition, D(threshold), None, True, now, now
    )
    desk.arm(alert)
    desk.alerts[alert.id] = alert
    return alert


def test_an_unpriced_symbol_never_fires_and_its_first_price_only_sets_the_baseline() -> None:
    venue, clock, desk, prices = _desk()
    alert = _alert(desk, venue, "price_above", "10")
    assert alert.last_value is None
    clock.advance(timedelta(seconds=1))
    venue.sync()
    prices.prices["XYZ"] = Observation(D(12), D(9))
    clock.advance(timedelta(seconds=1))
    venue.sync()
    assert desk.alert_log == [] and alert.last_value == D(12)
    prices.prices["XYZ"] = Observation(D(8), D(9))
    clock.advance(timedelta(seconds=1))
    venue.sync()
    prices.prices["XYZ"] = Observation(D(10), D(9))
    clock.advance(timedelta(seconds=1))
    venue.sync()
    assert [entry.price for entry in desk.alert_log] == [D(10)]


def test_a_disabled_alert_is_not_watched() -> None:
    venue, clock, desk, prices = _desk()
    prices.prices["XYZ"] = Observation(D(5), D(5))
    alert = _alert(desk, venue, "price_below", "4")
    alert.enabled = False
    prices.prices["XYZ"] = Observation(D(3), D(5))
    clock.advance(timedelta(seconds=1))
    venue.sync()
    assert desk.alert_log == [] and alert.state == "disabled"


def test_percent_change_of_a_zero_close_is_zero() -> None:
    assert Observation(D(5), D(0)).percent_change == 0
    assert Observation(D(110), D(100)).percent_change == D("10.00")


def test_the_market_observer_returns_none_for_what_the_market_does_not_list() -> None:
    venue = Venue(seed=3, clock=SteppedClock(start=START))
    observe = _market_observer(venue)
    assert observe("NOPE", "equity") is None
    assert observe("NOPE", "crypto") is None
    btc = observe("BTC", "crypto")
    assert btc is not None and btc.price == venue.market.crypto_quote("BTC-USD").mark_price


def test_a_venue_without_the_lists_desk_says_so() -> None:
    venue = Venue(seed=3, clock=SteppedClock(start=START))
    with pytest.raises(LookupError):
        Lists.of(venue)


def test_indicators_on_short_series_are_all_warm_up() -> None:
    closes = [D(1), D(2)]
    assert sma(closes, 3) == [None, None]
    assert ema(closes, 3) == [None, None]
    assert rsi(closes, 3) == [None, None]


def test_simple_and_exponential_averages_of_known_series() -> None:
    closes = [D(n) for n in (1, 2, 3, 4, 5)]
    assert sma(closes, 3) == [None, None, D(2), D(3), D(4)]
    smoothed = ema(closes, 3)
    assert smoothed[2] == D(2) and smoothed[3] == D("3.0") and smoothed[4] == D("4.0")


def test_rsi_is_100_on_a_rise_and_50_when_flat() -> None:
    assert rsi([D(n) for n in range(10)], 3)[-1] == 100
    assert rsi([D(5)] * 10, 3)[-1] == 50
    mixed = rsi([D(n) for n in (1, 3, 2, 4, 3, 5, 4)], 2)
    assert all(0 < value < 100 for value in mixed if value is not None)


def test_bollinger_bands_and_macd_line_up_with_their_inputs() -> None:
    closes = [D(n % 4) for n in range(40)]
    lower, middle, upper = bollinger(closes, 4, D(2))
    assert middle[3] == D("1.5") and lower[3] is not None and upper[3] is not None
    assert upper[3] - middle[3] == middle[3] - lower[3]
    line, signal, histogram = macd(closes, 3, 6, 2)
    assert line[4] is None and line[5] is not None
    assert signal[5] is None and signal[6] is not None
    assert histogram[6] == line[6] - signal[6]  # type: ignore[operator]


def test_cursors_round_trip_and_refuse_other_scopes() -> None:
    items = list(range(5))
    first, cursor = page(items, scope="a", cursor=None, size=2)
    assert first == [0, 1] and cursor is not None
    second, cursor = page(items, scope="a", cursor=cursor, size=2)
    assert second == [2, 3]
    last, done = page(items, scope="a", cursor=cursor, size=2)
    assert last == [4] and done is None
    with pytest.raises(VenueError) as refused:
        page(items, scope="b", cursor=cursor, size=2)
    assert refused.value.field == "cursor"


def test_draws_repeat_for_the_same_parts_and_stay_in_range() -> None:
    one, two = Draws(1, "x"), Draws(1, "x")
    assert [one.integer(0, 9) for _ in range(20)] == [two.integer(0, 9) for _ in range(20)]
    value = Draws(2).decimal("0.5", "0.75", 2)
    assert D("0.5") <= value <= D("0.75") and value.as_tuple().exponent == -2
    assert Draws(3).pick(("only",)) == "only"


def test_wire_format_writes_utc_times_and_decimal_strings() -> None:
    assert iso(datetime(2026, 1, 2, 3, 4, tzinfo=UTC)) == "2026-01-02T03:04:00Z"
    assert iso(None) is None and iso_day(None) is None
    assert money(None) is None and number(None) is None
    assert money(D("1.005")) == "1.00" and number(D("2.345"), 1) == "2.3"


def test_whole_number_floats_are_accepted_where_the_schema_says_integer() -> None:
    h = build()
    created = h.call(
        "create_alert",
        symbol="AAPL",
        condition_type="rsi_above",
        threshold="70",
        indicator={"interval_secs": 3600.0, "period": 14.0},
    )["alert"]
    assert created["indicator"] == {"interval_secs": 3600, "period": 14}
    assert isinstance(created["indicator"]["period"], int)
    assert len(h.call("get_equity_news", symbol="AAPL", limit=2.0)["results"]) == 2
    sma = h.call(
        "get_equity_technical_indicators",
        symbol="AAPL",
        type="sma",
        interval="day",
        start_time="2026-11-20",
        period=3.0,
    )
    assert sma["parameters"] == {"period": 3}
    preview = h.call(
        "preview_scan",
        filters=[{"plot": "sma", "length": 3.0, "predicate": "price_above", "values": []}],
    )
    assert preview["total_matches"] >= 0
