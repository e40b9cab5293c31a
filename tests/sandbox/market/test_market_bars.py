from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from market_testkit import ET, et, market_at

from ordergate.calendar import Session
from ordergate.sandbox.market import MAX_BARS, Bar, Bounds, Interval, InvalidBounds, InvalidInterval

NOW = et(2026, 12, 2, 11, 0, 7)
MARKET, _ = market_at(NOW)


def _well_formed(bars: list[Bar]) -> None:
    for bar in bars:
        assert bar.low_price <= min(bar.open_price, bar.close_price)
        assert bar.high_price >= max(bar.open_price, bar.close_price)
        assert isinstance(bar.volume, int) and bar.volume >= 0
    starts = [bar.begins_at for bar in bars]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)


def test_intraday_bar_closes_at_the_quoted_price_at_its_end() -> None:
    bars = MARKET.bars("AAPL", et(2026, 12, 1, 9, 30), et(2026, 12, 1, 16), "5minute")
    assert len(bars) == 78
    _well_formed(bars)
    for bar in bars[:-1]:
        end = bar.begins_at + timedelta(minutes=5)
        assert bar.close_price == MARKET.quote("AAPL", end).last_trade_price
        assert bar.open_price == MARKET.quote("AAPL", bar.begins_at).last_trade_price
        assert bar.session is Session.REGULAR and not bar.interpolated and bar.volume > 0


def test_daily_close_equals_the_next_sessions_previous_close() -> None:
    bars = MARKET.bars("MSFT", et(2026, 11, 20), interval="day")
    _well_formed(bars)
    days = [bar.begins_at.date() for bar in bars]
    assert days == [date(2026, 11, d) for d in (20, 23, 24, 25, 27, 30)] + [
        date(2026, 12, 1),
        date(2026, 12, 2),
    ]
    assert all(
        bar.begins_at == datetime.combine(bar.begins_at.date(), datetime.min.time(), UTC)
        for bar in bars
    )
    by_day = {bar.begins_at.date(): bar for bar in bars}
    quote = MARKET.quote("MSFT", et(2026, 11, 30, 12))
    assert quote.previous_close == by_day[date(2026, 11, 27)].close_price
    assert by_day[date(2026, 12, 2)].close_price == MARKET.quote("MSFT").last_trade_price


def test_bars_never_reach_into_the_future() -> None:
    bars = MARKET.bars("AAPL", et(2026, 12, 2, 9, 30), et(2026, 12, 5), "10minute")
    assert bars[-1].begins_at <= NOW < bars[-1].begins_at + timedelta(minutes=10)
    assert bars[-1].close_price == MARKET.quote("AAPL").last_trade_price
    assert MARKET.bars("AAPL", NOW + timedelta(hours=1), interval="hour") == []


def test_unknown_interval_and_bounds_are_refused_by_name() -> None:
    with pytest.raises(InvalidInterval) as caught:
        MARKET.bars("AAPL", et(2026, 12, 1), interval="7minute")
    assert caught.value.code == "invalid_interval" and caught.value.interval == "7minute"
    assert isinstance(caught.value, ValueError) and "7minute" in str(caught.value)
    with pytest.raises(InvalidBounds) as refused:
        MARKET.bars("AAPL", et(2026, 12, 1), bounds="lunch")
    assert refused.value.code == "invalid_bounds" and refused.value.bounds == "lunch"


def test_regular_bounds_keep_regular_bars_and_hour_bars_start_at_the_open() -> None:
    bars = MARKET.bars("AAPL", et(2026, 12, 1), et(2026, 12, 2), "hour")
    assert {bar.session for bar in bars} == {Session.REGULAR}
    assert bars[0].begins_at == et(2026, 12, 1, 9, 30)
    assert bars[1].begins_at == et(2026, 12, 1, 10)
    assert len(bars) == 7


def test_extended_bounds_add_pre_market_and_after_hours() -> None:
    bars = MARKET.bars("AAPL", et(2026, 12, 1), et(2026, 12, 2), "hour", "extended")
    sessions = [bar.session for bar in bars]
    assert set(sessions) == {Session.PRE_MARKET, Session.REGULAR, Session.AFTER_HOURS}
    assert bars[0].begins_at == et(2026, 12, 1, 7)
    assert bars[-1].begins_at == et(2026, 12, 1, 19)
    assert all(bar.volume < 50_000_000 for bar in bars)


def test_trading_and_24_5_bounds_add_the_overnight_session() -> None:
    for bounds in (Bounds.TRADING, Bounds.H24_5):
        bars = MARKET.bars("AAPL", et(2026, 11, 30, 20), et(2026, 12, 1, 8), "hour", bounds)
        assert [bar.session for bar in bars[:11]] == [Session.OVERNIGHT] * 11
        assert bars[-1].session is Session.PRE_MARKET


def test_24_7_bounds_fill_closed_stretches_with_flat_interpolated_bars() -> None:
    bars = MARKET.bars("AAPL", et(2026, 11, 27, 12), et(2026, 11, 30, 0), "hour", "24_7")
    _well_formed(bars)
    closed = [bar for bar in bars if bar.session is Session.CLOSED]
    assert closed and all(bar.interpolated and bar.volume == 0 for bar in closed)
    assert all(bar.open_price == bar.close_price == bar.high_price for bar in closed)
    assert len({bar.close_price for bar in closed}) == 1
    weekend_days = MARKET.bars("AAPL", et(2026, 11, 27), et(2026, 11, 30), "day", "24_7")
    assert [bar.session for bar in weekend_days] == [
        Session.REGULAR,
        Session.CLOSED,
        Session.CLOSED,
    ]


def test_fifteen_second_bars_are_capped_at_max_bars_keeping_the_latest() -> None:
    bars = MARKET.bars("SPY", et(2026, 11, 1), interval="15second", bounds="24_7")
    assert len(bars) == MAX_BARS
    assert bars[-1].begins_at <= NOW < bars[-1].begins_at + timedelta(seconds=15)
    _well_formed(bars[-100:])


def test_week_and_month_bars_aggregate_the_day_bars() -> None:
    days = MARKET.bars("QQQ", et(2026, 11, 2), interval="day")
    weeks = MARKET.bars("QQQ", et(2026, 11, 2), interval="week")
    assert [w.begins_at.date().weekday() for w in weeks] == [0] * len(weeks)
    first_week = [d for d in days if d.begins_at.date() < date(2026, 11, 9)]
    assert weeks[0].open_price == first_week[0].open_price
    assert weeks[0].close_price == first_week[-1].close_price
    assert weeks[0].high_price == max(d.high_price for d in first_week)
    assert weeks[0].volume == sum(d.volume for d in first_week)
    months = MARKET.bars("QQQ", et(2026, 9, 1), interval="month")
    assert [m.begins_at.date() for m in months] == [
        date(2026, 9, 1),
        date(2026, 10, 1),
        date(2026, 11, 1),
        date(2026, 12, 1),
    ]


@pytest.mark.parametrize(
    ("interval", "first"),
    [
        (Interval.MONTH_3, date(2026, 1, 1)),
        (Interval.YEAR, date(2025, 1, 1)),
        (Interval.YEAR_5, date(2025, 1, 1)),
        (Interval.YEAR_10, date(2020, 1, 1)),
        (Interval.YEAR_50, date(2000, 1, 1)),
    ],
)
def test_long_intervals_align_on_calendar_boundaries(interval: Interval, first: date) -> None:
    start = et(2026, 1, 5) if interval is Interval.MONTH_3 else et(2025, 6, 2)
    if interval in (Interval.YEAR_10, Interval.YEAR_50):
        start = et(2020, 1, 2)
    bars = MARKET.bars("DIA", start, interval=interval)
    assert bars[0].begins_at.date() == first
    _well_formed(bars)


def test_extended_day_bars_span_pre_market_to_after_hours() -> None:
    regular = MARKET.bars("AAPL", et(2026, 12, 1), et(2026, 12, 1, 23), "day")
    extended = MARKET.bars("AAPL", et(2026, 12, 1), et(2026, 12, 1, 23), "day", "extended")
    trading = MARKET.bars("AAPL", et(2026, 12, 1), et(2026, 12, 1, 23), "day", "trading")
    assert extended[0].open_price == MARKET.quote("AAPL", et(2026, 12, 1, 7)).last_trade_price
    assert regular[0].open_price == MARKET.quote("AAPL", et(2026, 12, 1, 9, 30)).last_trade_price
    assert trading[0].open_price == MARKET.quote("AAPL", et(2026, 11, 30, 20)).last_trade_price


def test_index_bars_use_regular_sessions_and_carry_no_volume() -> None:
    bars = MARKET.bars("SPX", et(2026, 12, 1), et(2026, 12, 2), "hour", "24_7")
    assert {bar.session for bar in bars} == {Session.REGULAR}
    assert all(bar.volume == 0 for bar in bars)
    daily = MARKET.bars("SPX", et(2026, 11, 27), et(2026, 11, 28), "day")
    next_day = MARKET.index_quote("SPX", et(2026, 11, 30, 12))
    assert daily[0].close_price == next_day.previous_close


def test_crypto_bars_run_around_the_clock_on_utc_days() -> None:
    bars = MARKET.bars(
        "ETH-USD", datetime(2026, 11, 28, tzinfo=UTC), datetime(2026, 11, 29, tzinfo=UTC), "hour"
    )
    assert len(bars) == 24
    assert len({bar.close_price for bar in bars}) > 1
    assert all(bar.session is Session.REGULAR and bar.volume > 0 for bar in bars)
    days = MARKET.bars("ETH-USD", datetime(2026, 11, 26, tzinfo=UTC), interval="day")
    assert [d.begins_at.date() for d in days][:3] == [date(2026, 11, d) for d in (26, 27, 28)]
    assert days[-1].close_price == MARKET.crypto_quote("ETH-USD").mark_price


def test_bars_before_the_calendar_are_clipped_away() -> None:
    bars = MARKET.bars(
        "AAPL", datetime(2010, 1, 1, tzinfo=UTC), datetime(2020, 1, 3, tzinfo=ET), "day"
    )
    assert [bar.begins_at.date() for bar in bars] == [date(2020, 1, 2)]
