"""The scanner tools: the filter vocabulary, saved scans, and running scans."""

from __future__ import annotations

from collections.abc import Sequence

from ordergate.client._caller import Caller
from ordergate.client._models import parse_list, parse_member, parse_model
from ordergate.client.scanner._enums import SortDirection
from ordergate.client.scanner._models import Datapoints, FilterSpecs, Scan, ScanResults
from ordergate.client.scanner._requests import (
    CreateScanRequest,
    PreviewScanRequest,
    ScanColumn,
    ScanFilter,
    UpdateScanConfigRequest,
    UpdateScanFiltersRequest,
)

__all__ = ["ScannerClient"]

TOOL_FILTER_SPECS = "get_scanner_filter_specs"
TOOL_DATAPOINTS = "get_scanner_datapoints"
TOOL_SCANS = "get_scans"
TOOL_CREATE = "create_scan"
TOOL_PREVIEW = "preview_scan"
TOOL_RUN = "run_scan"
TOOL_UPDATE_FILTERS = "update_scan_filters"
TOOL_UPDATE_CONFIG = "update_scan_config"


class ScannerClient:
    """Typed scanner tools. Every method raises a ``ToolError`` subclass on failure
    (``BusinessError`` for a venue refusal such as an unknown datapoint or scan,
    ``ResponseParseError`` for an unreadable answer) and ``pydantic.ValidationError`` (a
    ``ValueError``) naming the field for a bad request."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def filter_specs(self) -> FilterSpecs:
        """Filter types, predicates, presets and limits (``get_scanner_filter_specs``)."""
        data = await self._caller.call(TOOL_FILTER_SPECS, {})
        return parse_model(FilterSpecs, data, tool=TOOL_FILTER_SPECS)

    async def datapoints(self, category: str) -> Datapoints:
        """The datapoints of one category (``get_scanner_datapoints``)."""
        data = await self._caller.call(TOOL_DATAPOINTS, {"category": category})
        return parse_model(Datapoints, data, tool=TOOL_DATAPOINTS)

    async def scans(self) -> list[Scan]:
        """The user's saved scans (``get_scans``)."""
        data = await self._caller.call(TOOL_SCANS, {})
        return parse_list(Scan, data, "scans", tool=TOOL_SCANS)

    async def create(
        self,
        *,
        title: str | None = None,
        preset: str | None = None,
        scan_id: str | None = None,
        filters: Sequence[ScanFilter] | None = None,
        columns: Sequence[ScanColumn] | None = None,
    ) -> Scan:
        """Save a scan from filters, from a preset, or as a copy of ``scan_id``
        (``create_scan``)."""
        request = CreateScanRequest.model_validate(
            {
                "title": title,
                "preset": preset,
                "scan_id": scan_id,
                "filters": filters,
                "columns": columns,
            }
        )
        data = await self._caller.call(TOOL_CREATE, request.arguments())
        return parse_member(Scan, data, "scan", tool=TOOL_CREATE)

    async def preview(
        self, filters: Sequence[ScanFilter], *, columns: Sequence[ScanColumn] | None = None
    ) -> ScanResults:
        """Run filters over the market without saving them (``preview_scan``)."""
        request = PreviewScanRequest.model_validate({"filters": filters, "columns": columns})
        data = await self._caller.call(TOOL_PREVIEW, request.arguments())
        return parse_model(ScanResults, data, tool=TOOL_PREVIEW)

    async def run(self, scan_id: str) -> ScanResults:
        """Run a saved scan now (``run_scan``)."""
        data = await self._caller.call(TOOL_RUN, {"scan_id": scan_id})
        return parse_model(ScanResults, data, tool=TOOL_RUN)

    async def update_filters(self, scan_id: str, filters: Sequence[ScanFilter]) -> Scan:
        """Replace a saved scan's filters (``update_scan_filters``)."""
        request = UpdateScanFiltersRequest.model_validate({"scan_id": scan_id, "filters": filters})
        data = await self._caller.call(TOOL_UPDATE_FILTERS, request.arguments())
        return parse_member(Scan, data, "scan", tool=TOOL_UPDATE_FILTERS)

    async def update_config(
        self,
        scan_id: str,
        *,
        columns: Sequence[ScanColumn] | None = None,
        sorting_column: str | None = None,
        sorting_direction: SortDirection | str | None = None,
    ) -> Scan:
        """Change a saved scan's columns or sorting (``update_scan_config``)."""
        request = UpdateScanConfigRequest.model_validate(
            {
                "scan_id": scan_id,
                "columns": columns,
                "sorting_column": sorting_column,
                "sorting_direction": sorting_direction,
            }
        )
        data = await self._caller.call(TOOL_UPDATE_CONFIG, request.arguments())
        return parse_member(Scan, data, "scan", tool=TOOL_UPDATE_CONFIG)
