from __future__ import annotations

import itertools
from datetime import date, timedelta
from decimal import Decimal

import pytest
from market_testkit import et, market_at

from ordergate.sandbox.market import (
    MULTIPLIER,
    OptionType,
    Tradability,
    UnknownInstrument,
    black_scholes,
    norm_cdf,
)

NOW = et(2026, 11, 30, 11)
MARKET, CLOCK = market_at(NOW)


def test_chain_lists_weeklies_and_monthlies_moving_holiday_fridays_back() -> None:
    chain = MARKET.option_chain("AAPL")
    dates = chain.expiration_dates
    assert dates[:6] == (
        date(2026, 12, 4),
        date(2026, 12, 11),
        date(2026, 12, 18),
        date(2026, 12, 24),  # Christmas Friday → Thursday
        date(2026, 12, 31),  # New Year's Day Friday → Thursday
        date(2027, 1, 8),
    )
    assert date(2027, 1, 15) in dates and date(2027, 2, 19) in dates  # third Fridays
    assert list(dates) == sorted(set(dates)) and all(d >= NOW.date() for d in dates)
    assert chain.trade_value_multiplier == MULTIPLIER == 100
    assert chain.underlying_instrument_id == MARKET.universe.equity("AAPL").instrument_id
    assert MARKET.option_chain_by_id(chain.id) == chain
    assert {c.symbol for c in MARKET.option_chains()} >= {"AAPL", "SPY", "TSLA", "QQQ", "NVDA"}


def test_strikes_surround_the_price_on_a_sensible_grid() -> None:
    chain = MARKET.option_chain("AAPL")
    price = MARKET.price("AAPL")
    assert chain.strikes[0] < price * Decimal("0.85") and chain.strikes[-1] > price * Decimal(
        "1.15"
    )
    steps = {b - a for a, b in zip(chain.strikes, chain.strikes[1:], strict=False)}
    assert steps == {Decimal("5.0000")}
    spy = MARKET.option_chain("SPY").strikes
    assert {b - a for a, b in itertools.pairwise(spy)} == {
        Decimal("1.0000")
    }  # ETFs: dollar strikes


def test_expiring_contracts_list_until_the_close_on_expiration_day() -> None:
    friday, _ = market_at(et(2026, 12, 4, 15))
    assert friday.option_chain("SPY").expiration_dates[0] == date(2026, 12, 4)
    evening, _ = market_at(et(2026, 12, 4, 16, 30))
    assert evening.option_chain("SPY").expiration_dates[0] == date(2026, 12, 11)


def test_instruments_are_deterministic_and_filterable() -> None:
    expiry = date(2026, 12, 18)
    calls = MARKET.option_instruments("AAPL", expiration=expiry, option_type="call")
    assert calls and {i.type for i in calls} == {OptionType.CALL}
    assert {i.expiration_date for i in calls} == {expiry}
    again, _ = market_at(NOW)
    strike = calls[10].strike_price
    same = again.option_instruments(
        "AAPL", expiration=expiry, option_type=OptionType.CALL, strike=strike
    )
    assert [i.id for i in same] == [calls[10].id]
    instrument = calls[10]
    assert instrument.state == "active" and instrument.tradability is Tradability.TRADABLE
    assert instrument.chain_symbol == "AAPL" and instrument.underlying_type == "equity"
    assert instrument.sellout_datetime == instrument.expires_at - timedelta(minutes=15)
    assert instrument.occ_symbol.startswith("AAPL  261218C")
    assert again.option_instrument(instrument.id.upper()) == instrument


def test_unknown_option_ids_and_underlyings_are_refused() -> None:
    with pytest.raises(UnknownInstrument):
        MARKET.option_instrument("00000000-0000-0000-0000-000000000000")
    with pytest.raises(UnknownInstrument):
        MARKET.option_chain("KO")
    with pytest.raises(UnknownInstrument):
        MARKET.option_chain_by_id("00000000-0000-0000-0000-000000000000")


def test_premiums_never_fall_below_intrinsic_value() -> None:
    spot = MARKET.price("TSLA")
    for instrument in MARKET.option_instruments("TSLA", expiration=date(2026, 12, 4)):
        quote = MARKET.option_quote(instrument.id)
        strike = instrument.strike_price
        intrinsic = max(
            Decimal(0), spot - strike if instrument.type is OptionType.CALL else strike - spot
        )
        assert quote.mark_price >= intrinsic - Decimal("0.05")
        assert quote.ask_price >= intrinsic
        assert Decimal(0) <= quote.bid_price < quote.ask_price
        assert quote.bid_price <= quote.mark_price <= quote.ask_price


def test_calls_cheapen_and_puts_dearen_as_the_strike_rises() -> None:
    expiry = date(2027, 1, 15)
    calls = MARKET.option_instruments("SPY", expiration=expiry, option_type="call")
    puts = MARKET.option_instruments("SPY", expiration=expiry, option_type="put")
    call_marks = [MARKET.option_quote(i.id).mark_price for i in calls[::5]]
    put_marks = [MARKET.option_quote(i.id).mark_price for i in puts[::5]]
    assert call_marks == sorted(call_marks, reverse=True) and call_marks[0] > call_marks[-1]
    assert put_marks == sorted(put_marks) and put_marks[0] < put_marks[-1]


def test_greeks_have_the_signs_of_calls_and_puts() -> None:
    expiry = date(2026, 12, 18)
    spot = MARKET.price("NVDA")
    strike = min(MARKET.option_chain("NVDA").strikes, key=lambda k: abs(k - spot))
    call, put = (
        MARKET.option_quote(
            MARKET.option_instruments("NVDA", expiration=expiry, option_type=t, strike=strike)[0].id
        )
        for t in ("call", "put")
    )
    assert call.delta is not None and Decimal("0.3") < call.delta < 1
    assert put.delta is not None and -1 < put.delta < Decimal("-0.3")
    assert call.gamma == put.gamma and call.gamma is not None and call.gamma > 0
    assert call.theta is not None and call.theta < 0
    assert call.rho is not None and put.rho is not None and call.rho > 0 > put.rho
    assert call.implied_volatility is not None and call.implied_volatility > 0
    assert call.chance_of_profit_long is not None and call.chance_of_profit_short is not None
    assert call.chance_of_profit_long + call.chance_of_profit_short == 1
    assert call.break_even_price == strike + call.mark_price
    assert put.break_even_price == strike - put.mark_price
    # Put–call parity within the rounding of both marks and the rate's discount.
    parity = call.mark_price - put.mark_price - (call.underlying_price - strike)
    assert abs(parity) < Decimal("1.0")


def test_option_quotes_are_deterministic_and_fill_prices_sit_inside_the_spread() -> None:
    instrument = MARKET.option_instruments("QQQ", expiration=date(2026, 12, 11))[40]
    quote = MARKET.option_quote(instrument.id)
    again, _ = market_at(NOW)
    assert again.option_quote(instrument.id) == quote
    assert quote.bid_price <= quote.high_fill_rate_sell_price <= quote.low_fill_rate_sell_price
    assert quote.low_fill_rate_buy_price <= quote.high_fill_rate_buy_price <= quote.ask_price
    assert quote.open_interest > 0 and quote.volume >= 0
    assert quote.previous_close_date == date(2026, 11, 27) and quote.previous_close_price > 0
    assert quote.adjusted_mark_price == quote.mark_price


def test_expired_contracts_stay_resolvable_at_intrinsic_value_without_greeks() -> None:
    market, clock = market_at(et(2026, 12, 4, 12))
    instrument = market.option_instruments("AAPL", expiration=date(2026, 12, 4))[30]
    clock.set(et(2026, 12, 8, 12))
    later, _ = market_at(et(2026, 12, 8, 12))
    for view in (market, later):
        expired = view.option_instrument(instrument.id)
        assert expired.state == "expired" and expired.tradability is Tradability.UNTRADABLE
        quote = view.option_quote(instrument.id)
        assert quote.delta is None and quote.implied_volatility is None
        assert quote.chance_of_profit_long is None and quote.chance_of_profit_short is None
        spot = view.quote("AAPL", et(2026, 12, 4, 16)).last_trade_price
        strike = instrument.strike_price
        intrinsic = max(
            Decimal(0), spot - strike if instrument.type is OptionType.CALL else strike - spot
        )
        assert abs(quote.mark_price - max(intrinsic, Decimal("0.01"))) <= Decimal("0.01")


def test_option_bars_follow_the_mark_during_regular_sessions() -> None:
    instrument = MARKET.option_instruments("AAPL", expiration=date(2026, 12, 18))[50]
    bars = MARKET.option_bars(instrument.id, et(2026, 11, 27), interval="hour")
    assert bars and all(bar.session.value == "regular" for bar in bars)
    assert bars[-1].close_price == MARKET.option_quote(instrument.id).mark_price
    assert all(bar.low_price <= bar.close_price <= bar.high_price for bar in bars)


def test_black_scholes_matches_the_textbook_value() -> None:
    call = black_scholes(
        True, Decimal(100), Decimal(100), Decimal(1), Decimal("0.2"), Decimal("0.05")
    )
    put = black_scholes(
        False, Decimal(100), Decimal(100), Decimal(1), Decimal("0.2"), Decimal("0.05")
    )
    assert abs(call.price - Decimal("10.4506")) < Decimal("0.0005")
    assert abs(put.price - Decimal("5.5735")) < Decimal("0.0005")
    assert abs(norm_cdf(Decimal("1.96")) - Decimal("0.9750021")) < Decimal("0.0000002")
    assert abs(norm_cdf(Decimal("-1.5")) + norm_cdf(Decimal("1.5")) - 1) < Decimal("1e-15")
    with pytest.raises(ValueError):
        black_scholes(True, Decimal(100), Decimal(100), Decimal(0), Decimal("0.2"), Decimal(0))
