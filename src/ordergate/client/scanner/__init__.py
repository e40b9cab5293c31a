"""Typed scanner tools: the filter vocabulary, saved scans, running scans."""

from ordergate.client.scanner._client import ScannerClient
from ordergate.client.scanner._enums import SortDirection
from ordergate.client.scanner._models import (
    Datapoint,
    Datapoints,
    FilterPredicate,
    FilterSpec,
    FilterSpecs,
    Scan,
    ScannerLimits,
    ScanPreset,
    ScanResults,
    ScanRow,
)
from ordergate.client.scanner._requests import (
    CreateScanRequest,
    PreviewScanRequest,
    ScanColumn,
    ScanFilter,
    UpdateScanConfigRequest,
    UpdateScanFiltersRequest,
)

__all__ = [
    "CreateScanRequest",
    "Datapoint",
    "Datapoints",
    "FilterPredicate",
    "FilterSpec",
    "FilterSpecs",
    "PreviewScanRequest",
    "Scan",
    "ScanColumn",
    "ScanFilter",
    "ScanPreset",
    "ScanResults",
    "ScanRow",
    "ScannerClient",
    "ScannerLimits",
    "SortDirection",
    "UpdateScanConfigRequest",
    "UpdateScanFiltersRequest",
]
