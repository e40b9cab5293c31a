"""Option research tools: chains, contracts with paging, quotes with closes, historicals."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from market_data_testkit import START, TIMESTAMP, Harness, build, et

from ordergate.inventory import load_inventory
from ordergate.sandbox.market import MAX_BARS
from ordergate.sandbox.tools.option_data import INSTRUMENTS_PAGE

UNKNOWN = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def h() -> Harness:
    return build()


def _contracts(h: Harness, **args: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        data = h.call("get_option_instruments", **args, **({"cursor": cursor} if cursor else {}))
        found.extend(data["instruments"])
        cursor = data.get("next")
        if cursor is None:
            return found


def _contract(h: Harness, expiration: str = "2026-12-18", strike: str = "275") -> dict[str, Any]:
    listed: list[dict[str, Any]] = h.call(
        "get_option_instruments",
        chain_symbol="AAPL",
        expiration_dates=expiration,
        strike_price=strike,
        type="call",
    )["instruments"]
    [found] = listed
    return found


# -- the contract ----------------------------------------------------------------------------


@pytest.mark.req("mcp.tools.output-valid")
def test_option_results_validate_against_the_captured_output_schema_in_edge_cases(
    h: Harness,
) -> None:
    weekly = _contract(h, expiration="2026-12-04")["id"]
    spy = h.call("get_option_chains", underlying_symbol="SPY")["chains"][0]["id"]
    h.at(et(2026, 12, 7, 17, 0))  # the weekly has expired; after the bell
    cases: list[tuple[str, dict[str, Any]]] = [
        ("get_option_chains", {}),
        ("get_option_chains", {"ids": spy, "underlying_symbol": "QQQ"}),
        ("get_option_instruments", {"chain_symbol": "IWM", "strike_price": "1"}),
        ("get_option_instruments", {"ids": weekly}),
        ("get_option_instruments", {"chain_symbol": "MSFT", "expiration_dates": "2027-01-15"}),
        ("get_option_quotes", {"instrument_ids": [weekly]}),
        ("get_option_historicals", {"instrument_ids": [UNKNOWN], "start_time": "2026-12-01"}),
        ("get_option_historicals", {"instrument_ids": [weekly], "start_time": "2026-12-01"}),
    ]
    for name, args in cases:
        schema = load_inventory()[name].output_schema
        assert schema is not None
        result = h.result(name, **args)
        assert result["isError"] is False, (name, result)
        Draft202012Validator(schema).validate(result["structuredContent"])


# -- get_option_chains -----------------------------------------------------------------------


def test_every_chain_is_listed_without_filters_and_one_by_underlying_symbol(h: Harness) -> None:
    chains = h.call("get_option_chains")["chains"]
    symbols = [chain["symbol"] for chain in chains]
    assert symbols == ["AAPL", "SPY", "QQQ", "TSLA", "NVDA", "MSFT", "AMD", "IWM"]
    [aapl] = h.call("get_option_chains", underlying_symbol="aapl")["chains"]
    assert aapl == chains[0]
    assert aapl["underlying_instruments"] == [
        {"instrument": h.venue.market.universe.equity("AAPL").instrument_id, "symbol": "AAPL"}
    ]
    assert aapl["expiration_dates"][0] == "2026-12-04"
    assert aapl["trade_value_multiplier"] == "100"
    assert aapl["min_ticks"] == {"above_tick": "0.01", "below_tick": "0.01", "cutoff_price": "3.00"}
    msft = h.call("get_option_chains", underlying_symbol="MSFT")["chains"][0]
    assert msft["min_ticks"]["above_tick"] == "0.05"


def test_chains_by_id_and_underlying_symbol_combine_as_filters(h: Harness) -> None:
    chains = {c["symbol"]: c["id"] for c in h.call("get_option_chains")["chains"]}
    both = h.call("get_option_chains", ids=f"{chains['SPY']}, {chains['QQQ'].upper()}")["chains"]
    assert [c["symbol"] for c in both] == ["SPY", "QQQ"]
    narrowed = h.call("get_option_chains", ids=chains["SPY"], underlying_symbol="SPY")["chains"]
    assert [c["symbol"] for c in narrowed] == ["SPY"]
    assert h.call("get_option_chains", ids=chains["SPY"], underlying_symbol="QQQ")["chains"] == []


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        ({"underlying_symbol": "KO"}, "NOT_FOUND", "underlying_symbol"),
        ({"underlying_symbol": "NOPE"}, "NOT_FOUND", "underlying_symbol"),
        ({"ids": UNKNOWN}, "NOT_FOUND", "ids"),
        ({"ids": "AAPL"}, "INVALID_ARGUMENT", "ids"),
        ({"ids": " , "}, "INVALID_ARGUMENT", "ids"),
    ],
)
def test_chain_lookups_that_find_nothing_are_refused(
    h: Harness, args: dict[str, Any], code: str, field: str
) -> None:
    error = h.fail("get_option_chains", **args)
    assert (error["code"], error["field"]) == (code, field)


# -- get_option_instruments ------------------------------------------------------------------


def test_a_chains_contracts_page_through_every_open_contract_once(h: Harness) -> None:
    first = h.call("get_option_instruments", chain_symbol="AAPL")
    assert len(first["instruments"]) == INSTRUMENTS_PAGE
    contracts = _contracts(h, chain_symbol="AAPL")
    expected = h.venue.market.option_instruments("AAPL")
    assert [c["id"] for c in contracts] == [c.id for c in expected]
    assert all(c["state"] == "active" and c["tradability"] == "tradable" for c in contracts)
    chain_id = h.call("get_option_chains", underlying_symbol="AAPL")["chains"][0]["id"]
    assert _contracts(h, chain_id=chain_id) == contracts


def test_contracts_filter_by_expirations_type_strike_and_state(h: Harness) -> None:
    chosen = _contracts(
        h, chain_symbol="AAPL", expiration_dates="2026-12-18,2026-12-04", type="PUT", state="active"
    )
    assert {c["expiration_date"] for c in chosen} == {"2026-12-04", "2026-12-18"}
    assert {c["type"] for c in chosen} == {"put"}
    strike = _contracts(h, chain_symbol="AAPL", strike_price="275.00", tradability="tradable")
    assert {c["strike_price"] for c in strike} == {"275.0000"}
    assert len(strike) == 2 * len(
        h.call("get_option_chains", underlying_symbol="AAPL")["chains"][0]["expiration_dates"]
    )
    assert _contracts(h, chain_symbol="AAPL", state="expired") == []
    contract = _contract(h)
    assert contract["sellout_datetime"] == "2026-12-18T20:45:00.000000Z"
    assert TIMESTAMP.match(contract["sellout_datetime"])


def test_contracts_by_id_include_expired_ones(h: Harness) -> None:
    weekly = _contract(h, expiration="2026-12-04")
    monthly = _contract(h)
    h.at(et(2026, 12, 7, 10, 0))
    listed = h.call("get_option_instruments", ids=f"{weekly['id']},{monthly['id']}")["instruments"]
    assert [(c["state"], c["tradability"]) for c in listed] == [
        ("expired", "untradable"),
        ("active", "tradable"),
    ]
    expired = h.call(
        "get_option_instruments", ids=f"{weekly['id']},{monthly['id']}", state="expired"
    )
    assert [c["id"] for c in expired["instruments"]] == [weekly["id"]]
    other_chain = h.call("get_option_instruments", ids=weekly["id"], chain_symbol="SPY")
    assert other_chain["instruments"] == []


def test_chain_id_and_chain_symbol_that_disagree_list_nothing(h: Harness) -> None:
    spy = h.call("get_option_chains", underlying_symbol="SPY")["chains"][0]["id"]
    assert h.call("get_option_instruments", chain_id=spy, chain_symbol="AAPL")["instruments"] == []


def test_a_cursor_only_resumes_the_listing_it_came_from(h: Harness) -> None:
    cursor = h.call("get_option_instruments", chain_symbol="AAPL")["next"]
    error = h.fail("get_option_instruments", chain_symbol="SPY", cursor=cursor)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "cursor")


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        ({}, "INVALID_ARGUMENT", "chain_symbol"),
        ({"chain_symbol": "AAPL", "type": "straddle"}, "INVALID_ARGUMENT", "type"),
        ({"chain_symbol": "AAPL", "state": "open"}, "INVALID_ARGUMENT", "state"),
        ({"chain_symbol": "AAPL", "tradability": "maybe"}, "INVALID_ARGUMENT", "tradability"),
        ({"chain_symbol": "AAPL", "strike_price": "-5"}, "INVALID_ARGUMENT", "strike_price"),
        (
            {"chain_symbol": "AAPL", "expiration_dates": "12/18/2026"},
            "INVALID_ARGUMENT",
            "expiration_dates",
        ),
        ({"chain_id": "not-a-uuid"}, "INVALID_ARGUMENT", "chain_id"),
        ({"chain_id": UNKNOWN}, "NOT_FOUND", "chain_id"),
        ({"chain_symbol": "KO"}, "NOT_FOUND", "chain_symbol"),
        ({"ids": UNKNOWN}, "NOT_FOUND", "ids"),
    ],
)
def test_contract_filters_are_checked_and_named(
    h: Harness, args: dict[str, Any], code: str, field: str
) -> None:
    error = h.fail("get_option_instruments", **args)
    assert (error["code"], error["field"]) == (code, field)


# -- get_option_quotes -----------------------------------------------------------------------


def test_option_quotes_show_the_markets_quote_and_the_previous_close(h: Harness) -> None:
    contract = _contract(h)
    [result] = h.call("get_option_quotes", instrument_ids=[contract["id"].upper()])["results"]
    quote = h.venue.market.option_quote(contract["id"])
    wire = result["quote"]
    assert wire["instrument_id"] == contract["id"]
    assert Decimal(wire["mark_price"]) == quote.mark_price
    assert Decimal(wire["bid_price"]) <= Decimal(wire["mark_price"]) <= Decimal(wire["ask_price"])
    assert wire["delta"] is not None and TIMESTAMP.match(wire["updated_at"])
    assert "underlying_price" not in wire
    assert result["close"] == {
        "instrument_id": contract["id"],
        "symbol": "AAPL  261218C00275000",
        "date": wire["previous_close_date"],
        "price": wire["previous_close_price"],
        "interpolated": False,
        "source": "sandbox",
    }


def test_after_the_bell_the_close_is_todays_and_tomorrow_quotes_it_as_previous() -> None:
    h = build(start=et(2026, 12, 1, 17, 0))
    contract = _contract(h)
    today = h.call("get_option_quotes", instrument_ids=[contract["id"]])["results"][0]
    assert today["close"]["date"] == "2026-12-01"
    assert today["quote"]["previous_close_date"] == "2026-11-30"
    h.at(et(2026, 12, 2, 8, 0))
    tomorrow = h.call("get_option_quotes", instrument_ids=[contract["id"]])["results"][0]
    assert tomorrow["quote"]["previous_close_date"] == "2026-12-01"
    assert tomorrow["quote"]["previous_close_price"] == today["close"]["price"]
    assert tomorrow["close"] == today["close"]


def test_an_expired_contract_quotes_without_greeks(h: Harness) -> None:
    weekly = _contract(h, expiration="2026-12-04")
    h.at(et(2026, 12, 7, 10, 0))
    wire = h.call("get_option_quotes", instrument_ids=[weekly["id"]])["results"][0]["quote"]
    assert wire["delta"] is None and wire["implied_volatility"] is None
    assert wire["chance_of_profit_long"] is None and wire["chance_of_profit_short"] is None


def test_more_than_twenty_ids_get_quotes_without_closes(h: Harness) -> None:
    ids = [c["id"] for c in h.call("get_option_instruments", chain_symbol="SPY")["instruments"]]
    data = h.call("get_option_quotes", instrument_ids=ids[:21])
    assert len(data["results"]) == 21 and "20" in data["closes_error"]
    assert all("close" not in r for r in data["results"])


@pytest.mark.parametrize(
    ("ids", "code"),
    [
        ([UNKNOWN], "NOT_FOUND"),
        (["AAPL"], "INVALID_ARGUMENT"),
        ([], "INVALID_ARGUMENT"),
        ([f"00000000-0000-4000-8000-{i:012d}" for i in range(101)], "INVALID_ARGUMENT"),
    ],
)
def test_option_quote_ids_are_checked(h: Harness, ids: list[str], code: str) -> None:
    error = h.fail("get_option_quotes", instrument_ids=ids)
    assert (error["code"], error["field"]) == (code, "instrument_ids")


@pytest.mark.req("sandbox.determinism")
def test_option_quotes_are_deterministic_per_seed_and_instant() -> None:
    first, second = build(seed=11), build(seed=11)
    ids = [_contract(first)["id"]]
    assert first.call("get_option_quotes", instrument_ids=ids) == second.call(
        "get_option_quotes", instrument_ids=ids
    )


# -- get_option_historicals ------------------------------------------------------------------


def test_option_bars_cover_regular_sessions_without_volume(h: Harness) -> None:
    contract = _contract(h)
    data = h.call(
        "get_option_historicals",
        instrument_ids=[contract["id"], UNKNOWN],
        start_time="2026-11-30T00:00:00Z",
        bounds="extended",
    )
    assert data["not_found"] == [UNKNOWN]
    [result] = data["results"]
    assert (result["symbol"], result["occ_symbol"]) == ("AAPL", "AAPL  261218C00275000")
    assert (result["interval"], result["bounds"]) == ("hour", "regular")
    bars = result["bars"]
    assert {bar["session"] for bar in bars} == {"regular"}
    assert all("volume" not in bar and TIMESTAMP.match(bar["begins_at"]) for bar in bars)
    quote = h.call("get_option_quotes", instrument_ids=[contract["id"]])["results"][0]["quote"]
    assert bars[-1]["close_price"] == quote["mark_price"]


def test_option_bars_over_the_cap_are_refused_naming_start_time(h: Harness) -> None:
    contract = _contract(h)
    start = START - timedelta(days=90)
    error = h.fail(
        "get_option_historicals",
        instrument_ids=[contract["id"]],
        start_time=start.isoformat(),
        interval="15second",
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "start_time")
    assert MAX_BARS == 5000


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"interval": "minute"}, "interval"),
        ({"bounds": "all"}, "bounds"),
        ({"start_time": "2026-13-01"}, "start_time"),
        (
            {"instrument_ids": [f"00000000-0000-4000-8000-{i:012d}" for i in range(11)]},
            "instrument_ids",
        ),
    ],
)
def test_option_historicals_arguments_are_checked(
    h: Harness, args: dict[str, Any], field: str
) -> None:
    error = h.fail(
        "get_option_historicals",
        **{"instrument_ids": [UNKNOWN], "start_time": "2026-11-30", **args},
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)
