"""The scanner's vocabulary (datapoints, filter types, predicates, presets) and its evaluator.

A filter is ``{filter_type, expression, predicate, values}``: ``range`` filters compare a
numeric datapoint (``expression`` is its key) with decimal ``values``; ``categorical``
filters test a text datapoint against a set of ``values``; ``indicator`` filters compute a
technical indicator (``plot`` sma|ema|rsi over ``length`` daily bars, ``interval`` day) and
compare it like a range filter, or, with ``price_above``/``price_below``, compare the last
price with it. A scan runs its filters over every listed equity and keeps the rows that
pass them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import DecimalFieldError, parse_decimal, to_wire
from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools._indicators import ema, rsi, sma
from ordergate.sandbox.tools._metrics import Metrics, metrics
from ordergate.sandbox.tools._prose_rules import invalid
from ordergate.sandbox.tools._wire_format import iso

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "CATEGORIES",
    "DATAPOINTS",
    "DEFAULT_COLUMNS",
    "FILTER_TYPES",
    "PRESETS",
    "Datapoint",
    "normalise_columns",
    "normalise_filters",
    "run",
]

MAX_FILTERS = 20
MAX_COLUMNS = 15
MAX_ROWS = 100


@dataclass(frozen=True, slots=True)
class Datapoint:
    key: str
    display_name: str
    category: str
    value_type: str  # number | text
    unit: str | None
    read: Callable[[Metrics], Decimal | str | None]


def _n(value: int) -> Decimal:
    return Decimal(value)


DATAPOINTS: tuple[Datapoint, ...] = (
    Datapoint("last_price", "Price", "price", "number", "usd", lambda m: m.price),
    Datapoint(
        "previous_close", "Previous close", "price", "number", "usd", lambda m: m.previous_close
    ),
    Datapoint("change", "Change", "price", "number", "usd", lambda m: m.change),
    Datapoint(
        "percent_change", "% Change", "price", "number", "percent", lambda m: m.percent_change
    ),
    Datapoint(
        "average_volume",
        "Average volume",
        "volume",
        "number",
        "shares",
        lambda m: _n(m.average_volume),
    ),
    Datapoint("market_cap", "Market cap", "fundamentals", "number", "usd", lambda m: m.market_cap),
    Datapoint("pe_ratio", "P/E ratio", "fundamentals", "number", None, lambda m: m.pe_ratio),
    Datapoint("pb_ratio", "P/B ratio", "fundamentals", "number", None, lambda m: m.pb_ratio),
    Datapoint(
        "dividend_yield",
        "Dividend yield",
        "fundamentals",
        "number",
        "percent",
        lambda m: m.dividend_yield,
    ),
    Datapoint("eps_ttm", "EPS (TTM)", "fundamentals", "number", "usd", lambda m: m.eps_ttm),
    Datapoint(
        "shares_outstanding",
        "Shares outstanding",
        "fundamentals",
        "number",
        "shares",
        lambda m: _n(m.shares_outstanding),
    ),
    Datapoint("sector", "Sector", "profile", "text", None, lambda m: m.sector),
    Datapoint("industry", "Industry", "profile", "text", None, lambda m: m.industry),
    Datapoint("asset_type", "Asset type", "profile", "text", None, lambda m: m.kind),
)
_BY_KEY = {d.key: d for d in DATAPOINTS}
_BY_NAME = {d.display_name.lower(): d for d in DATAPOINTS}
CATEGORIES = ("price", "volume", "fundamentals", "profile", "technicals")
PLOTS = ("sma", "ema", "rsi")
INDICATOR_INTERVALS = ("day",)
RANGE_PREDICATES = {
    "greater_than": 1,
    "greater_than_or_equal": 1,
    "less_than": 1,
    "less_than_or_equal": 1,
    "between": 2,
}
CATEGORICAL_PREDICATES = ("in", "not_in")
PRICE_VERSUS = ("price_above", "price_below")
FILTER_TYPES: dict[str, tuple[str, ...]] = {
    "range": tuple(RANGE_PREDICATES),
    "categorical": CATEGORICAL_PREDICATES,
    "indicator": (*RANGE_PREDICATES, *PRICE_VERSUS),
}
DEFAULT_COLUMNS: tuple[dict[str, Any], ...] = (
    {"display_name": "Price", "expression": "last_price", "order": 0, "visible": True},
    {"display_name": "% Change", "expression": "percent_change", "order": 1, "visible": True},
    {"display_name": "Market cap", "expression": "market_cap", "order": 2, "visible": True},
    {"display_name": "Average volume", "expression": "average_volume", "order": 3, "visible": True},
)


def _range(expression: str, predicate: str, *values: str) -> dict[str, Any]:
    return {
        "filter_type": "range",
        "expression": expression,
        "predicate": predicate,
        "values": list(values),
    }


PRESETS: dict[str, tuple[str, list[dict[str, Any]], str, str]] = {
    "top_gainers": (
        "Top gainers",
        [_range("percent_change", "greater_than", "0")],
        "percent_change",
        "desc",
    ),
    "top_losers": (
        "Top losers",
        [_range("percent_change", "less_than", "0")],
        "percent_change",
        "asc",
    ),
    "most_active": (
        "Most active",
        [_range("average_volume", "greater_than", "20000000")],
        "average_volume",
        "desc",
    ),
    "large_cap": (
        "Large caps",
        [_range("market_cap", "greater_than", "200000000000")],
        "market_cap",
        "desc",
    ),
    "high_dividend": (
        "High dividend",
        [_range("dividend_yield", "greater_than_or_equal", "2")],
        "dividend_yield",
        "desc",
    ),
    "value": ("Value stocks", [_range("pe_ratio", "between", "0", "15")], "pe_ratio", "asc"),
    "oversold": (
        "Oversold (RSI below 30)",
        [
            {
                "filter_type": "indicator",
                "plot": "rsi",
                "length": 14,
                "interval": "day",
                "predicate": "less_than",
                "values": ["30"],
            }
        ],
        "percent_change",
        "asc",
    ),
}


def datapoint(expression: str, field: str) -> Datapoint:
    found = _BY_KEY.get(expression.strip().lower())
    if found is None:
        raise invalid(field, f"unknown datapoint {expression!r}; see get_scanner_datapoints")
    return found


def _decimal_values(values: list[str], count: int | None, field: str) -> list[Decimal]:
    if count is not None and len(values) != count:
        raise invalid(field, f"this predicate takes exactly {count} value(s)")
    parsed: list[Decimal] = []
    for value in values:
        try:
            number = parse_decimal(field, value)
        except DecimalFieldError:
            number = None
        if number is None:
            raise invalid(field, f"{value!r} is not a decimal number")
        parsed.append(number)
    if len(parsed) == 2 and parsed[0] > parsed[1]:
        raise invalid(field, "between takes the lower bound first")
    return parsed


def _one_filter(raw: dict[str, Any], field: str) -> dict[str, Any]:
    values = [str(v) for v in raw.get("values") or []]
    predicate = str(raw.get("predicate", "")).strip().lower()
    given_type = str(raw.get("filter_type") or "").strip().lower() or None
    if given_type is not None and given_type not in FILTER_TYPES:
        raise invalid(
            f"{field}.filter_type", f"filter_type must be one of: {', '.join(FILTER_TYPES)}"
        )
    if given_type == "indicator" or (given_type is None and raw.get("plot")):
        return _indicator_filter(raw, predicate, values, field)
    if not raw.get("expression"):
        raise invalid(f"{field}.expression", "a range or categorical filter needs an expression")
    point = datapoint(str(raw["expression"]), f"{field}.expression")
    kind = "range" if point.value_type == "number" else "categorical"
    if given_type is not None and given_type != kind:
        raise invalid(f"{field}.filter_type", f"{point.key} takes a {kind} filter")
    for unused in ("plot", "length", "interval"):
        if raw.get(unused) is not None:
            raise invalid(f"{field}.{unused}", f"{unused} applies to indicator filters only")
    if predicate not in FILTER_TYPES[kind]:
        raise invalid(
            f"{field}.predicate", f"predicate must be one of: {', '.join(FILTER_TYPES[kind])}"
        )
    if kind == "range":
        _decimal_values(values, RANGE_PREDICATES[predicate], f"{field}.values")
    elif not values:
        raise invalid(f"{field}.values", "a categorical filter needs at least one value")
    return {
        "filter_type": kind,
        "expression": point.key,
        "predicate": predicate,
        "values": values,
        "display_title": str(raw.get("display_title") or point.display_name),
    }


def _indicator_filter(
    raw: dict[str, Any], predicate: str, values: list[str], field: str
) -> dict[str, Any]:
    plot = str(raw.get("plot") or "").strip().lower()
    if plot not in PLOTS:
        raise invalid(f"{field}.plot", f"plot must be one of: {', '.join(PLOTS)}")
    interval = str(raw.get("interval") or "day").strip().lower()
    if interval not in INDICATOR_INTERVALS:
        raise invalid(f"{field}.interval", "interval must be day")
    length = int(raw.get("length", 14))
    if not 2 <= length <= 200:
        raise invalid(f"{field}.length", "length must be between 2 and 200")
    if predicate not in FILTER_TYPES["indicator"]:
        allowed = ", ".join(FILTER_TYPES["indicator"])
        raise invalid(f"{field}.predicate", f"predicate must be one of: {allowed}")
    if predicate in PRICE_VERSUS:
        if values:
            raise invalid(
                f"{field}.values", f"{predicate} compares the price with the plot; give no values"
            )
    else:
        _decimal_values(values, RANGE_PREDICATES[predicate], f"{field}.values")
    return {
        "filter_type": "indicator",
        "plot": plot,
        "length": length,
        "interval": interval,
        "predicate": predicate,
        "values": values,
        "display_title": str(raw.get("display_title") or f"{plot.upper()}({length})"),
    }


def normalise_filters(
    raw: list[dict[str, Any]] | None, field: str = "filters"
) -> list[dict[str, Any]]:
    """Checked filters in canonical form (lower-case names, display titles filled in)."""
    filters = raw or []
    if len(filters) > MAX_FILTERS:
        raise invalid(field, f"a scan takes at most {MAX_FILTERS} filters")
    return [_one_filter(item, f"{field}[{i}]") for i, item in enumerate(filters)]


def normalise_columns(
    raw: list[dict[str, Any]] | None, field: str = "columns"
) -> list[dict[str, Any]]:
    """Checked columns, each tied to a datapoint by expression or by its display name."""
    if not raw:
        return [dict(column) for column in DEFAULT_COLUMNS]
    if len(raw) > MAX_COLUMNS:
        raise invalid(field, f"a scan shows at most {MAX_COLUMNS} columns")
    columns: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        name = str(item["display_name"]).strip()
        if not name:
            raise invalid(f"{field}[{i}].display_name", "display_name must not be empty")
        expression = item.get("expression")
        if expression:
            point = datapoint(str(expression), f"{field}[{i}].expression")
        else:
            found = _BY_NAME.get(name.lower())
            if found is None:
                raise invalid(
                    f"{field}[{i}].expression",
                    f"no datapoint is called {name!r}; give an expression",
                )
            point = found
        order = item.get("order")
        columns.append(
            {
                "display_name": name,
                "expression": point.key,
                "order": i if order is None else order,
                "visible": True if item.get("visible") is None else bool(item["visible"]),
            }
        )
    if len({c["display_name"].lower() for c in columns}) != len(columns):
        raise invalid(field, "column display names must be unique")
    return sorted(columns, key=lambda c: (c["order"], c["display_name"]))


def sort_key_of(columns: list[dict[str, Any]], sorting_column: str, field: str) -> str:
    """The datapoint a sort refers to, by column display name or datapoint key."""
    wanted = sorting_column.strip().lower()
    for column in columns:
        if column["display_name"].lower() == wanted:
            return str(column["expression"])
    return datapoint(wanted, field).key


def _indicator_value(venue: Venue, listed: mv.Equity, plot: str, length: int) -> Decimal | None:
    # RSI and EMA need a run-in well beyond their period to settle.
    closes = mv.daily_closes(venue, listed, length if plot == "sma" else length * 4)
    if plot == "sma":
        series = sma(closes, length)
    elif plot == "ema":
        series = ema(closes, length)
    else:
        series = rsi(closes, length)
    return series[-1] if series and series[-1] is not None else None


def _passes(venue: Venue, listed: mv.Equity, row: Metrics, item: dict[str, Any]) -> bool:
    predicate = item["predicate"]
    if item["filter_type"] == "categorical":
        value = _BY_KEY[item["expression"]].read(row)
        wanted = {v.lower() for v in item["values"]}
        inside = str(value).lower() in wanted
        return inside if predicate == "in" else not inside
    if item["filter_type"] == "indicator":
        number = _indicator_value(venue, listed, item["plot"], item["length"])
        if number is None:
            return False
        if predicate == "price_above":
            return row.price > number
        if predicate == "price_below":
            return row.price < number
    else:
        read = _BY_KEY[item["expression"]].read(row)
        if not isinstance(read, Decimal):
            return False
        number = read
    bounds = [Decimal(v) for v in item["values"]]
    if predicate == "greater_than":
        return number > bounds[0]
    if predicate == "greater_than_or_equal":
        return number >= bounds[0]
    if predicate == "less_than":
        return number < bounds[0]
    if predicate == "less_than_or_equal":
        return number <= bounds[0]
    return bounds[0] <= number <= bounds[1]


def _cell(value: Decimal | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return to_wire(value)


def run(
    venue: Venue,
    filters: list[dict[str, Any]],
    columns: list[dict[str, Any]],
    sort_key: str,
    direction: str,
) -> dict[str, Any]:
    """Rows of every listed equity passing all ``filters``, sorted, at most ``MAX_ROWS``."""
    matched: list[tuple[Metrics, dict[str, Any]]] = []
    for listed in mv.universe(venue).equities:
        if not listed.tradeable:
            continue
        row = metrics(venue, listed)
        if all(_passes(venue, listed, row, item) for item in filters):
            values = {
                c["display_name"]: _cell(_BY_KEY[c["expression"]].read(row))
                for c in columns
                if c["visible"]
            }
            matched.append((row, values))
    reader = _BY_KEY[sort_key].read

    def ordering(entry: tuple[Metrics, dict[str, Any]]) -> tuple[int, Any, str]:
        value = reader(entry[0])
        # Rows without the value sort last whichever the direction.
        if value is None:
            return (1, 0, entry[0].symbol)
        if isinstance(value, Decimal) and direction == "desc":
            return (0, -value, entry[0].symbol)
        return (0, value, entry[0].symbol)

    matched.sort(key=ordering)
    if direction == "desc" and _BY_KEY[sort_key].value_type == "text":
        present = [m for m in matched if reader(m[0]) is not None]
        matched = list(reversed(present)) + [m for m in matched if reader(m[0]) is None]
    rows = [
        {
            "symbol": row.symbol,
            "instrument_id": row.instrument_id,
            "name": row.name,
            "values": values,
        }
        for row, values in matched[:MAX_ROWS]
    ]
    return {
        "as_of": iso(venue.now()),
        "total_matches": len(matched),
        "columns": [c for c in columns if c["visible"]],
        "rows": rows,
    }
