"""Market-data tools: equity quotes, books and historicals; indexes; currency pairs and crypto."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from market_data_testkit import START, TIMESTAMP, TOOLS, Harness, build, et

from ordergate.calendar import Session
from ordergate.core import wire_time
from ordergate.inventory import load_inventory
from ordergate.sandbox.market import MAX_BARS
from ordergate.sandbox.tools import handlers
from ordergate.sandbox.tools._families import FAMILIES, load_families
from ordergate.sandbox.tools._market_wire import Stamps
from ordergate.sandbox.tools.market_data import BOOK_DEPTH

TWENTY = [
    "AAPL",
    "MSFT",
    "NVDA",
    "AMZN",
    "GOOGL",
    "GOOG",
    "META",
    "TSLA",
    "BRK.B",
    "JPM",
    "V",
    "MA",
    "UNH",
    "XOM",
    "JNJ",
    "WMT",
    "PG",
    "HD",
    "COST",
    "KO",
]


@pytest.fixture
def h() -> Harness:
    return build()


def _ids(h: Harness, symbols: str | None = None) -> dict[str, str]:
    args = {} if symbols is None else {"symbols": symbols}
    return {index["symbol"]: index["id"] for index in h.call("get_indexes", **args)["results"]}


# -- registration ----------------------------------------------------------------------------


def test_both_families_are_registered_and_serve_all_twelve_tools() -> None:
    assert {"market_data", "option_data"} <= set(FAMILIES)
    load_families()
    assert set(TOOLS) <= set(handlers())
    assert len(TOOLS) == 12


# -- the contract ----------------------------------------------------------------------------

TWENTY_ONE = [*TWENTY, "PEP"]


@pytest.mark.req("mcp.tools.output-valid")
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("get_equity_quotes", {"symbols": ["AAPL"]}),
        ("get_equity_quotes", {"symbols": ["SIVBQ", "TLRY", "BRK.A"]}),
        ("get_equity_quotes", {"symbols": TWENTY_ONE}),
        ("get_equity_price_book", {"symbols": ["AAPL", "NOPE"]}),
        ("get_equity_price_book", {"symbols": ["NOPE"]}),
        ("get_equity_historicals", {"symbols": ["AAPL", "NOPE"], "start_time": "2026-11-30"}),
        ("get_equity_historicals", {"symbols": ["NOPE"], "start_time": "2026-11-30"}),
        ("get_equity_historicals", {"symbols": ["AAPL"], "start_time": "2030-01-01"}),
        (
            "get_equity_historicals",
            {
                "symbols": ["SPY"],
                "start_time": "2026-11-27",
                "interval": "5minute",
                "bounds": "24_7",
            },
        ),
    ],
)
def test_equity_market_data_results_validate_against_the_captured_output_schema(
    h: Harness, name: str, args: dict[str, Any]
) -> None:
    schema = load_inventory()[name].output_schema
    assert schema is not None
    result = h.result(name, **args)
    assert result["isError"] is False
    Draft202012Validator(schema).validate(result["structuredContent"])


@pytest.mark.req("mcp.tools.business-errors-are-results")
def test_an_unknown_symbol_comes_back_as_an_error_result_not_a_protocol_error(h: Harness) -> None:
    result = h.result("get_equity_quotes", symbols=["NOPE"])
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "NOT_FOUND"
    assert result["content"][0]["type"] == "text"


# -- get_equity_quotes ---------------------------------------------------------------------


def test_quote_reports_the_markets_quote_and_latest_close_at_the_clocks_instant(
    h: Harness,
) -> None:
    [result] = h.call("get_equity_quotes", symbols=["AAPL"])["results"]
    quote = h.venue.market.quote("AAPL", START)
    wire = result["quote"]
    assert wire["symbol"] == "AAPL"
    assert Decimal(wire["bid_price"]) == quote.bid_price
    assert Decimal(wire["ask_price"]) == quote.ask_price
    assert Decimal(wire["last_trade_price"]) == quote.last_trade_price
    assert wire["previous_close"] == wire["adjusted_previous_close"] == "274.02"
    assert wire["previous_close_date"] == "2026-11-30"
    assert wire["last_non_reg_trade_price"] is None
    assert wire["venue_last_non_reg_trade_time"] is None
    assert wire["venue_bid_time"] == wire["venue_ask_time"] == "2026-12-01T15:00:00.000000Z"
    assert wire["state"] == "active"
    assert result["close"] == {
        "symbol": "AAPL",
        "date": "2026-11-30",
        "price": "274.02",
        "interpolated": False,
        "source": "sandbox",
    }


@pytest.mark.parametrize(
    "instant",
    [et(2026, 12, 1, 7, 30), et(2026, 12, 1, 17, 0), et(2026, 12, 1, 22, 0), et(2026, 12, 5, 12)],
    ids=["pre_market", "after_hours", "overnight", "closed_weekend"],
)
def test_quotes_outside_regular_hours_carry_the_non_regular_trade(instant: datetime) -> None:
    h = build(start=instant)
    wire = h.call("get_equity_quotes", symbols=["AAPL"])["results"][0]["quote"]
    session = h.venue.market.session()
    if session is Session.CLOSED:
        assert wire["last_non_reg_trade_price"] is None
    else:
        assert wire["last_non_reg_trade_price"] == wire["last_trade_price"]
        assert TIMESTAMP.match(wire["venue_last_non_reg_trade_time"])


def test_the_close_is_the_latest_regular_close_in_every_session_of_a_holiday_fortnight() -> None:
    h = build(start=et(2026, 11, 20, 0, 0))
    end = et(2026, 12, 2, 0, 0)
    seen: set[Session] = set()
    while h.clock.now() < end:
        close = h.call("get_equity_quotes", symbols=["MSFT"])["results"][0]["close"]
        expected = h.venue.market.close("MSFT")
        seen.add(h.venue.market.session())
        assert (close["date"], Decimal(close["price"])) == (
            expected.date.isoformat(),
            expected.price,
        ), h.clock.now()
        h.step(minutes=50)
    assert seen == set(Session)


def test_a_halted_listing_is_quoted_as_halted(h: Harness) -> None:
    wire = h.call("get_equity_quotes", symbols=["SIVBQ"])["results"][0]["quote"]
    assert wire["state"] == "halted"
    assert wire["last_trade_price"] == "0.0520"


def test_symbols_are_trimmed_upper_cased_and_deduplicated_in_order(h: Harness) -> None:
    results = h.call("get_equity_quotes", symbols=[" msft", "AAPL", "msft "])["results"]
    assert [r["quote"]["symbol"] for r in results] == ["MSFT", "AAPL"]


def test_twenty_symbols_get_closes_and_twenty_one_get_quotes_only(h: Harness) -> None:
    twenty = h.call("get_equity_quotes", symbols=TWENTY)
    assert "closes_error" not in twenty
    assert all(r["close"]["symbol"] == r["quote"]["symbol"] for r in twenty["results"])
    more = h.call("get_equity_quotes", symbols=TWENTY_ONE)
    assert len(more["results"]) == 21
    assert all("close" not in r for r in more["results"])
    assert "20" in more["closes_error"]


def test_an_unlisted_symbol_fails_the_call_naming_it(h: Harness) -> None:
    error = h.fail("get_equity_quotes", symbols=["AAPL", "NOPE", "ZZZZ"])
    assert (error["code"], error["field"]) == ("NOT_FOUND", "symbols")
    assert "NOPE" in error["message"] and "ZZZZ" in error["message"]


@pytest.mark.parametrize("symbols", [[], None, ["AAPL", " "]])
def test_quotes_need_at_least_one_real_symbol(h: Harness, symbols: list[str] | None) -> None:
    error = h.fail("get_equity_quotes", symbols=symbols)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "symbols")


@pytest.mark.req("sandbox.determinism")
def test_same_seed_and_instant_give_identical_answers_and_another_seed_does_not() -> None:
    args: dict[str, Any] = {"symbols": ["AAPL", "TSLA"]}
    first, second, other = build(seed=3), build(seed=3), build(seed=4)
    assert first.call("get_equity_quotes", **args) == second.call("get_equity_quotes", **args)
    assert first.call("get_equity_quotes", **args) != other.call("get_equity_quotes", **args)


@pytest.mark.parametrize(
    "instant",
    [
        datetime(2026, 12, 1, 15, 0, tzinfo=UTC),
        datetime(2026, 12, 1, 15, 0, 3, 12, tzinfo=UTC),
        datetime(2026, 12, 1, 10, 0, 3, 999_999, tzinfo=timezone(timedelta(hours=-5))),
        et(2026, 7, 4, 9, 30),
    ],
)
def test_a_quote_stamps_an_instant_as_every_desk_writes_it(instant: datetime) -> None:
    assert TIMESTAMP.match(wire_time(instant))
    assert Stamps()(instant) == wire_time(instant)


# -- get_equity_price_book -----------------------------------------------------------------


def test_price_book_levels_are_best_first_and_topped_by_the_quote(h: Harness) -> None:
    data = h.call("get_equity_price_book", symbols=["AAPL", "nvda"])
    assert "errors" not in data
    book = data["books"][0]
    assert [b["symbol"] for b in data["books"]] == ["AAPL", "NVDA"]
    bids = [Decimal(level["price"]) for level in book["bids"]]
    asks = [Decimal(level["price"]) for level in book["asks"]]
    assert len(bids) == len(asks) == BOOK_DEPTH
    assert bids == sorted(bids, reverse=True) and asks == sorted(asks)
    quote = h.venue.market.quote("AAPL")
    assert (bids[0], asks[0]) == (quote.bid_price, quote.ask_price)
    assert book["updated_at"] == "2026-12-01T15:00:00.000000Z"


def test_price_book_reports_unlisted_symbols_in_errors(h: Harness) -> None:
    data = h.call("get_equity_price_book", symbols=["AAPL", "NOPE"])
    assert [b["symbol"] for b in data["books"]] == ["AAPL"]
    assert data["errors"][0]["symbol"] == "NOPE"
    only_unknown = h.call("get_equity_price_book", symbols=["NOPE"])
    assert only_unknown["books"] == []


def test_price_book_takes_at_most_four_symbols(h: Harness) -> None:
    error = h.fail("get_equity_price_book", symbols=["AAPL", "MSFT", "NVDA", "AMZN", "META"])
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "symbols")


# -- get_equity_historicals ----------------------------------------------------------------


def test_daily_bars_close_at_the_previous_close_the_next_day_quotes(h: Harness) -> None:
    data = h.call(
        "get_equity_historicals", symbols=["AAPL", "SPX", "NOPE"], start_time="2026-11-23"
    )
    assert data["not_found"] == ["SPX", "NOPE"]
    [result] = data["results"]
    assert (result["symbol"], result["interval"], result["bounds"]) == ("AAPL", "day", "regular")
    days = [bar["begins_at"][:10] for bar in result["bars"]]
    # Thanksgiving (26th) and the weekend have no bars; today's bar is in progress.
    assert days == [
        "2026-11-23",
        "2026-11-24",
        "2026-11-25",
        "2026-11-27",
        "2026-11-30",
        "2026-12-01",
    ]
    quote = h.call("get_equity_quotes", symbols=["AAPL"])["results"][0]["quote"]
    assert result["bars"][-2]["close_price"] == quote["previous_close"]
    assert result["bars"][-1]["close_price"] == quote["last_trade_price"]
    assert all(
        isinstance(bar["volume"], int) and TIMESTAMP.match(bar["begins_at"])
        for bar in result["bars"]
    )


def test_intraday_extended_bars_span_the_sessions_asked_for(h: Harness) -> None:
    data = h.call(
        "get_equity_historicals",
        symbols=["TSLA"],
        start_time="2026-11-30T00:00:00Z",
        end_time="2026-11-30T23:00:00Z",
        interval="hour",
        bounds="extended",
        adjustment_type="split",
    )
    sessions = {bar["session"] for bar in data["results"][0]["bars"]}
    assert sessions == {"pre_market", "regular", "after_hours"}


def test_a_range_starting_in_the_future_has_no_bars(h: Harness) -> None:
    data = h.call("get_equity_historicals", symbols=["AAPL"], start_time="2026-12-02T00:00:00Z")
    assert data["results"][0]["bars"] == []


def test_a_range_of_exactly_the_bar_cap_is_served_whole(h: Harness) -> None:
    start = START - timedelta(seconds=15 * MAX_BARS)
    data = h.call(
        "get_equity_historicals",
        symbols=["AAPL"],
        start_time=start.isoformat(),
        interval="15second",
        bounds="24_7",
    )
    assert len(data["results"][0]["bars"]) == MAX_BARS


def test_a_range_over_the_bar_cap_is_refused_naming_start_time(h: Harness) -> None:
    start = START - timedelta(seconds=15 * (MAX_BARS + 1))
    error = h.fail(
        "get_equity_historicals",
        symbols=["AAPL"],
        start_time=start.isoformat(),
        interval="15second",
        bounds="24_7",
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "start_time")


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"start_time": "yesterday"}, "start_time"),
        ({"start_time": ""}, "start_time"),
        ({"start_time": "2026-11-01", "end_time": "soon"}, "end_time"),
        ({"start_time": "2026-11-01", "end_time": "2026-10-01"}, "end_time"),
        ({"start_time": "2026-11-01", "interval": "2minute"}, "interval"),
        ({"start_time": "2026-11-01", "bounds": "24_6"}, "bounds"),
        ({"start_time": "2026-11-01", "symbols": [f"S{i}" for i in range(11)]}, "symbols"),
    ],
)
def test_historicals_arguments_are_checked_and_named(
    h: Harness, args: dict[str, Any], field: str
) -> None:
    error = h.fail("get_equity_historicals", **{"symbols": ["AAPL"], **args})
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


# -- indexes ---------------------------------------------------------------------------------


def test_indexes_are_listed_with_the_universes_ids(h: Harness) -> None:
    everything = h.call("get_indexes")
    assert [i["symbol"] for i in everything["results"]] == ["SPX", "NDX", "DJX", "RUT", "VIX"]
    assert everything["not_found"] == []
    some = h.call("get_indexes", symbols="spx, VIX,,nope")
    assert [i["symbol"] for i in some["results"]] == ["SPX", "VIX"]
    assert some["not_found"] == ["NOPE"]
    assert some["results"][0]["id"] == h.venue.market.universe.index("SPX").instrument_id
    assert h.fail("get_indexes", symbols=" , ")["field"] == "symbols"


@pytest.mark.parametrize(
    "instant",
    [START, et(2026, 12, 1, 18, 0), et(2026, 12, 5, 12, 0)],
    ids=["regular", "after_hours", "weekend"],
)
def test_index_quote_value_is_the_close_of_the_latest_bar_at_the_same_instant(
    instant: datetime,
) -> None:
    h = build(start=instant)
    ids = _ids(h)
    quotes = h.call("get_index_quotes", instrument_ids=list(ids.values()))["results"]
    bars = h.call(
        "get_index_historicals",
        instrument_ids=list(ids.values()),
        start_time=(instant - timedelta(days=5)).isoformat(),
        interval="hour",
    )["results"]
    for quote, series in zip(quotes, bars, strict=True):
        assert quote["instrument_id"] == series["instrument_id"]
        assert quote["value"] == series["bars"][-1]["close_price"]
        assert series["bounds"] == "regular"
        assert all("volume" not in bar for bar in series["bars"])
        assert TIMESTAMP.match(quote["updated_at"])


def test_index_quotes_report_unknown_ids_and_refuse_what_is_not_an_id(h: Harness) -> None:
    spx = _ids(h, "SPX")["SPX"]
    aapl = h.venue.market.universe.equity("AAPL").instrument_id
    data = h.call("get_index_quotes", instrument_ids=[spx.upper(), aapl])
    assert [q["symbol"] for q in data["results"]] == ["SPX"]
    assert data["not_found"] == [aapl]
    for bad in (["SPX"], [], [spx] * 1 + [str(i) for i in range(20)]):
        error = h.fail("get_index_quotes", instrument_ids=bad)
        assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "instrument_ids")


def test_index_historicals_report_unknown_ids_and_check_the_interval(h: Harness) -> None:
    aapl = h.venue.market.universe.equity("AAPL").instrument_id
    data = h.call(
        "get_index_historicals", instrument_ids=[aapl], start_time="2026-11-01", interval="day"
    )
    assert data == {"results": [], "not_found": [aapl]}
    error = h.fail(
        "get_index_historicals", instrument_ids=[aapl], start_time="2026-11-01", interval="tick"
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "interval")


# -- currency pairs and crypto ------------------------------------------------------------


def test_currency_pairs_page_through_every_pair_with_stable_ids(h: Harness) -> None:
    pairs: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        data = h.call("get_currency_pairs", limit=3, **({"cursor": cursor} if cursor else {}))
        pairs.extend(data["results"])
        cursor = data.get("next")
        if cursor is None:
            break
    universe = h.venue.market.universe
    assert [p["symbol"] for p in pairs] == [p.symbol for p in universe.crypto_pairs]
    assert [p["id"] for p in pairs] == [p.id for p in universe.crypto_pairs]
    again = build(seed=99).call("get_currency_pairs", limit=100)["results"]
    assert [p["id"] for p in again] == [p["id"] for p in pairs]
    btc = pairs[0]
    assert btc["asset_currency"]["code"] == "BTC"
    assert btc["min_order_quantity_increment"] == "0.00000001"
    assert len(h.call("get_currency_pairs")["results"]) == len(pairs)


@pytest.mark.parametrize(("args", "field"), [({"limit": 0}, "limit"), ({"cursor": "zz"}, "cursor")])
def test_currency_pairs_check_limit_and_cursor(
    h: Harness, args: dict[str, Any], field: str
) -> None:
    error = h.fail("get_currency_pairs", **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


@pytest.mark.parametrize("instant", [START, et(2026, 12, 5, 3, 0)], ids=["weekday", "saturday"])
def test_crypto_mark_sits_between_bid_and_ask_and_within_the_days_range(instant: datetime) -> None:
    h = build(start=instant)
    data = h.call("get_crypto_quotes", symbols=["BTC", "eth-usd", "SHIB", "DOGE", "NOPE"])
    assert data["not_found"] == ["NOPE"]
    pair_ids = {p["symbol"]: p["id"] for p in h.call("get_currency_pairs")["results"]}
    for quote in data["results"]:
        bid, mark, ask = (Decimal(quote[k]) for k in ("bid_price", "mark_price", "ask_price"))
        assert bid < mark < ask
        assert Decimal(quote["low_price"]) <= mark <= Decimal(quote["high_price"])
        assert quote["id"] == pair_ids[quote["symbol"]]
        assert TIMESTAMP.match(quote["updated_at"])


def test_crypto_quotes_move_around_the_clock(h: Harness) -> None:
    h.at(et(2026, 12, 5, 12, 0))
    saturday_noon = h.call("get_crypto_quotes", symbols=["BTC"])["results"][0]
    h.step(hours=1)
    later = h.call("get_crypto_quotes", symbols=["BTC"])["results"][0]
    assert saturday_noon["mark_price"] != later["mark_price"]


def test_crypto_quotes_check_the_account_and_the_timezone(h: Harness) -> None:
    rhs = h.venue.accounts.agentic.rhs_account_number
    data = h.call(
        "get_crypto_quotes", symbols=["BTC"], rhs_account_number=rhs, timezone="Europe/Paris"
    )
    assert data["results"][0]["symbol"] == "BTC-USD"
    missing = h.fail("get_crypto_quotes", symbols=["BTC"], rhs_account_number="nope")
    assert (missing["code"], missing["field"]) == ("NOT_FOUND", "rhs_account_number")
    for zone in ("Mars/Olympus", "../etc"):
        bad = h.fail("get_crypto_quotes", symbols=["BTC"], timezone=zone)
        assert (bad["code"], bad["field"]) == ("INVALID_ARGUMENT", "timezone")
    too_many = h.fail("get_crypto_quotes", symbols=[f"C{i}" for i in range(21)])
    assert (too_many["code"], too_many["field"]) == ("INVALID_ARGUMENT", "symbols")
