"""Scanner tools: vocabulary, saved scans, and scans run over the market's quotes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from lists_testkit import Harness, build

from ordergate.sandbox.tools._metrics import metrics
from ordergate.sandbox.tools.scanner import MAX_SCANS


@pytest.fixture
def h() -> Harness:
    return build()


def _range(expression: str, predicate: str, *values: str) -> dict[str, Any]:
    return {"expression": expression, "predicate": predicate, "values": list(values)}


def test_filter_specs_describe_every_filter_type_and_preset(h: Harness) -> None:
    specs = h.call("get_scanner_filter_specs")
    assert [s["filter_type"] for s in specs["filter_specs"]] == [
        "range",
        "categorical",
        "indicator",
    ]
    assert "top_gainers" in {p["preset"] for p in specs["presets"]}
    assert specs["limits"]["max_scans"] == MAX_SCANS


def test_datapoints_are_listed_per_category(h: Harness) -> None:
    price = h.call("get_scanner_datapoints", category="price")["datapoints"]
    assert "last_price" in {d["key"] for d in price}
    profile = h.call("get_scanner_datapoints", category="PROFILE")["datapoints"]
    assert {d["filter_type"] for d in profile} == {"categorical"}
    technicals = h.call("get_scanner_datapoints", category="technicals")["datapoints"]
    assert [d["key"] for d in technicals] == ["sma", "ema", "rsi"]
    error = h.fail("get_scanner_datapoints", category="astrology")
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "category")
    assert h.fail("get_scanner_datapoints", category="")["field"] == "category"


def test_preview_keeps_exactly_the_equities_whose_live_quote_passes(h: Harness) -> None:
    result = h.call("preview_scan", filters=[_range("last_price", "between", "100", "300")])
    symbols = {row["symbol"] for row in result["rows"]}
    expected = {
        e.symbol
        for e in h.venue.market.universe.equities
        if e.tradeable and 100 <= h.venue.market.quote(e.symbol).last_trade_price <= 300
    }
    assert symbols == expected and result["total_matches"] == len(expected)
    changes = [Decimal(row["values"]["% Change"]) for row in result["rows"]]
    assert changes == sorted(changes, reverse=True)


def test_a_price_shock_moves_an_equity_into_a_scan(h: Harness) -> None:
    filters = [_range("percent_change", "greater_than", "30")]
    assert h.call("preview_scan", filters=filters)["rows"] == []
    h.venue.market.shock("KO", Decimal(50))
    h.step(seconds=1)
    rows = h.call("preview_scan", filters=filters)["rows"]
    assert [row["symbol"] for row in rows] == ["KO"]


def test_categorical_and_indicator_filters(h: Harness) -> None:
    etfs = h.call(
        "preview_scan",
        filters=[{"expression": "asset_type", "predicate": "in", "values": ["etf"]}],
        columns=[{"display_name": "Sector"}, {"display_name": "Last", "expression": "last_price"}],
    )
    assert etfs["rows"] and all(
        row["values"]["Sector"] == "Exchange Traded Fund" for row in etfs["rows"]
    )
    assert [c["display_name"] for c in etfs["columns"]] == ["Sector", "Last"]
    not_tech = h.call(
        "preview_scan",
        filters=[{"expression": "sector", "predicate": "not_in", "values": ["Technology"]}],
    )
    assert "AAPL" not in {row["symbol"] for row in not_tech["rows"]}
    above = h.call(
        "preview_scan",
        filters=[
            {
                "filter_type": "indicator",
                "plot": "sma",
                "length": 5,
                "predicate": "price_above",
                "values": [],
            }
        ],
    )
    below = h.call(
        "preview_scan",
        filters=[
            {
                "plot": "sma",
                "length": 5,
                "interval": "day",
                "predicate": "price_below",
                "values": [],
            }
        ],
    )
    both = {r["symbol"] for r in above["rows"]} & {r["symbol"] for r in below["rows"]}
    assert both == set()
    rsi = h.call(
        "preview_scan",
        filters=[{"plot": "ema", "length": 3, "predicate": "greater_than", "values": ["0"]}],
    )
    assert rsi["total_matches"] > 0


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ([_range("last_price", "about", "1")], "filters[0].predicate"),
        ([_range("nothing", "greater_than", "1")], "filters[0].expression"),
        ([{"predicate": "greater_than", "values": ["1"]}], "filters[0].expression"),
        ([_range("last_price", "between", "5")], "filters[0].values"),
        ([_range("last_price", "between", "5", "1")], "filters[0].values"),
        ([_range("last_price", "greater_than", "lots")], "filters[0].values"),
        (
            [{**_range("last_price", "greater_than", "1"), "filter_type": "fuzzy"}],
            "filters[0].filter_type",
        ),
        ([{**_range("sector", "in", "Tech"), "filter_type": "range"}], "filters[0].filter_type"),
        ([{**_range("last_price", "greater_than", "1"), "length": 5}], "filters[0].length"),
        ([{"expression": "sector", "predicate": "in", "values": []}], "filters[0].values"),
        ([{"plot": "vwap", "predicate": "greater_than", "values": ["1"]}], "filters[0].plot"),
        (
            [{"plot": "sma", "interval": "hour", "predicate": "greater_than", "values": ["1"]}],
            "filters[0].interval",
        ),
        (
            [{"plot": "sma", "length": 1, "predicate": "greater_than", "values": ["1"]}],
            "filters[0].length",
        ),
        ([{"plot": "sma", "predicate": "in", "values": ["1"]}], "filters[0].predicate"),
        ([{"plot": "sma", "predicate": "price_above", "values": ["1"]}], "filters[0].values"),
        ([_range("last_price", "greater_than", "1")] * 21, "filters"),
    ],
)
def test_preview_refuses_malformed_filters_by_path(
    h: Harness, filters: list[dict[str, Any]], field: str
) -> None:
    error = h.fail("preview_scan", filters=filters)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


@pytest.mark.parametrize(
    ("columns", "field"),
    [
        ([{"display_name": " "}], "columns[0].display_name"),
        ([{"display_name": "Vibes"}], "columns[0].expression"),
        ([{"display_name": "A", "expression": "nope"}], "columns[0].expression"),
        ([{"display_name": "Price"}, {"display_name": "price", "expression": "change"}], "columns"),
        ([{"display_name": f"C{n}", "expression": "change"} for n in range(16)], "columns"),
    ],
)
def test_preview_refuses_malformed_columns(
    h: Harness, columns: list[dict[str, Any]], field: str
) -> None:
    error = h.fail("preview_scan", filters=[], columns=columns)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_saved_scan_reads_back_and_runs_with_its_own_sorting(h: Harness) -> None:
    scan = h.call(
        "create_scan",
        title="Big",
        filters=[_range("market_cap", "greater_than", "100000000000")],
        columns=[
            {"display_name": "Cap", "expression": "market_cap", "order": 1},
            {"display_name": "Price", "visible": False},
        ],
    )["scan"]
    assert scan["title"] == "Big"
    assert [s["id"] for s in h.call("get_scans")["scans"]] == [scan["id"]]
    h.call("update_scan_config", scan_id=scan["id"], sorting_column="Cap", sorting_direction="asc")
    run = h.call("run_scan", scan_id=scan["id"])
    assert run["scan_id"] == scan["id"] and run["title"] == "Big"
    assert [c["display_name"] for c in run["columns"]] == ["Cap"]
    caps = [Decimal(row["values"]["Cap"]) for row in run["rows"]]
    assert caps == sorted(caps) and all(cap > 10**11 for cap in caps)
    h.call(
        "update_scan_filters", scan_id=scan["id"], filters=[_range("market_cap", "less_than", "0")]
    )
    assert h.call("run_scan", scan_id=scan["id"])["rows"] == []
    assert h.call("get_scans")["scans"][0]["filters"][0]["predicate"] == "less_than"


def test_scans_from_presets_and_copies(h: Harness) -> None:
    gainers = h.call("create_scan", preset="top_gainers")["scan"]
    assert gainers["title"] == "Top gainers" and gainers["sorting_direction"] == "desc"
    rows = h.call("run_scan", scan_id=gainers["id"])["rows"]
    assert all(Decimal(r["values"]["% Change"]) > 0 for r in rows)
    copy = h.call("create_scan", scan_id=gainers["id"])["scan"]
    assert copy["title"] == "Top gainers (copy)" and copy["filters"] == gainers["filters"]
    blank = h.call("create_scan")["scan"]
    assert (blank["title"], blank["filters"]) == ("Untitled scan", [])
    value = h.call("create_scan", preset="value", title="Cheap")["scan"]
    assert value["sorting_column"] == "pe_ratio"
    run = h.call("run_scan", scan_id=value["id"])
    cheap = set()
    for listed in h.venue.market.universe.equities:
        pe = metrics(h.venue, listed).pe_ratio
        if listed.tradeable and pe is not None and 0 <= pe <= 15:
            cheap.add(listed.symbol)
    assert {r["symbol"] for r in run["rows"]} == cheap


def test_text_sorting_and_missing_values_sort_last(h: Harness) -> None:
    scan = h.call(
        "create_scan",
        columns=[{"display_name": "Sector"}, {"display_name": "P/E ratio"}],
    )["scan"]
    h.call(
        "update_scan_config", scan_id=scan["id"], sorting_column="sector", sorting_direction="desc"
    )
    rows = h.call("run_scan", scan_id=scan["id"])["rows"]
    sectors = [r["values"]["Sector"] for r in rows]
    assert sectors == sorted(sectors, reverse=True)
    h.call(
        "update_scan_config",
        scan_id=scan["id"],
        sorting_column="P/E ratio",
        sorting_direction="desc",
    )
    pes = [r["values"]["P/E ratio"] for r in h.call("run_scan", scan_id=scan["id"])["rows"]]
    known = [Decimal(p) for p in pes if p is not None]
    assert known == sorted(known, reverse=True)
    assert pes[len(known) :] == [None] * (len(pes) - len(known))


@pytest.mark.parametrize(
    ("args", "field", "code"),
    [
        ({"preset": "moonshots"}, "preset", "INVALID_ARGUMENT"),
        ({"preset": "value", "scan_id": "x"}, "preset", "INVALID_ARGUMENT"),
        ({"scan_id": "00000000-0000-4000-8000-000000000000"}, "scan_id", "NOT_FOUND"),
        ({"title": "t" * 81}, "title", "INVALID_ARGUMENT"),
    ],
)
def test_create_scan_refusals(h: Harness, args: dict[str, Any], field: str, code: str) -> None:
    error = h.fail("create_scan", **args)
    assert (error["code"], error["field"]) == (code, field)


def test_a_user_has_at_most_twenty_scans(h: Harness) -> None:
    for _ in range(MAX_SCANS):
        h.call("create_scan")
    assert h.fail("create_scan")["code"] == "INVALID_ARGUMENT"


def test_scan_updates_refuse_unknown_ids_and_bad_config(h: Harness) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    assert h.fail("run_scan", scan_id=unknown)["code"] == "NOT_FOUND"
    assert h.fail("update_scan_filters", scan_id=unknown, filters=[])["code"] == "NOT_FOUND"
    assert (
        h.fail("update_scan_config", scan_id=unknown, sorting_direction="asc")["code"]
        == "NOT_FOUND"
    )
    scan_id = h.call("create_scan")["scan"]["id"]
    assert h.fail("update_scan_config", scan_id=scan_id)["field"] == "scan_id"
    assert h.fail("update_scan_config", scan_id=scan_id, sorting_direction="up")["field"] == (
        "sorting_direction"
    )
    assert h.fail("update_scan_config", scan_id=scan_id, sorting_column="vibes")["field"] == (
        "sorting_column"
    )
    columns = h.call(
        "update_scan_config", scan_id=scan_id, columns=[{"display_name": "EPS (TTM)"}]
    )["scan"]["columns"]
    assert columns[0]["expression"] == "eps_ttm"
    error = h.fail("update_scan_filters", scan_id=scan_id, filters=[_range("x", "in")])
    assert error["field"] == "filters[0].expression"
    assert h.fail("update_scan_filters", scan_id=scan_id)["field"] == "filters"
    assert h.fail("get_scans", x=1)["code"] == "INVALID_ARGUMENT"
    assert h.fail("get_scanner_filter_specs", x=1)["code"] == "INVALID_ARGUMENT"
