"""The typed research tools: against the venue over loopback, and against a stub caller."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import anyio
import pytest
from client_testkit import StubCaller, json_rpc_caller, refusal_loc, refused_loc
from pydantic import ValidationError
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client._pages import PaginationError
from ordergate.client.research import (
    EarningsCalendarRequest,
    FactsCatalogRequest,
    FinancialsRequest,
    FundamentalsRequest,
    NewsRequest,
    PoliticianTradesRequest,
    ResearchClient,
    SecFilingIndexRequest,
    SecFilingRequest,
    TechnicalIndicatorsRequest,
    XbrlFact,
)

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
DAY = timedelta(days=1)


# -- over the wire ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_fundamentals_and_financials_read_amounts_as_decimals(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = ResearchClient(caller)
            fundamentals = await client.fundamentals(["AAPL", "NOPE"], bounds="regular")
            financials = await client.financials(["AAPL"], period="quarterly", limit=2)
    (apple,) = fundamentals.results
    assert fundamentals.not_found == ["NOPE"]
    assert apple.market_cap is not None and apple.market_cap > 0
    assert apple.float_shares is not None and apple.shares_outstanding is not None
    assert apple.float_shares <= apple.shares_outstanding
    (books,) = financials.results
    assert len(books.statements) == 2
    income = books.statements[0].income_statement
    assert income is not None and income.revenue is not None and income.gross_profit is not None
    assert income.revenue > income.gross_profit


@pytest.mark.anyio
async def test_news_pages_follow_the_cursor_to_the_end(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = ResearchClient(caller)
            first = await client.news("AAPL", limit=5)
            second = await client.news("AAPL", limit=5, cursor=first.next_cursor)
            every = [article async for article in client.iter_news("AAPL", limit=7)]
    assert first.next_cursor is not None and len(first.results) == 5
    assert [a.id for a in every[:10]] == [a.id for a in first.results + second.results]
    assert len({a.id for a in every}) == len(every) > 10
    published = [a.published_at for a in every if a.published_at is not None]
    assert published == sorted(published, reverse=True)


@pytest.mark.anyio
async def test_a_page_limit_stops_the_walk_loudly(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(PaginationError) as raised:
                async for _ in ResearchClient(caller).iter_news("AAPL", limit=1, max_pages=2):
                    pass
    assert raised.value.code == "page_limit"


@pytest.mark.anyio
async def test_earnings_agree_between_results_and_calendar(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = ResearchClient(caller)
            results = await client.earnings_results("AAPL")
            latest = results.results[0]
            assert latest.report is not None and latest.report.date is not None
            calendar = await client.earnings_calendar(
                start_date=latest.report.date, days=1, filter="all"
            )
    assert results.next_report is not None and results.next_report.eps is not None
    assert results.next_report.eps.actual is None
    listed = {(e.symbol, e.year, e.quarter): e for e in calendar.earnings}
    same = listed[("AAPL", latest.year, latest.quarter)]
    assert same.eps == latest.eps and same.revenue == latest.revenue
    assert calendar.start_date == calendar.end_date == latest.report.date


@pytest.mark.anyio
async def test_ratings_trades_and_indicators_round_trip(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = ResearchClient(caller)
            ratings = await client.analyst_ratings(["AAPL", "NOPE"])
            trades = await client.politician_trades()
            one_name = trades.trades[0].politician_name
            assert one_name is not None
            theirs = await client.politician_trades(politician_name=one_name.split()[0])
            bands = await client.technical_indicators(
                "AAPL",
                type="bbands",
                interval="day",
                start_time=NOW - timedelta(days=30),
                end_time=NOW,
                bounds="regular",
                method="close",
                output="series",
                adjustment_type="split",
                period=10,
                num_std=2,
            )
            macd = await client.technical_indicators(
                "AAPL",
                type="macd",
                interval="day",
                start_time=NOW - timedelta(days=30),
                fast_period=5,
                slow_period=10,
                signal_period=3,
                output="latest",
            )
    (rating,) = ratings.results
    assert ratings.not_found == ["NOPE"]
    assert rating.price_target is not None and rating.price_target.low is not None
    assert (
        rating.price_target.mean is not None and rating.price_target.low < rating.price_target.mean
    )
    assert trades.total is not None and trades.total >= len(trades.trades) > 0
    assert theirs.trades and all(t.politician_name == one_name for t in theirs.trades)
    assert bands.parameters == {"period": 10, "num_std": "2"}
    settled = [p for p in bands.values if p.middle is not None]
    assert settled and all(
        p.lower is not None and p.upper is not None and p.lower < p.middle < p.upper
        for p in settled
        if p.middle is not None
    )
    (point,) = macd.values
    assert point.macd is not None and point.histogram is not None
    assert point.signal is not None and point.histogram == point.macd - point.signal


@pytest.mark.anyio
async def test_an_indicator_parameter_the_type_does_not_use_is_refused_by_the_venue(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await ResearchClient(caller).technical_indicators(
                    "AAPL", type="sma", interval="day", start_time=NOW - timedelta(5), num_std=2
                )
    assert (raised.value.code, raised.value.field) == ("INVALID_ARGUMENT", "num_std")


@pytest.mark.anyio
async def test_sec_filings_index_open_facts_and_catalog_agree(sandbox: VenueClient) -> None:
    with anyio.fail_after(60):
        async with json_rpc_caller(sandbox) as caller:
            client = ResearchClient(caller)
            quarterly = await client.sec_filing_index(
                "AAPL", form_type=["10-Q"], since=NOW - timedelta(days=400), until=NOW
            )
            every = [f async for f in client.iter_sec_filings("AAPL")]
            filing = quarterly.filings[0]
            opened = await client.sec_filing(filing.filing_id, section="mdna")
            facts = await client.sec_filing_facts(
                [filing.filing_id, "0000000000-00-000000"], ["Revenues", "dei:DocumentType", "X"]
            )
            catalog = await client.sec_filing_facts_catalog(
                filing.filing_id, concept_contains="revenue", axis_name_in=["srt:StatementGeo"]
            )
            catalog_all = await client.sec_filing_facts_catalog(filing.filing_id, offset=0)
    assert quarterly.filings and all(f.form_type == "10-Q" for f in quarterly.filings)
    assert {"10-Q", "8-K"} <= {f.form_type for f in every} and len(every) > 25
    assert len({f.filing_id for f in every}) == len(every)
    assert opened.filing.filing_id == filing.filing_id
    assert opened.section is not None and opened.section.text
    assert "mdna" in [s.section for s in opened.sections]
    (found,) = facts.results
    assert facts.not_found == ["0000000000-00-000000"] and found.missing_concepts == ["X"]
    revenue = next(f for f in found.facts if f.concept == "us-gaap:Revenues" and not f.dimensions)
    assert revenue.amount is not None and revenue.amount > 0
    document = next(f for f in found.facts if f.concept == "dei:DocumentType")
    assert (document.value, document.amount) == ("10-Q", None)
    assert catalog.concepts == [] and catalog.total == 0
    assert catalog_all.total == len(catalog_all.concepts) and catalog_all.next_offset is None


@pytest.mark.anyio
async def test_an_unknown_filing_is_not_found(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await ResearchClient(caller).sec_filing("0000000000-00-000000")
    assert (raised.value.code, raised.value.field) == ("NOT_FOUND", "filing_id")


# -- requests --------------------------------------------------------------------------------


def test_request_models_send_only_what_was_given() -> None:
    assert FundamentalsRequest(symbols=["A"]).arguments() == {"symbols": ["A"]}
    assert FinancialsRequest.model_validate(
        {"symbols": ["A"], "period": "annual", "limit": 3}
    ).arguments() == {"symbols": ["A"], "period": "annual", "limit": 3}
    assert NewsRequest(symbol="A", cursor="c").arguments() == {"symbol": "A", "cursor": "c"}
    assert EarningsCalendarRequest(start_date=date(2026, 12, 1), days=3).arguments() == {
        "start_date": "2026-12-01",
        "days": 3,
    }
    assert PoliticianTradesRequest().arguments() == {}
    assert SecFilingIndexRequest(
        symbol="A", form_type=["10-K"], since=NOW, until=NOW
    ).arguments() == {
        "symbol": "A",
        "form_type": ["10-K"],
        "since": "2026-12-01T15:00:00Z",
        "until": "2026-12-01T15:00:00Z",
    }
    assert SecFilingRequest(filing_id="f").arguments() == {"filing_id": "f"}
    assert FactsCatalogRequest(filing_id="f", axis_name_in=["x"], offset=50).arguments() == {
        "filing_id": "f",
        "axis_name_in": ["x"],
        "offset": 50,
    }


def test_technical_indicator_numbers_go_out_as_json_numbers() -> None:
    request = TechnicalIndicatorsRequest.model_validate(
        {
            "symbol": "A",
            "type": "keltner",
            "interval": "hour",
            "start_time": NOW,
            "multiplier": Decimal("2.0"),
            "num_std": "3",
            "period": 5,
        }
    )
    assert request.arguments() == {
        "symbol": "A",
        "type": "keltner",
        "interval": "hour",
        "start_time": "2026-12-01T15:00:00Z",
        "multiplier": 2,
        "num_std": 3,
        "period": 5,
    }


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"num_std": Decimal("2.5")}, ("num_std",)),
        ({"multiplier": 2.0}, ("multiplier",)),
        ({"period": "5"}, ("period",)),
        ({"interval": "fortnight"}, ("interval",)),
        ({"end_time": NOW - timedelta(days=1)}, ("end_time",)),
        ({"fast_period": 12, "slow_period": 12}, ("fast_period",)),
        ({"extra": 1}, ("extra",)),
        ({"type": None}, ("type",)),
    ],
)
def test_technical_indicator_requests_refuse_naming_the_field(
    changes: dict[str, Any], loc: tuple[str, ...]
) -> None:
    fields: dict[str, Any] = {"symbol": "A", "type": "sma", "interval": "day", "start_time": NOW}
    fields.update(changes)
    assert refusal_loc(TechnicalIndicatorsRequest, fields) == loc


@pytest.mark.parametrize(
    ("model", "fields", "loc"),
    [
        (FundamentalsRequest, {"symbols": "AAPL"}, ("symbols",)),
        (FundamentalsRequest, {"symbols": ["A"], "bounds": "24_8"}, ("bounds",)),
        (FinancialsRequest, {"symbols": ["A"], "limit": 2.5}, ("limit",)),
        (NewsRequest, {"limit": 1}, ("symbol",)),
        (EarningsCalendarRequest, {"start_date": "tomorrow"}, ("start_date",)),
        (SecFilingIndexRequest, {"symbol": "A", "since": NOW, "until": NOW - DAY}, ("since",)),
        (SecFilingIndexRequest, {"symbol": "A", "form_type": "10-K"}, ("form_type",)),
        (FactsCatalogRequest, {"filing_id": "f", "offset": "50"}, ("offset",)),
    ],
)
def test_research_requests_refuse_what_the_schema_forbids(
    model: type[Any], fields: dict[str, Any], loc: tuple[str, ...]
) -> None:
    assert refusal_loc(model, fields) == loc


@pytest.mark.anyio
async def test_methods_send_exact_wire_arguments() -> None:
    stub = StubCaller({"symbol": "A", "results": []})
    client = ResearchClient(stub)
    await client.earnings_results("A")
    await client.analyst_ratings(["A", "B"])
    await client.sec_filing_facts(["f1"], ["Revenues"])
    await client.politician_trades(equity_symbol="A")
    assert stub.calls == [
        ("get_earnings_results", {"symbol": "A"}),
        ("get_equity_analyst_ratings", {"symbols": ["A", "B"]}),
        ("get_sec_filing_facts", {"filing_ids": ["f1"], "concepts": ["Revenues"]}),
        ("get_politician_trades", {"equity_symbol": "A"}),
    ]
    with pytest.raises(ValidationError) as raised:
        await client.sec_filing_facts(["f1"], "Revenues")
    assert refused_loc(raised.value) == ("concepts",)


# -- responses -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_fundamental_figures_read_strings_numbers_and_blanks() -> None:
    stub = StubCaller(
        {
            "results": [
                {
                    "symbol": "A",
                    "market_cap": 1000,
                    "pe_ratio": None,
                    "dividend_yield": "",
                    "float": "12.5",
                    "volume": Decimal("7"),
                    "new_figure": "kept",
                }
            ],
            "not_found": None,
        }
    )
    (row,) = (await ResearchClient(stub).fundamentals(["A"])).results
    assert (row.market_cap, row.pe_ratio, row.dividend_yield) == (Decimal(1000), None, None)
    assert (row.float_shares, row.volume) == (Decimal("12.5"), Decimal(7))
    assert row.model_extra == {"new_figure": "kept"}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("data", "method", "field"),
    [
        (
            {"results": [{"symbol": "A", "market_cap": "big"}]},
            "fundamentals",
            "results[0].market_cap",
        ),
        (
            {"symbol": "A", "results": [{"symbol": "A", "eps": {"estimate": "1", "actual": {}}}]},
            "earnings_results",
            "results[0].eps.actual",
        ),
        (
            {"results": [{"symbol": "A", "price_target": {"mean": "n/a"}}]},
            "analyst_ratings",
            "results[0].price_target.mean",
        ),
    ],
)
async def test_an_unparseable_amount_is_a_parse_error_naming_the_field(
    data: dict[str, Any], method: str, field: str
) -> None:
    client = ResearchClient(StubCaller(data))
    call = getattr(client, method)
    with pytest.raises(ResponseParseError) as raised:
        await (call("A") if method == "earnings_results" else call(["A"]))
    assert raised.value.field == field


def test_a_numeric_fact_reads_its_amount_and_refuses_a_non_number() -> None:
    number = XbrlFact.model_validate({"concept": "c", "value": 12, "unit": "USD"})
    assert (number.value, number.amount) == ("12", Decimal(12))
    decimal = XbrlFact.model_validate({"concept": "c", "value": Decimal("1.50"), "unit": "USD"})
    assert decimal.amount == Decimal("1.50")
    broken = XbrlFact.model_validate({"concept": "c", "value": "lots", "unit": "USD"})
    with pytest.raises(ResponseParseError) as raised:
        _ = broken.amount
    assert raised.value.field == "value"


@pytest.mark.anyio
async def test_a_blank_next_cursor_ends_the_walk() -> None:
    stub = StubCaller(
        {"symbol": "A", "results": [{"id": "1"}], "next_cursor": "p2"},
        {"symbol": "A", "results": [{"id": "2"}], "next_cursor": ""},
    )
    ids = [article.id async for article in ResearchClient(stub).iter_news("A")]
    assert ids == ["1", "2"]
    assert [arguments.get("cursor") for _, arguments in stub.calls] == [None, "p2"]


@pytest.mark.anyio
async def test_filing_pages_walk_until_no_cursor() -> None:
    stub = StubCaller(
        {"filings": [{"filing_id": "a"}], "next_cursor": "n"},
        {"filings": [{"filing_id": "b"}], "next_cursor": None},
    )
    ids = [f.filing_id async for f in ResearchClient(stub).iter_sec_filings("A", since=NOW)]
    assert ids == ["a", "b"]
    assert stub.calls[1] == (
        "get_sec_filing_index",
        {"symbol": "A", "since": "2026-12-01T15:00:00Z", "cursor": "n"},
    )
