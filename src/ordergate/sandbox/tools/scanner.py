"""Scanner tools: the filter vocabulary, saved scans, and running scans over the market.

Saved scans live on the venue's lists desk; the vocabulary and the evaluator are in
``_scan_engine``. A scan runs over every tradeable listed equity with live quotes, so its
results move with the market.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ordergate.sandbox.tools import _scan_engine as engine
from ordergate.sandbox.tools._prose_rules import choice, invalid, present, text
from ordergate.sandbox.tools._registry import VenueError, tool
from ordergate.sandbox.tools._wire_format import iso
from ordergate.sandbox.venue._lists import Lists, Scan

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "create_scan",
    "get_scanner_datapoints",
    "get_scanner_filter_specs",
    "get_scans",
    "preview_scan",
    "run_scan",
    "update_scan_config",
    "update_scan_filters",
]

MAX_SCANS = 20
_TITLE_LENGTH = 80
_DIRECTIONS = ("asc", "desc")
_GUIDE = "Run a saved scan with run_scan; try filters without saving with preview_scan."


def _desk(venue: Venue) -> Lists:
    return Lists.of(venue)


def _scan(venue: Venue, scan_id: str) -> Scan:
    found = _desk(venue).scans.get(scan_id.strip().lower())
    if found is None:
        raise VenueError("NOT_FOUND", f"No scan with id {scan_id}.", field="scan_id")
    return found


def _scan_row(scan: Scan) -> dict[str, Any]:
    return {
        "id": scan.id,
        "title": scan.title,
        "preset": scan.preset,
        "filters": scan.filters,
        "columns": scan.columns,
        "sorting_column": scan.sorting_column,
        "sorting_direction": scan.sorting_direction,
        "created_at": iso(scan.created_at),
        "updated_at": iso(scan.updated_at),
    }


@tool(
    "get_scanner_filter_specs",
    description=(
        "Describe the scanner's filter types (range, categorical, indicator), their predicates "
        "and value counts, the indicator plots, the presets and the limits."
    ),
    guide="List datapoints for filters and columns with get_scanner_datapoints.",
)
def get_scanner_filter_specs(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "filter_specs": [
            {
                "filter_type": "range",
                "applies_to": "number datapoints",
                "predicates": [
                    {"predicate": name, "value_count": count}
                    for name, count in engine.RANGE_PREDICATES.items()
                ],
            },
            {
                "filter_type": "categorical",
                "applies_to": "text datapoints",
                "predicates": [
                    {"predicate": name, "value_count": None}
                    for name in engine.CATEGORICAL_PREDICATES
                ],
            },
            {
                "filter_type": "indicator",
                "applies_to": "technical indicators of daily closes",
                "plots": list(engine.PLOTS),
                "intervals": list(engine.INDICATOR_INTERVALS),
                "length": {"minimum": 2, "maximum": 200, "default": 14},
                "predicates": [
                    *(
                        {"predicate": name, "value_count": count}
                        for name, count in engine.RANGE_PREDICATES.items()
                    ),
                    *({"predicate": name, "value_count": 0} for name in engine.PRICE_VERSUS),
                ],
            },
        ],
        "categories": list(engine.CATEGORIES),
        "presets": [
            {"preset": key, "title": title, "filters": filters}
            for key, (title, filters, _, _) in engine.PRESETS.items()
        ],
        "sorting_directions": list(_DIRECTIONS),
        "limits": {
            "max_filters": engine.MAX_FILTERS,
            "max_columns": engine.MAX_COLUMNS,
            "max_rows": engine.MAX_ROWS,
            "max_scans": MAX_SCANS,
        },
    }


@tool(
    "get_scanner_datapoints",
    description=(
        "List the datapoints of one category (price, volume, fundamentals, profile, "
        "technicals) usable as filter expressions and columns."
    ),
    guide="Use a datapoint's key as a filter's or a column's expression.",
)
def get_scanner_datapoints(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    category = choice(args, "category", engine.CATEGORIES)
    if category is None:
        raise invalid("category", f"category must be one of: {', '.join(engine.CATEGORIES)}")
    if category == "technicals":
        datapoints = [
            {
                "key": plot,
                "display_name": plot.upper(),
                "category": "technicals",
                "value_type": "number",
                "unit": None,
                "filter_type": "indicator",
            }
            for plot in engine.PLOTS
        ]
    else:
        datapoints = [
            {
                "key": point.key,
                "display_name": point.display_name,
                "category": point.category,
                "value_type": point.value_type,
                "unit": point.unit,
                "filter_type": "range" if point.value_type == "number" else "categorical",
            }
            for point in engine.DATAPOINTS
            if point.category == category
        ]
    return {"category": category, "datapoints": datapoints}


@tool(
    "get_scans",
    description="List the user's saved scans with their filters, columns and sorting.",
    guide=_GUIDE,
)
def get_scans(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return {"scans": [_scan_row(scan) for scan in _desk(venue).scans.values()]}


@tool(
    "create_scan",
    description=(
        "Save a scan: from filters and columns, from a preset (see get_scanner_filter_specs), "
        "or as a copy of an existing scan_id. At most 20 scans."
    ),
    guide=_GUIDE,
)
def create_scan(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    preset = choice(args, "preset", engine.PRESETS)
    if preset is not None and present(args, "scan_id"):
        raise invalid("preset", "give preset or scan_id, not both")
    title = text(args, "title", max_length=_TITLE_LENGTH)
    filters: list[dict[str, Any]] = []
    columns = engine.normalise_columns(None)
    sorting = ("percent_change", "desc")
    source = "Untitled scan"
    if preset is not None:
        source, raw_filters, sort_key, direction = engine.PRESETS[preset]
        filters = engine.normalise_filters(raw_filters)
        sorting = (sort_key, direction)
    elif present(args, "scan_id"):
        original = _scan(venue, args["scan_id"])
        source = f"{original.title} (copy)"
        filters = [dict(f) for f in original.filters]
        columns = [dict(c) for c in original.columns]
        sorting = (original.sorting_column, original.sorting_direction)
    if args.get("filters") is not None:
        filters = engine.normalise_filters(args["filters"])
    if args.get("columns") is not None:
        columns = engine.normalise_columns(args["columns"])
    if len(desk.scans) >= MAX_SCANS:
        raise invalid("title", f"you can have at most {MAX_SCANS} scans")
    now = venue.now()
    scan = Scan(
        id=venue.ids.next("scan"),
        title=title or source,
        preset=preset,
        filters=filters,
        columns=columns,
        sorting_column=sorting[0],
        sorting_direction=sorting[1],
        created_at=now,
        updated_at=now,
    )
    desk.scans[scan.id] = scan
    return {"scan": _scan_row(scan)}


@tool(
    "update_scan_config",
    description=(
        "Change a saved scan's columns or its sorting (sorting_column: a column display name "
        "or datapoint key; sorting_direction: asc or desc)."
    ),
    guide=_GUIDE,
)
def update_scan_config(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    scan = _scan(venue, args["scan_id"])
    columns = (
        engine.normalise_columns(args["columns"])
        if args.get("columns") is not None
        else scan.columns
    )
    direction = choice(args, "sorting_direction", _DIRECTIONS)
    sorting_column = scan.sorting_column
    if present(args, "sorting_column"):
        sorting_column = engine.sort_key_of(columns, args["sorting_column"], "sorting_column")
    if args.get("columns") is None and direction is None and not present(args, "sorting_column"):
        raise invalid("scan_id", "give columns, sorting_column or sorting_direction")
    scan.columns = columns
    scan.sorting_column = sorting_column
    scan.sorting_direction = direction or scan.sorting_direction
    scan.updated_at = venue.now()
    return {"scan": _scan_row(scan)}


@tool(
    "update_scan_filters",
    description="Replace a saved scan's filters (an empty list matches every equity).",
    guide=_GUIDE,
)
def update_scan_filters(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    scan = _scan(venue, args["scan_id"])
    scan.filters = engine.normalise_filters(args["filters"])
    scan.updated_at = venue.now()
    return {"scan": _scan_row(scan)}


@tool(
    "preview_scan",
    description=(
        "Run filters (and optional columns) over the market without saving a scan; returns up "
        "to 100 matching equities sorted by % change."
    ),
    guide="Save the filters with create_scan to run them again later.",
)
def preview_scan(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    filters = engine.normalise_filters(args["filters"])
    columns = engine.normalise_columns(args.get("columns"))
    return {"scan_id": None, **engine.run(venue, filters, columns, "percent_change", "desc")}


@tool(
    "run_scan",
    description="Run a saved scan over the market now; returns up to 100 matching equities.",
    guide="Change the scan with update_scan_filters or update_scan_config.",
)
def run_scan(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    scan = _scan(venue, args["scan_id"])
    result = engine.run(
        venue, scan.filters, scan.columns, scan.sorting_column, scan.sorting_direction
    )
    return {"scan_id": scan.id, "title": scan.title, **result}
