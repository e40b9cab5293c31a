"""Research tools: generated data that is plausible, consistent across tools, and seeded."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from lists_testkit import START, Harness, build

from ordergate.inventory import load_inventory


@pytest.fixture
def h() -> Harness:
    return build()


def _search_validator() -> Draft202012Validator:
    schema = load_inventory()["search"].output_schema
    assert schema is not None
    return Draft202012Validator(schema)


@pytest.mark.parametrize(
    "args",
    [
        {"query": "AAPL"},
        {"query": "bit"},
        {"query": "s&p", "limit": 1},
        {"query": "index", "asset_type": "index"},
        {"query": "a", "asset_type": "crypto", "limit": 50},
        {"query": "zzzzzz"},
    ],
)
def test_search_results_validate_against_the_contract_output_schema(
    h: Harness, args: dict[str, Any]
) -> None:
    result = h.result("search", **args)
    assert result["isError"] is False
    _search_validator().validate(result["structuredContent"])


def test_search_finds_by_symbol_and_name_and_narrows_by_asset_type(h: Harness) -> None:
    found = h.call("search", query="apple")
    assert found["results"][0]["symbol"] == "AAPL"
    assert (
        found["results"][0]["instrument_id"] == h.venue.market.universe.equity("AAPL").instrument_id
    )
    crypto = h.call("search", query="BTC", asset_type="crypto")
    assert crypto["results"] is None and crypto["market_indexes"] is None
    assert crypto["currency_pairs"][0]["symbol"] == "BTC-USD"
    assert len(h.call("search", query="a", limit=2)["results"]) == 2


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"query": "  "}, "query"),
        ({"query": "x" * 101}, "query"),
        ({"query": "a", "asset_type": "bond"}, "asset_type"),
        ({"query": "a", "limit": 0}, "limit"),
        ({"query": "a", "limit": 51}, "limit"),
    ],
)
def test_search_refuses_bad_arguments(h: Harness, args: dict[str, Any], field: str) -> None:
    error = h.fail("search", **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_fundamentals_agree_with_the_live_quote_and_shares(h: Harness) -> None:
    data = h.call("get_equity_fundamentals", symbols=["aapl", "SPY", "NOPE"])
    assert data["not_found"] == ["NOPE"]
    aapl, spy = data["results"]
    price = h.venue.market.quote("AAPL").last_trade_price
    assert Decimal(aapl["market_cap"]) == price * int(aapl["shares_outstanding"])
    assert Decimal(aapl["low_52_weeks"]) <= price <= Decimal(aapl["high_52_weeks"])
    assert Decimal(aapl["low"]) <= Decimal(aapl["high"])
    assert int(aapl["float"]) <= int(aapl["shares_outstanding"])
    assert aapl["sector"] == "Technology"
    assert spy["pe_ratio"] is None and spy["sector"] == "Exchange Traded Fund"
    financials = h.call("get_financials", symbols=["AAPL"])["results"][0]["statements"]
    ttm = sum(Decimal(s["income_statement"]["eps_diluted"]) for s in financials)
    assert Decimal(aapl["eps_ttm"]) == ttm
    if ttm > 0:
        assert Decimal(aapl["pe_ratio"]) == (price / ttm).quantize(Decimal("0.01"))
    h.venue.market.shock("AAPL", Decimal(10))
    h.step(seconds=1)
    moved = h.call("get_equity_fundamentals", symbols=["AAPL"])["results"][0]
    assert Decimal(moved["market_cap"]) > Decimal(aapl["market_cap"])
    extended = h.call("get_equity_fundamentals", symbols=["AAPL"], bounds="extended")
    assert extended["results"][0]["bounds"] == "extended"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"symbols": []}, "symbols"),
        ({"symbols": None}, "symbols"),
        ({"symbols": [f"S{n}" for n in range(21)]}, "symbols"),
        ({"symbols": ["AAPL", ""]}, "symbols"),
        ({"symbols": ["AAPL"], "bounds": "24_7"}, "bounds"),
    ],
)
def test_fundamentals_refuse_bad_symbol_lists_and_bounds(
    h: Harness, args: dict[str, Any], field: str
) -> None:
    error = h.fail("get_equity_fundamentals", **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_financials_add_up_and_annuals_are_four_quarters(h: Harness) -> None:
    data = h.call("get_financials", symbols=["MSFT", "QQQ", "NOPE"], limit=8)
    assert data["not_found"] == ["NOPE"]
    msft, qqq = data["results"]
    assert qqq["statements"] == []
    quarters = msft["statements"]
    assert len(quarters) == 8
    for statement in quarters:
        income = statement["income_statement"]
        assert Decimal(income["gross_profit"]) == Decimal(income["revenue"]) - Decimal(
            income["cost_of_revenue"]
        )
        balance = statement["balance_sheet"]
        assert Decimal(balance["shareholders_equity"]) == Decimal(
            balance["total_assets"]
        ) - Decimal(balance["total_liabilities"])
        assert statement["report_date"] < START.date().isoformat()
    annual = h.call("get_financials", symbols=["MSFT"], period="annual", limit=1)
    (year,) = annual["results"][0]["statements"]
    assert year["fiscal_quarter"] is None
    assert (year["period_start"], year["period_end"]) == ("2025-01-01", "2025-12-31")
    same_year = [q for q in quarters if q["fiscal_year"] == 2025]
    assert len(same_year) == 4
    assert Decimal(year["income_statement"]["revenue"]) == sum(
        Decimal(q["income_statement"]["revenue"]) for q in same_year
    )


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"symbols": ["AAPL"], "period": "monthly"}, "period"),
        ({"symbols": ["AAPL"], "limit": 13}, "limit"),
        ({"symbols": [f"S{n}" for n in range(11)]}, "symbols"),
    ],
)
def test_financials_refuse_bad_arguments(h: Harness, args: dict[str, Any], field: str) -> None:
    assert h.fail("get_financials", **args)["field"] == field


def test_earnings_results_match_financials_and_the_news(h: Harness) -> None:
    results = h.call("get_earnings_results", symbol="JPM")
    assert len(results["results"]) == 8
    latest = results["results"][0]
    assert latest["report"]["verified"] is True
    statement = h.call("get_financials", symbols=["JPM"], limit=1)["results"][0]["statements"][0]
    assert (latest["year"], latest["quarter"]) == (
        statement["fiscal_year"],
        statement["fiscal_quarter"],
    )
    assert latest["eps"]["actual"] == statement["income_statement"]["eps_diluted"]
    upcoming = results["next_report"]
    assert (
        upcoming["eps"]["actual"] is None and upcoming["report"]["date"] >= START.date().isoformat()
    )
    assert h.call("get_earnings_results", symbol="SPY") == {
        "symbol": "SPY",
        "results": [],
        "next_report": None,
    }
    error = h.fail("get_earnings_results", symbol="NOPE")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "symbol")


def test_earnings_calendar_lists_reports_in_the_window_and_honours_the_watchlist(
    h: Harness,
) -> None:
    window = h.call("get_earnings_calendar", start_date="2026-10-15", days=31)
    events = window["earnings"]
    assert events and all("2026-10-15" <= e["report"]["date"] <= "2026-11-14" for e in events)
    assert all(e["eps"]["actual"] is not None for e in events)
    dates = [e["report"]["date"] for e in events]
    assert dates == sorted(dates)
    pick = events[0]["symbol"]
    own = h.call("get_watchlists")["watchlists"][0]["id"]
    h.call("add_to_watchlist", list_id=own, symbols=[pick])
    mine = h.call("get_earnings_calendar", start_date="2026-10-15", days=31, filter="watchlist")
    assert {e["symbol"] for e in mine["earnings"]} == {pick}
    default = h.call("get_earnings_calendar")
    assert (default["start_date"], default["end_date"]) == ("2026-12-01", "2026-12-07")
    for args, field in (
        ({"days": 0}, "days"),
        ({"days": 32}, "days"),
        ({"filter": "friends"}, "filter"),
        ({"start_date": "tomorrow"}, "start_date"),
    ):
        assert h.fail("get_earnings_calendar", **args)["field"] == field


def test_news_is_newest_first_pages_and_reports_earnings(h: Harness) -> None:
    first = h.call("get_equity_news", symbol="AMZN", limit=5)
    assert len(first["results"]) == 5 and first["next_cursor"]
    stamps = [a["published_at"] for a in first["results"]]
    assert stamps == sorted(stamps, reverse=True)
    assert all(a["published_at"] <= "2026-12-01T15:00:00Z" for a in first["results"])
    everything = h.call("get_equity_news", symbol="AMZN", limit=50)
    rest = everything["results"]
    cursor = everything["next_cursor"]
    while cursor:
        page = h.call("get_equity_news", symbol="AMZN", limit=50, cursor=cursor)
        rest += page["results"]
        cursor = page["next_cursor"]
    earnings = [a for a in rest if a["category"] == "earnings"]
    latest = h.call("get_earnings_results", symbol="AMZN")["results"][0]
    assert any(f"EPS ${latest['eps']['actual']}" in a["title"] for a in earnings)
    assert h.fail("get_equity_news", symbol="NOPE")["code"] == "NOT_FOUND"
    assert h.fail("get_equity_news", symbol="AMZN", limit=51)["field"] == "limit"
    assert (
        h.fail("get_equity_news", symbol="MSFT", cursor=first["next_cursor"])["field"] == "cursor"
    )


def test_analyst_ratings_count_and_target_around_the_price(h: Harness) -> None:
    data = h.call("get_equity_analyst_ratings", symbols=["NVDA", "SPY", "NOPE"])
    assert data["not_found"] == ["NOPE"]
    nvda, spy = data["results"]
    target = nvda["price_target"]
    assert Decimal(target["low"]) < Decimal(target["mean"]) < Decimal(target["high"])
    assert len(nvda["ratings"]) == 3
    assert {r["type"] for r in nvda["ratings"]} <= {"buy", "hold", "sell"}
    assert spy["price_target"] is None and spy["ratings"] == []
    assert h.fail("get_equity_analyst_ratings", symbols=[])["field"] == "symbols"


def test_politician_trades_filter_by_symbol_and_name(h: Harness) -> None:
    everyone = h.call("get_politician_trades")
    assert everyone["total"] > 0
    disclosed = [t["disclosure_date"] for t in everyone["trades"]]
    assert disclosed == sorted(disclosed, reverse=True)
    assert all(
        t["transaction_date"] <= t["disclosure_date"] <= "2026-12-01" for t in everyone["trades"]
    )
    symbol = everyone["trades"][0]["symbol"]
    by_symbol = h.call("get_politician_trades", equity_symbol=symbol.lower())["trades"]
    assert by_symbol and {t["symbol"] for t in by_symbol} == {symbol}
    name = everyone["trades"][0]["politician_name"]
    by_name = h.call("get_politician_trades", politician_name=name.split()[1].upper())["trades"]
    assert by_name and {t["politician_name"] for t in by_name} == {name}
    assert h.call("get_politician_trades", politician_name="nobody at all")["trades"] == []
    error = h.fail("get_politician_trades", equity_symbol="NOPE")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "equity_symbol")


def test_technical_indicators_follow_the_bars(h: Harness) -> None:
    sma = h.call(
        "get_equity_technical_indicators",
        symbol="AAPL",
        type="sma",
        interval="day",
        start_time="2026-11-02T00:00:00Z",
        period=5,
    )
    bars = h.venue.market.bars("AAPL", datetime.fromisoformat("2026-10-20T00:00:00+00:00"))
    closes = [b.close_price for b in bars]
    last = Decimal(sma["values"][-1]["value"])
    assert last == (sum(closes[-5:], Decimal(0)) / 5).quantize(Decimal("0.0001"))
    assert sma["values"][0]["begins_at"] >= "2026-11-02"
    assert all(v["value"] is not None for v in sma["values"])
    latest = h.call(
        "get_equity_technical_indicators",
        symbol="AAPL",
        type="sma",
        interval="day",
        start_time="2026-11-02T00:00:00Z",
        period=5,
        output="latest",
    )
    assert latest["values"] == sma["values"][-1:]


@pytest.mark.parametrize(
    ("kind", "extra", "keys"),
    [
        ("ema", {}, {"value"}),
        ("rsi", {"method": "hlc3"}, {"value"}),
        (
            "macd",
            {"fast_period": 5, "slow_period": 10, "signal_period": 3},
            {"macd", "signal", "histogram"},
        ),
        ("bbands", {"num_std": 1.5, "method": "ohlc4"}, {"lower", "middle", "upper"}),
        ("atr", {"period": 7}, {"value"}),
        ("keltner", {"multiplier": 1, "method": "hl2"}, {"lower", "middle", "upper"}),
    ],
)
def test_every_indicator_type_returns_its_columns(
    h: Harness, kind: str, extra: dict[str, Any], keys: set[str]
) -> None:
    data = h.call(
        "get_equity_technical_indicators",
        symbol="MSFT",
        type=kind,
        interval="hour",
        start_time="2026-11-20T00:00:00Z",
        end_time="2026-11-30T00:00:00Z",
        bounds="extended",
        **extra,
    )
    assert data["values"]
    assert all(set(v) == keys | {"begins_at"} for v in data["values"])
    assert all(v[k] is not None for v in data["values"] for k in keys)
    if kind in ("bbands", "keltner"):
        assert all(
            Decimal(v["lower"]) <= Decimal(v["middle"]) <= Decimal(v["upper"])
            for v in data["values"]
        )
    if kind == "rsi":
        assert all(0 <= Decimal(v["value"]) <= 100 for v in data["values"])


@pytest.mark.parametrize(
    ("args", "field", "code"),
    [
        ({"symbol": "NOPE"}, "symbol", "NOT_FOUND"),
        ({"type": "vwap"}, "type", "INVALID_ARGUMENT"),
        ({"interval": "fortnight"}, "interval", "INVALID_ARGUMENT"),
        ({"bounds": "weekends"}, "bounds", "INVALID_ARGUMENT"),
        ({"start_time": "last week"}, "start_time", "INVALID_ARGUMENT"),
        ({"start_time": "2027-01-01T00:00:00Z"}, "start_time", "INVALID_ARGUMENT"),
        ({"num_std": 2}, "num_std", "INVALID_ARGUMENT"),
        ({"period": 1}, "period", "INVALID_ARGUMENT"),
        ({"type": "bbands", "num_std": 50}, "num_std", "INVALID_ARGUMENT"),
        ({"type": "macd", "fast_period": 30}, "fast_period", "INVALID_ARGUMENT"),
        ({"method": "median"}, "method", "INVALID_ARGUMENT"),
        ({"output": "chart"}, "output", "INVALID_ARGUMENT"),
        ({"adjustment_type": "magic"}, "adjustment_type", "INVALID_ARGUMENT"),
    ],
)
def test_technical_indicators_refuse_bad_arguments(
    h: Harness, args: dict[str, Any], field: str, code: str
) -> None:
    base = {"symbol": "AAPL", "type": "sma", "interval": "day", "start_time": "2026-11-01"}
    error = h.fail("get_equity_technical_indicators", **{**base, **args})
    assert (error["code"], error["field"]) == (code, field)


def test_sec_filings_index_documents_and_facts_agree_with_financials(h: Harness) -> None:
    index = h.call("get_sec_filing_index", symbol="AAPL")
    filings = index["filings"]
    assert index["next_cursor"] and len(filings) == 25
    stamps = [f["filed_at"] for f in filings]
    assert stamps == sorted(stamps, reverse=True)
    assert all(f["filed_at"] <= "2026-12-01T15:00:00Z" for f in filings)
    periodic = h.call("get_sec_filing_index", symbol="AAPL", form_type=["10-q"])["filings"]
    assert periodic and {f["form_type"] for f in periodic} == {"10-Q"}
    ten_q = periodic[0]
    document = h.call("get_sec_filing", filing_id=ten_q["filing_id"])
    assert document["filing"] == ten_q
    assert "mdna" in {s["section"] for s in document["sections"]}
    mdna = h.call("get_sec_filing", filing_id=ten_q["filing_id"], section="MDNA")["section"]
    assert "Revenue" in mdna["text"]
    facts = h.call(
        "get_sec_filing_facts",
        filing_ids=[ten_q["filing_id"], "0000000001-26-000001"],
        concepts=["us-gaap:Revenues", "EarningsPerShareDiluted", "NoSuchConcept"],
    )
    assert facts["not_found"] == ["0000000001-26-000001"]
    (result,) = facts["results"]
    assert result["missing_concepts"] == ["NoSuchConcept"]
    statement = h.call("get_financials", symbols=["AAPL"], limit=1)["results"][0]["statements"][0]
    assert ten_q["period_of_report"] == statement["period_end"]
    totals = [
        f for f in result["facts"] if f["concept"] == "us-gaap:Revenues" and not f["dimensions"]
    ]
    assert Decimal(totals[0]["value"]) == Decimal(statement["income_statement"]["revenue"])
    eps = next(f for f in result["facts"] if f["concept"] == "us-gaap:EarningsPerShareDiluted")
    assert Decimal(eps["value"]) == Decimal(statement["income_statement"]["eps_diluted"])
    segments = [
        f for f in result["facts"] if "us-gaap:StatementBusinessSegmentsAxis" in f["dimensions"]
    ]
    assert sum(Decimal(f["value"]) for f in segments) == Decimal(totals[0]["value"])


def test_sec_filing_facts_catalog_filters_and_pages(h: Harness) -> None:
    ten_k = h.call("get_sec_filing_index", symbol="MSFT", form_type=["10-K"])["filings"][0]
    catalog = h.call("get_sec_filing_facts_catalog", filing_id=ten_k["filing_id"])
    assert catalog["total"] == len(catalog["concepts"]) and catalog["next_offset"] is None
    revenue = h.call(
        "get_sec_filing_facts_catalog", filing_id=ten_k["filing_id"], concept_contains="revenue"
    )["concepts"]
    assert [c["concept"] for c in revenue] == ["us-gaap:Revenues", "us-gaap:CostOfRevenue"]
    by_axis = h.call(
        "get_sec_filing_facts_catalog",
        filing_id=ten_k["filing_id"],
        axis_name_in=["srt:StatementGeographicalAxis"],
    )["concepts"]
    assert [c["concept"] for c in by_axis] == ["us-gaap:Revenues"]
    assert (
        h.call("get_sec_filing_facts_catalog", filing_id=ten_k["filing_id"], offset=100)["concepts"]
        == []
    )
    annual = h.call("get_sec_filing_facts", filing_ids=[ten_k["filing_id"]], concepts=["Revenues"])
    fact = annual["results"][0]["facts"][0]
    assert fact["period_start"].endswith("-01-01") and fact["period_end"].endswith("-12-31")
    year = h.call("get_financials", symbols=["MSFT"], period="annual", limit=1)["results"][0]
    assert Decimal(fact["value"]) == Decimal(year["statements"][0]["income_statement"]["revenue"])


def test_other_filing_forms_have_sections_and_no_financial_facts(h: Harness) -> None:
    filings = h.call("get_sec_filing_index", symbol="AAPL", since="2025-01-01", until="2026-12-01")
    cursor = filings["next_cursor"]
    every = filings["filings"]
    while cursor:
        more = h.call(
            "get_sec_filing_index",
            symbol="AAPL",
            since="2025-01-01",
            until="2026-12-01",
            cursor=cursor,
        )
        every += more["filings"]
        cursor = more["next_cursor"]
    forms = {f["form_type"]: f for f in every}
    assert set(forms) == {"10-K", "10-Q", "8-K", "4", "DEF 14A"}
    for form, section in (("8-K", "item_2_02"), ("4", "transactions"), ("DEF 14A", "proposals")):
        text = h.call("get_sec_filing", filing_id=forms[form]["filing_id"], section=section)
        assert text["section"]["text"]
    eight_k = h.call("get_sec_filing_facts_catalog", filing_id=forms["8-K"]["filing_id"])
    assert {c["concept"] for c in eight_k["concepts"]} == {
        "dei:DocumentType",
        "dei:EntityRegistrantName",
        "dei:TradingSymbol",
    }
    form4 = h.call("get_sec_filing_facts_catalog", filing_id=forms["4"]["filing_id"])
    assert form4["concepts"] == [] and forms["4"]["has_xbrl"] is False
    for name, section in (("10-K", "business"), ("10-K", "risk_factors"), ("10-K", "controls")):
        assert h.call("get_sec_filing", filing_id=forms[name]["filing_id"], section=section)
    for section in ("item_9_01",):
        assert h.call("get_sec_filing", filing_id=forms["8-K"]["filing_id"], section=section)
    proxy = forms["DEF 14A"]["filing_id"]
    assert h.call("get_sec_filing", filing_id=proxy, section="executive_compensation")
    assert h.call(
        "get_sec_filing", filing_id=forms["10-K"]["filing_id"], section="financial_statements"
    )


@pytest.mark.parametrize(
    ("name", "args", "field", "code"),
    [
        ("get_sec_filing_index", {"symbol": "NOPE"}, "symbol", "NOT_FOUND"),
        (
            "get_sec_filing_index",
            {"symbol": "AAPL", "form_type": ["S-1"]},
            "form_type",
            "INVALID_ARGUMENT",
        ),
        (
            "get_sec_filing_index",
            {"symbol": "AAPL", "since": "2026-06-01", "until": "2026-01-01"},
            "since",
            "INVALID_ARGUMENT",
        ),
        ("get_sec_filing_index", {"symbol": "AAPL", "until": "never"}, "until", "INVALID_ARGUMENT"),
        ("get_sec_filing", {"filing_id": "not-an-accession"}, "filing_id", "NOT_FOUND"),
        ("get_sec_filing", {"filing_id": "0001234567-26-201060"}, "filing_id", "NOT_FOUND"),
        (
            "get_sec_filing_facts",
            {"filing_ids": [], "concepts": ["Revenues"]},
            "filing_ids",
            "INVALID_ARGUMENT",
        ),
        (
            "get_sec_filing_facts",
            {"filing_ids": ["a"] * 11, "concepts": ["Revenues"]},
            "filing_ids",
            "INVALID_ARGUMENT",
        ),
        (
            "get_sec_filing_facts",
            {"filing_ids": ["a"], "concepts": []},
            "concepts",
            "INVALID_ARGUMENT",
        ),
        (
            "get_sec_filing_facts",
            {"filing_ids": ["a"], "concepts": ["c"] * 26},
            "concepts",
            "INVALID_ARGUMENT",
        ),
        ("get_sec_filing_facts_catalog", {"filing_id": "x"}, "filing_id", "NOT_FOUND"),
    ],
)
def test_sec_tools_refuse_bad_arguments(
    h: Harness, name: str, args: dict[str, Any], field: str, code: str
) -> None:
    error = h.fail(name, **args)
    assert (error["code"], error["field"]) == (code, field)


def test_filing_sections_and_offsets_are_checked(h: Harness) -> None:
    filing_id = h.call("get_sec_filing_index", symbol="AAPL")["filings"][0]["filing_id"]
    assert h.fail("get_sec_filing", filing_id=filing_id, section="gossip")["field"] == "section"
    assert (
        h.fail("get_sec_filing_facts_catalog", filing_id=filing_id, offset=-1)["field"] == "offset"
    )
    assert h.call("get_sec_filing_index", symbol="SPY")["filings"] == []


def test_a_filing_not_yet_filed_cannot_be_read(h: Harness) -> None:
    later = build(start=datetime.fromisoformat("2027-03-01T15:00:00+00:00"))
    newest = later.call("get_sec_filing_index", symbol="AAPL")["filings"][0]["filing_id"]
    error = h.fail("get_sec_filing", filing_id=newest)
    assert error["code"] == "NOT_FOUND"


_RESEARCH_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("search", {"query": "a"}),
    ("get_equity_fundamentals", {"symbols": ["AAPL", "KO"]}),
    ("get_financials", {"symbols": ["AAPL"], "period": "annual"}),
    ("get_equity_news", {"symbol": "TSLA", "limit": 20}),
    ("get_earnings_calendar", {"start_date": "2026-10-15", "days": 31}),
    ("get_earnings_results", {"symbol": "NFLX"}),
    ("get_equity_analyst_ratings", {"symbols": ["AAPL", "BA"]}),
    ("get_politician_trades", {}),
    (
        "get_equity_technical_indicators",
        {"symbol": "AAPL", "type": "rsi", "interval": "day", "start_time": "2026-10-01"},
    ),
    ("get_sec_filing_index", {"symbol": "AAPL"}),
)


def test_two_venues_with_the_same_seed_give_the_same_research() -> None:
    one, two = build(seed=11), build(seed=11)
    for name, args in _RESEARCH_CALLS:
        assert one.call(name, **args) == two.call(name, **args), name


def test_a_different_seed_tells_a_different_story() -> None:
    one, two = build(seed=11), build(seed=12)
    differing = [
        name for name, args in _RESEARCH_CALLS if one.call(name, **args) != two.call(name, **args)
    ]
    assert {"get_financials", "get_equity_news", "get_politician_trades"} <= set(differing)
