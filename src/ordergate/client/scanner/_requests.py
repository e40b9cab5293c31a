"""Request models of the scanner tools, exactly as their captured input schemas allow.

A filter is ``{predicate, values}`` plus what its type needs: ``expression`` (a datapoint key)
for range and categorical filters, ``plot``/``length``/``interval`` for indicator filters.
Range values are decimal numbers; they may be given as ``Decimal`` and go out as canonical
strings. Which predicates and datapoints exist is the venue's vocabulary
(``filter_specs``/``datapoints``), so it is checked there, not here.

Cross-field rules (each refusal a ``ValidationError`` located at the field):

- ``create``: ``preset`` and ``scan_id`` are alternatives, never both (→ ``preset``);
- ``update_config``: at least one of ``columns``, ``sorting_column``, ``sorting_direction``
  (→ ``scan_id``).
"""

from __future__ import annotations

from pydantic import StrictBool, model_validator

from ordergate.client._decimals import DecimalText
from ordergate.client._fields import Int32, refuse
from ordergate.client._models import RequestModel
from ordergate.client.scanner._enums import SortDirection

__all__ = [
    "CreateScanRequest",
    "PreviewScanRequest",
    "ScanColumn",
    "ScanFilter",
    "UpdateScanConfigRequest",
    "UpdateScanFiltersRequest",
]


class ScanFilter(RequestModel):
    predicate: str
    values: list[DecimalText]
    filter_type: str | None = None
    expression: str | None = None
    display_title: str | None = None
    plot: str | None = None
    length: Int32 | None = None
    interval: str | None = None


class ScanColumn(RequestModel):
    """A column tied to a datapoint by ``expression`` (or by its display name)."""

    display_name: str
    expression: str | None = None
    order: Int32 | None = None
    visible: StrictBool | None = None


class CreateScanRequest(RequestModel):
    title: str | None = None
    preset: str | None = None
    scan_id: str | None = None
    filters: list[ScanFilter] | None = None
    columns: list[ScanColumn] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> CreateScanRequest:
        if self.preset is not None and self.scan_id is not None:
            raise refuse("preset", "give preset or scan_id, not both", self.preset)
        return self


class PreviewScanRequest(RequestModel):
    filters: list[ScanFilter]
    columns: list[ScanColumn] | None = None


class UpdateScanFiltersRequest(RequestModel):
    """Replaces every filter of the scan; an empty list matches every equity."""

    scan_id: str
    filters: list[ScanFilter]


class UpdateScanConfigRequest(RequestModel):
    scan_id: str
    columns: list[ScanColumn] | None = None
    sorting_column: str | None = None
    sorting_direction: SortDirection | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> UpdateScanConfigRequest:
        if self.columns is None and self.sorting_column is None and self.sorting_direction is None:
            raise refuse("scan_id", "give columns, sorting_column or sorting_direction to change")
        return self
