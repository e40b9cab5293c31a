"""The typed scanner tools: against the venue over loopback, and against a stub caller."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import anyio
import pytest
from client_testkit import StubCaller, json_rpc_caller, refusal_loc
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.scanner import (
    CreateScanRequest,
    PreviewScanRequest,
    ScanColumn,
    ScanFilter,
    ScannerClient,
    ScanRow,
    SortDirection,
    UpdateScanConfigRequest,
    UpdateScanFiltersRequest,
)

BIG = ScanFilter(
    filter_type="range",
    expression="market_cap",
    predicate="greater_than",
    values=[Decimal("100000000000")],
)


# -- over the wire ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_vocabulary_names_filter_types_presets_and_datapoints(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = ScannerClient(caller)
            specs = await client.filter_specs()
            points = await client.datapoints("fundamentals")
    assert {spec.filter_type for spec in specs.filter_specs} >= {"range", "categorical"}
    assert "top_gainers" in {preset.preset for preset in specs.presets}
    assert specs.limits is not None and specs.limits.max_rows
    assert "market_cap" in {point.key for point in points.datapoints}
    assert points.category == "fundamentals"


@pytest.mark.anyio
async def test_a_saved_scan_is_created_reconfigured_and_run(sandbox: VenueClient) -> None:
    with anyio.fail_after(60):
        async with json_rpc_caller(sandbox) as caller:
            client = ScannerClient(caller)
            preview = await client.preview(
                [BIG], columns=[ScanColumn(display_name="Cap", expression="market_cap")]
            )
            saved = await client.create(title="Large caps", filters=[BIG])
            copied = await client.create(scan_id=saved.id, title="Copy")
            preset = await client.create(preset="top_gainers")
            tech = ScanFilter(expression="sector", predicate="in", values=["Technology"])
            narrowed = await client.update_filters(saved.id, [BIG, tech])
            sorted_by_cap = await client.update_config(
                saved.id,
                columns=[ScanColumn(display_name="Cap", expression="market_cap", order=0)],
                sorting_column="Cap",
                sorting_direction=SortDirection.ASC,
            )
            run = await client.run(saved.id)
            listed = await client.scans()
    assert preview.scan_id is None and preview.rows
    assert all((row.decimal("Cap") or 0) > Decimal("1e11") for row in preview.rows)
    assert copied.title == "Copy" and copied.filters == saved.filters
    assert preset.preset == "top_gainers"
    assert len(narrowed.filters) == 2
    assert (sorted_by_cap.sorting_column, sorted_by_cap.sorting_direction) == ("market_cap", "asc")
    assert run.scan_id == saved.id and run.title == "Large caps"
    caps = [row.decimal("Cap") for row in run.rows]
    assert caps == sorted(caps, key=lambda cap: cap or 0) and len(caps) < len(preview.rows)
    assert {saved.id, copied.id, preset.id} <= {scan.id for scan in listed}


@pytest.mark.anyio
async def test_an_unknown_datapoint_is_refused_by_the_venue_naming_the_filter(
    sandbox: VenueClient,
) -> None:
    bogus = ScanFilter(expression="karma", predicate="greater_than", values=["1"])
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await ScannerClient(caller).preview([bogus])
    assert (raised.value.code, raised.value.field) == ("INVALID_ARGUMENT", "filters[0].expression")


# -- requests --------------------------------------------------------------------------------


def test_filters_and_columns_go_out_with_decimal_values_as_text() -> None:
    rsi = ScanFilter(plot="rsi", length=14, interval="day", predicate="less_than", values=[30])
    request = PreviewScanRequest(
        filters=[BIG, rsi], columns=[ScanColumn(display_name="P/E", visible=False)]
    )
    assert request.arguments() == {
        "filters": [
            {
                "predicate": "greater_than",
                "values": ["100000000000"],
                "filter_type": "range",
                "expression": "market_cap",
            },
            {
                "predicate": "less_than",
                "values": ["30"],
                "plot": "rsi",
                "length": 14,
                "interval": "day",
            },
        ],
        "columns": [{"display_name": "P/E", "visible": False}],
    }
    assert UpdateScanFiltersRequest(scan_id="s", filters=[]).arguments() == {
        "scan_id": "s",
        "filters": [],
    }
    assert CreateScanRequest().arguments() == {}
    assert UpdateScanConfigRequest.model_validate(
        {"scan_id": "s", "sorting_direction": "desc"}
    ).arguments() == {"scan_id": "s", "sorting_direction": "desc"}


@pytest.mark.parametrize(
    ("model", "fields", "loc"),
    [
        (ScanFilter, {"values": ["1"]}, ("predicate",)),
        (ScanFilter, {"predicate": "in"}, ("values",)),
        (ScanFilter, {"predicate": "in", "values": [1.5]}, ("values", 0)),
        (ScanFilter, {"predicate": "in", "values": [], "length": 2**31}, ("length",)),
        (ScanFilter, {"predicate": "in", "values": [], "lenght": 3}, ("lenght",)),
        (ScanColumn, {"display_name": "A", "order": "1"}, ("order",)),
        (ScanColumn, {"display_name": "A", "visible": 1}, ("visible",)),
        (CreateScanRequest, {"preset": "value", "scan_id": "s"}, ("preset",)),
        (CreateScanRequest, {"filters": [{"predicate": "in"}]}, ("filters", 0, "values")),
        (PreviewScanRequest, {}, ("filters",)),
        (UpdateScanConfigRequest, {"scan_id": "s"}, ("scan_id",)),
        (
            UpdateScanConfigRequest,
            {"scan_id": "s", "sorting_direction": "up"},
            ("sorting_direction",),
        ),
    ],
)
def test_scanner_requests_refuse_naming_the_field(
    model: type[Any], fields: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    assert refusal_loc(model, fields) == loc


@pytest.mark.anyio
async def test_methods_send_exact_wire_arguments() -> None:
    stub = StubCaller({"scan": {"id": "s"}, "scans": None, "rows": []})
    client = ScannerClient(stub)
    await client.datapoints("price")
    await client.run("s")
    assert await client.scans() == []
    assert stub.calls == [
        ("get_scanner_datapoints", {"category": "price"}),
        ("run_scan", {"scan_id": "s"}),
        ("get_scans", {}),
    ]


# -- responses -------------------------------------------------------------------------------


def test_a_row_cell_reads_as_a_decimal_or_fails_naming_the_cell() -> None:
    row = ScanRow.model_validate(
        {"symbol": "A", "values": {"Price": "12.5", "Cap": 10, "Sector": "Tech", "PE": None}}
    )
    assert (row.decimal("Price"), row.decimal("Cap"), row.decimal("PE")) == (
        Decimal("12.5"),
        Decimal(10),
        None,
    )
    assert row.decimal("Missing") is None
    with pytest.raises(ResponseParseError) as raised:
        row.decimal("Sector")
    assert raised.value.field == "values.Sector"


@pytest.mark.anyio
async def test_answers_that_are_not_the_expected_shape_are_parse_errors() -> None:
    with pytest.raises(ResponseParseError) as raised:
        await ScannerClient(StubCaller({"scans": "none"})).scans()
    assert (raised.value.field, raised.value.tool) == ("scans", "get_scans")
    with pytest.raises(ResponseParseError) as raised:
        await ScannerClient(StubCaller({"scan": None})).update_filters("s", [])
    assert raised.value.tool == "update_scan_filters"
    with pytest.raises(ResponseParseError) as raised:
        await ScannerClient(StubCaller({"rows": [{"values": {}}]})).run("s")
    assert raised.value.field == "rows[0].symbol"
