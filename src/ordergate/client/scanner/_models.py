"""Response models of the scanner tools.

Inventoried without an output schema: the models follow what the sandbox answers, keep every
field optional except identifiers, and keep unknown keys. A scan row's cells are the venue's
text for each visible column (numbers as decimal strings, read them with ``decimal``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from pydantic import Field

from ordergate.client._errors import ResponseParseError
from ordergate.client._fields import NullableList
from ordergate.client._models import WireModel
from ordergate.core import DecimalFieldError, parse_decimal

__all__ = [
    "Datapoint",
    "Datapoints",
    "FilterPredicate",
    "FilterSpec",
    "FilterSpecs",
    "Scan",
    "ScanPreset",
    "ScanResults",
    "ScanRow",
    "ScannerLimits",
]


class FilterPredicate(WireModel):
    predicate: str
    value_count: int | None = None


class FilterSpec(WireModel):
    filter_type: str
    applies_to: str | None = None
    predicates: NullableList[FilterPredicate] = Field(default_factory=list)
    plots: NullableList[str] = Field(default_factory=list)
    intervals: NullableList[str] = Field(default_factory=list)
    length: dict[str, Any] | None = None


class ScanPreset(WireModel):
    preset: str
    title: str | None = None
    filters: NullableList[dict[str, Any]] = Field(default_factory=list)


class ScannerLimits(WireModel):
    max_filters: int | None = None
    max_columns: int | None = None
    max_rows: int | None = None
    max_scans: int | None = None


class FilterSpecs(WireModel):
    filter_specs: NullableList[FilterSpec] = Field(default_factory=list)
    categories: NullableList[str] = Field(default_factory=list)
    presets: NullableList[ScanPreset] = Field(default_factory=list)
    sorting_directions: NullableList[str] = Field(default_factory=list)
    limits: ScannerLimits | None = None


class Datapoint(WireModel):
    key: str
    display_name: str | None = None
    category: str | None = None
    value_type: str | None = None
    unit: str | None = None
    filter_type: str | None = None


class Datapoints(WireModel):
    category: str | None = None
    datapoints: NullableList[Datapoint] = Field(default_factory=list)


class Scan(WireModel):
    """A saved scan; ``filters`` and ``columns`` are as the venue normalised them."""

    id: str
    title: str | None = None
    preset: str | None = None
    filters: NullableList[dict[str, Any]] = Field(default_factory=list)
    columns: NullableList[dict[str, Any]] = Field(default_factory=list)
    sorting_column: str | None = None
    sorting_direction: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None


class ScanRow(WireModel):
    symbol: str
    instrument_id: str | None = None
    name: str | None = None
    values: dict[str, Any] = Field(default_factory=dict)

    def decimal(self, column: str) -> Decimal | None:
        """The cell of ``column`` as a Decimal (``None`` when absent or empty).

        Raises ``ResponseParseError`` naming the cell when it holds something else.
        """
        try:
            return parse_decimal(column, self.values.get(column))
        except DecimalFieldError:
            raise ResponseParseError(
                f"values.{column}: not a number", field=f"values.{column}"
            ) from None


class ScanResults(WireModel):
    """The equities a scan matched (at most the venue's row limit), sorted."""

    scan_id: str | None = None
    title: str | None = None
    as_of: dt.datetime | None = None
    total_matches: int | None = None
    columns: NullableList[dict[str, Any]] = Field(default_factory=list)
    rows: NullableList[ScanRow] = Field(default_factory=list)
