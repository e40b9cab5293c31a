"""The typed market-data tools: against the venue over loopback, and against a stub caller."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import anyio
import pytest
from client_testkit import StubCaller, json_rpc_caller, refusal_loc, refused_loc
from pydantic import ValidationError
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.market import (
    Bounds,
    HistoricalsRequest,
    IndexHistoricalsRequest,
    Interval,
    MarketClient,
    SearchRequest,
)

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
TWENTY_ONE = [
    "AAPL",
    "CSCO",
    "AMZN",
    "TSLA",
    "F",
    "HD",
    "NKE",
    "GOOGL",
    "META",
    "NFLX",
    "DIS",
    "JPM",
    "BAC",
    "V",
    "MA",
    "UNH",
    "JNJ",
    "PFE",
    "XOM",
    "WMT",
    "KO",
]


def _quote(**changes: Any) -> dict[str, Any]:
    quote: dict[str, Any] = {
        "symbol": "AAPL",
        "last_trade_price": "274.17",
        "venue_last_trade_time": "2026-12-01T15:00:00.000000Z",
        "last_non_reg_trade_price": None,
        "venue_last_non_reg_trade_time": None,
        "adjusted_previous_close": "274.02",
        "previous_close": "274.02",
        "previous_close_date": "2026-11-30",
        "bid_price": "274.14",
        "venue_bid_time": "2026-12-01T15:00:00.000000Z",
        "ask_price": "274.20",
        "venue_ask_time": "2026-12-01T15:00:00.000000Z",
        "has_traded": True,
        "state": "active",
    }
    quote.update(changes)
    return quote


# -- over the wire ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_quotes_come_back_in_order_with_decimal_prices_and_closes(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            quotes = await MarketClient(caller).quotes(["AAPL", "MSFT"])
    first, second = quotes.results
    assert first is not None and second is not None
    assert first.quote is not None and second.quote is not None
    assert (first.quote.symbol, second.quote.symbol) == ("AAPL", "MSFT")
    assert isinstance(first.quote.bid_price, Decimal)
    assert first.quote.bid_price <= first.quote.last_trade_price <= first.quote.ask_price
    assert first.close is not None and first.close.price == first.quote.previous_close
    assert quotes.closes_error is None


@pytest.mark.anyio
async def test_more_than_twenty_symbols_pass_through_the_closes_error(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            quotes = await MarketClient(caller).quotes(TWENTY_ONE)
    assert quotes.closes_error is not None and len(quotes.results) == 21
    assert all(result is not None and result.close is None for result in quotes.results)


@pytest.mark.anyio
async def test_an_unlisted_symbol_is_a_business_error_naming_the_argument(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await MarketClient(caller).quotes(["NOSUCH"])
    assert (raised.value.code, raised.value.field) == ("NOT_FOUND", "symbols")


@pytest.mark.anyio
async def test_historicals_send_only_what_the_caller_gave(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            answer = await MarketClient(caller).historicals(
                ["AAPL", "NOPE"],
                start_time=NOW - timedelta(days=10),
                interval=Interval.DAY,
                bounds=Bounds.REGULAR,
                adjustment_type="split",
            )
    (series,) = answer.results
    assert (series.symbol, series.interval, series.bounds) == ("AAPL", "day", "regular")
    assert answer.not_found == ["NOPE"]
    bars = [bar for bar in series.bars if bar is not None]
    assert len(bars) >= 5
    assert all(bar.low_price <= bar.close_price <= bar.high_price for bar in bars)
    assert all(bar.volume > 0 for bar in bars)


@pytest.mark.anyio
async def test_price_book_reads_levels_best_first_and_reports_unknown_symbols(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            books = await MarketClient(caller).price_book(["AAPL", "ZZZZ"])
    (book,) = books.books
    assert book is not None and book.symbol == "AAPL"
    assert book.bids[0].price < book.asks[0].price
    assert [level.price for level in book.asks] == sorted(level.price for level in book.asks)
    assert [error.symbol for error in books.errors] == ["ZZZZ"]


@pytest.mark.anyio
async def test_indexes_quotes_and_historicals_agree_on_ids(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = MarketClient(caller)
            every = await client.indexes()
            chosen = await client.indexes(["SPX", "NOPE"])
            (spx,) = chosen.results
            quotes = await client.index_quotes([spx.id])
            history = await client.index_historicals(
                [spx.id], start_time=NOW - timedelta(days=7), interval="day"
            )
    assert "SPX" in {index.symbol for index in every.results}
    assert chosen.not_found == ["NOPE"]
    (quote,) = quotes.results
    assert quote.instrument_id == spx.id and quote.value is not None and quote.value > 0
    (series,) = history.results
    assert series.instrument_id == spx.id
    assert series.bars and all(bar is not None and bar.close_price for bar in series.bars)


@pytest.mark.anyio
async def test_search_narrowed_to_crypto_leaves_the_other_kinds_unsearched(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            everything = await MarketClient(caller).search("apple")
            crypto = await MarketClient(caller).search("BTC", asset_type="crypto", limit=1)
    assert everything.results and everything.results[0].symbol == "AAPL"
    assert crypto.results is None and crypto.market_indexes is None
    assert [pair.symbol for pair in crypto.currency_pairs or []] == ["BTC-USD"]


# -- requests --------------------------------------------------------------------------------


def test_historicals_request_sends_only_given_fields_with_utc_times() -> None:
    request = HistoricalsRequest(
        symbols=["AAPL"], start_time=datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    )
    assert request.arguments() == {"symbols": ["AAPL"], "start_time": "2026-12-01T10:00:00Z"}
    full = HistoricalsRequest.model_validate(
        {
            "symbols": ["AAPL"],
            "start_time": "2026-12-01T05:00:00-05:00",
            "end_time": "2026-12-02T00:00:00Z",
            "interval": "5minute",
            "bounds": "24_7",
            "adjustment_type": "none",
        }
    )
    assert full.arguments() == {
        "symbols": ["AAPL"],
        "start_time": "2026-12-01T10:00:00Z",
        "end_time": "2026-12-02T00:00:00Z",
        "interval": "5minute",
        "bounds": "24_7",
        "adjustment_type": "none",
    }


@pytest.mark.parametrize(
    ("fields", "loc"),
    [
        ({"start_time": NOW}, ("symbols",)),
        ({"symbols": "AAPL", "start_time": NOW}, ("symbols",)),
        ({"symbols": ["AAPL"]}, ("start_time",)),
        ({"symbols": ["AAPL"], "start_time": datetime(2026, 12, 1)}, ("start_time",)),
        ({"symbols": ["AAPL"], "start_time": NOW, "interval": "daily"}, ("interval",)),
        ({"symbols": ["AAPL"], "start_time": NOW, "bounds": "all"}, ("bounds",)),
        ({"symbols": ["AAPL"], "start_time": NOW, "end_time": NOW}, ("end_time",)),
        ({"symbols": ["AAPL"], "start_time": NOW, "limit": 3}, ("limit",)),
    ],
)
def test_historicals_request_refuses_what_the_schema_forbids_naming_the_field(
    fields: dict[str, Any], loc: tuple[str, ...]
) -> None:
    assert refusal_loc(HistoricalsRequest, fields) == loc


def test_index_historicals_request_requires_an_interval_and_orders_its_window() -> None:
    with pytest.raises(ValidationError) as raised:
        IndexHistoricalsRequest.model_validate({"instrument_ids": ["x"], "start_time": NOW})
    assert refused_loc(raised.value) == ("interval",)
    with pytest.raises(ValidationError) as raised:
        IndexHistoricalsRequest(
            instrument_ids=["x"], start_time=NOW, interval=Interval.DAY, end_time=NOW
        )
    assert refused_loc(raised.value) == ("end_time",)
    request = IndexHistoricalsRequest(
        instrument_ids=["x"], start_time=NOW, interval=Interval.HOUR, end_time=NOW + timedelta(1)
    )
    assert request.arguments() == {
        "instrument_ids": ["x"],
        "start_time": "2026-12-01T15:00:00Z",
        "interval": "hour",
        "end_time": "2026-12-02T15:00:00Z",
    }


def test_search_request_takes_a_known_asset_type_and_a_whole_limit() -> None:
    assert SearchRequest(query="ap").arguments() == {"query": "ap"}
    assert SearchRequest.model_validate(
        {"query": "ap", "asset_type": "index", "limit": 5}
    ).arguments() == {"query": "ap", "asset_type": "index", "limit": 5}
    for fields, loc in (
        ({"query": "ap", "asset_type": "option"}, ("asset_type",)),
        ({"query": "ap", "limit": "5"}, ("limit",)),
        ({"query": "ap", "limit": True}, ("limit",)),
        ({"asset_type": "equity"}, ("query",)),
    ):
        assert refusal_loc(SearchRequest, fields) == loc


@pytest.mark.anyio
async def test_methods_send_exact_wire_arguments() -> None:
    stub = StubCaller({"results": [], "books": []})
    client = MarketClient(stub)
    await client.quotes(("AAPL", "MSFT"))
    await client.price_book(["AAPL"])
    await client.indexes()
    await client.indexes(["SPX", "NDX"])
    await client.index_quotes(["id-1"])
    await client.search("apple", limit=2)
    assert stub.calls == [
        ("get_equity_quotes", {"symbols": ["AAPL", "MSFT"]}),
        ("get_equity_price_book", {"symbols": ["AAPL"]}),
        ("get_indexes", {}),
        ("get_indexes", {"symbols": "SPX,NDX"}),
        ("get_index_quotes", {"instrument_ids": ["id-1"]}),
        ("search", {"query": "apple", "limit": 2}),
    ]


@pytest.mark.anyio
async def test_a_bare_string_for_a_symbol_list_is_refused_before_sending() -> None:
    stub = StubCaller({"results": []})
    with pytest.raises(ValidationError) as raised:
        await MarketClient(stub).quotes("AAPL")
    assert refused_loc(raised.value) == ("symbols",)
    with pytest.raises(ValidationError) as raised:
        await MarketClient(stub).index_quotes([1])  # type: ignore[list-item]
    assert refused_loc(raised.value) == ("instrument_ids",)
    assert stub.calls == []


# -- responses -------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("wire", "expected"),
    [("274.2", Decimal("274.2")), (274, Decimal(274)), (Decimal("0.0"), Decimal(0))],
)
@pytest.mark.req("client.decimal-rules")
async def test_quote_prices_read_strings_and_numbers(wire: Any, expected: Decimal) -> None:
    stub = StubCaller({"results": [{"quote": _quote(bid_price=wire)}]})
    quotes = await MarketClient(stub).quotes(["AAPL"])
    result = quotes.results[0]
    assert result is not None and result.quote is not None
    assert result.quote.bid_price == expected
    assert result.close is None


@pytest.mark.anyio
async def test_absent_optional_prices_are_none_and_null_entries_pass_through() -> None:
    stub = StubCaller(
        {
            "results": [
                {"quote": _quote(last_non_reg_trade_price="")},
                None,
                {"quote": None},
            ],
            "closes_error": "too many",
        }
    )
    quotes = await MarketClient(stub).quotes(["AAPL", "X", "Y"])
    first = quotes.results[0]
    assert first is not None and first.quote is not None
    assert first.quote.last_non_reg_trade_price is None
    assert quotes.results[1] is None
    assert quotes.results[2] is not None and quotes.results[2].quote is None
    assert quotes.closes_error == "too many"


@pytest.mark.anyio
@pytest.mark.parametrize("bad", ["n/a", {"amount": "1"}, True, [1]])
@pytest.mark.req("client.decimal-rules")
async def test_an_unparseable_quote_price_is_a_parse_error_naming_it(bad: Any) -> None:
    stub = StubCaller({"results": [{"quote": _quote(ask_price=bad)}]})
    with pytest.raises(ResponseParseError) as raised:
        await MarketClient(stub).quotes(["AAPL"])
    assert raised.value.field == "results[0].quote.ask_price"
    assert raised.value.tool == "get_equity_quotes"


@pytest.mark.anyio
async def test_bar_and_book_amounts_follow_the_decimal_rules() -> None:
    bars = StubCaller(
        {
            "results": [
                {
                    "symbol": "AAPL",
                    "interval": "day",
                    "bounds": "regular",
                    "bars": [
                        {
                            "begins_at": "2026-12-01T00:00:00Z",
                            "open_price": 1,
                            "close_price": "2.5",
                            "high_price": "3",
                            "low_price": "",
                            "volume": 10,
                        },
                        None,
                    ],
                }
            ],
            "not_found": None,
        }
    )
    answer = await MarketClient(bars).historicals(["AAPL"], start_time=NOW)
    bar = answer.results[0].bars[0]
    assert bar is not None
    assert (bar.open_price, bar.close_price, bar.low_price) == (Decimal(1), Decimal("2.5"), 0)
    assert answer.results[0].bars[1] is None and answer.not_found == []
    broken = StubCaller(
        {
            "books": [
                {
                    "symbol": "A",
                    "updated_at": NOW.isoformat(),
                    "asks": None,
                    "bids": [{"price": "1"}],
                }
            ]
        }
    )
    books = StubCaller(
        {"books": [{"symbol": "A", "updated_at": NOW.isoformat(), "asks": None, "bids": []}]}
    )
    assert (await MarketClient(books).price_book(["A"])).books[0] is not None
    with pytest.raises(ResponseParseError) as raised:
        await MarketClient(broken).price_book(["A"])
    assert raised.value.field == "books[0].bids[0].quantity"


@pytest.mark.anyio
async def test_an_index_value_that_is_not_a_number_is_refused() -> None:
    stub = StubCaller({"results": [{"instrument_id": "x", "value": "lots"}]})
    with pytest.raises(ResponseParseError) as raised:
        await MarketClient(stub).index_quotes(["x"])
    assert (raised.value.field, raised.value.tool) == ("results[0].value", "get_index_quotes")
