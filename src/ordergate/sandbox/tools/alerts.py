"""Alert tools: price, percent-change and indicator alerts, and the log of alerts that fired.

Alerts live on the venue's lists desk, whose ``sync`` fires price and percent-change alerts
when the market crosses their threshold (one-shot: a fired alert is disabled until
``update_alert`` re-enables it). Indicator alerts are validated and kept, but never fire in
the sandbox.

Condition types (threshold meaning):

- ``price_above`` / ``price_below``: a price in dollars;
- ``percent_change_above`` / ``percent_change_below``: the day's change from the previous
  close, in percent, signed (``"-5"`` = down five percent);
- ``rsi_above`` / ``rsi_below``: an RSI level from 0 to 100 (indicator: ``period``);
- ``moving_average_cross_above`` / ``moving_average_cross_below``: no threshold (indicator:
  ``period``, ``ma_type`` sma|ema);
- ``macd_cross_above`` / ``macd_cross_below``: no threshold (indicator: ``fast_period``,
  ``slow_period``, ``signal_period``);
- ``bollinger_cross_above`` / ``bollinger_cross_below``: no threshold (indicator:
  ``period``, ``std_dev``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import DecimalFieldError, parse_decimal, to_wire
from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools._paging import page
from ordergate.sandbox.tools._prose_rules import choice, invalid, iso_instant, page_size, present
from ordergate.sandbox.tools._registry import VenueError, tool
from ordergate.sandbox.tools._wire_format import iso
from ordergate.sandbox.venue._lists import PRICE_CONDITIONS, Alert, AlertLogEntry, Lists

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "create_alert",
    "delete_alert",
    "get_alert_log",
    "get_alerts",
    "mark_alerts_read",
    "update_alert",
]

MAX_ALERTS = 100
_PAGE = 50
_ASSET_CLASSES = ("equity", "crypto")
_INTERVALS = (60, 300, 900, 3600, 86400)
_MA_TYPES = ("sma", "ema")
_WHOLE = frozenset({"interval_secs", "period", "fast_period", "slow_period", "signal_period"})
# Which indicator fields each indicator condition takes (required ones first).
_INDICATOR_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "rsi": (frozenset({"period"}), frozenset()),
    "moving_average_cross": (frozenset({"period"}), frozenset({"ma_type"})),
    "macd_cross": (frozenset({"fast_period", "slow_period", "signal_period"}), frozenset()),
    "bollinger_cross": (frozenset({"period", "std_dev"}), frozenset()),
}
_CONDITIONS = frozenset(
    PRICE_CONDITIONS
    | {f"{family}_{way}" for family in _INDICATOR_FIELDS for way in ("above", "below")}
)
_THRESHOLDED = frozenset(PRICE_CONDITIONS | {"rsi_above", "rsi_below"})
_GUIDE = "Fired alerts appear in get_alert_log; a fired alert is disabled until re-enabled."


def _desk(venue: Venue) -> Lists:
    return Lists.of(venue)


def _family(condition: str) -> str:
    return condition.rsplit("_", 1)[0]


def _instrument(venue: Venue, symbol: str, asset_class: str) -> tuple[str, str]:
    """(canonical symbol, instrument id) of a listed equity or crypto pair."""
    if asset_class == "crypto":
        pair = mv.crypto_pair(venue, symbol)
        if pair is None:
            raise VenueError("NOT_FOUND", f"No crypto pair {symbol}.", field="symbol")
        return pair.symbol, pair.id
    listed = mv.equity(venue, symbol)
    if listed is None:
        raise VenueError("NOT_FOUND", f"No equity with symbol {symbol}.", field="symbol")
    return listed.symbol, listed.instrument_id


def _threshold(condition: str, raw: object) -> Decimal | None:
    if condition not in _THRESHOLDED:
        if raw not in (None, ""):
            raise invalid("threshold", f"{condition} alerts take no threshold")
        return None
    try:
        value = parse_decimal("threshold", raw)
    except DecimalFieldError:
        raise invalid("threshold", "threshold must be a decimal number") from None
    if value is None:
        raise invalid("threshold", f"{condition} alerts need a threshold")
    if condition.startswith("price") and value <= 0:
        raise invalid("threshold", "a price threshold must be greater than zero")
    if condition.startswith("percent_change") and not Decimal(-100) < value <= Decimal(1000):
        raise invalid("threshold", "a percent threshold must be above -100 and at most 1000")
    if condition.startswith("rsi") and not Decimal(0) < value < Decimal(100):
        raise invalid("threshold", "an RSI threshold must be between 0 and 100")
    return value


def _indicator(condition: str, raw: dict[str, Any] | None) -> dict[str, Any] | None:
    if condition in PRICE_CONDITIONS:
        if raw is not None:
            raise invalid("indicator", f"{condition} alerts take no indicator")
        return None
    if raw is None:
        raise invalid("indicator", f"{condition} alerts need an indicator")
    required, optional = _INDICATOR_FIELDS[_family(condition)]
    given = {key for key, value in raw.items() if value is not None}
    extra = sorted(given - required - optional - {"interval_secs"})
    if extra:
        raise invalid(f"indicator.{extra[0]}", f"{condition} alerts do not use {extra[0]}")
    missing = sorted(required - given)
    if missing:
        raise invalid(f"indicator.{missing[0]}", f"{condition} alerts need {missing[0]}")
    if raw["interval_secs"] not in _INTERVALS:
        allowed = ", ".join(str(i) for i in _INTERVALS)
        raise invalid("indicator.interval_secs", f"interval_secs must be one of: {allowed}")
    for key in ("period", "fast_period", "slow_period", "signal_period"):
        if key in given and not 2 <= raw[key] <= 200:
            raise invalid(f"indicator.{key}", f"{key} must be between 2 and 200")
    if "fast_period" in given and raw["fast_period"] >= raw["slow_period"]:
        raise invalid("indicator.fast_period", "fast_period must be less than slow_period")
    # JSON Schema counts 14.0 as an integer; keep whole numbers as ints on the way back out.
    indicator = {key: int(raw[key]) if key in _WHOLE else raw[key] for key in sorted(given)}
    if "std_dev" in given:
        std_dev = parse_decimal("std_dev", raw["std_dev"])
        if std_dev is None or not Decimal("0.5") <= std_dev <= Decimal(5):
            raise invalid("indicator.std_dev", "std_dev must be between 0.5 and 5")
        indicator["std_dev"] = to_wire(std_dev)
    if "ma_type" in given:
        ma_type = str(raw["ma_type"]).lower()
        if ma_type not in _MA_TYPES:
            raise invalid("indicator.ma_type", "ma_type must be one of: ema, sma")
        indicator["ma_type"] = ma_type
    elif _family(condition) == "moving_average_cross":
        indicator["ma_type"] = "sma"
    return indicator


def _condition(args: dict[str, Any]) -> str:
    condition = choice(args, "condition_type", _CONDITIONS)
    if condition is None:
        raise invalid("condition_type", "condition_type must not be empty")
    return condition


def _alert_row(alert: Alert) -> dict[str, Any]:
    return {
        "id": alert.id,
        "symbol": alert.symbol,
        "asset_class": alert.asset_class,
        "condition_type": alert.condition_type,
        "threshold": None if alert.threshold is None else to_wire(alert.threshold),
        "indicator": alert.indicator,
        "enabled": alert.enabled,
        "state": alert.state,
        "trigger_count": alert.trigger_count,
        "last_triggered_at": iso(alert.triggered_at),
        "created_at": iso(alert.created_at),
        "updated_at": iso(alert.updated_at),
    }


def _log_row(entry: AlertLogEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "alert_id": entry.alert_id,
        "symbol": entry.symbol,
        "asset_class": entry.asset_class,
        "condition_type": entry.condition_type,
        "threshold": None if entry.threshold is None else to_wire(entry.threshold),
        "triggered_price": to_wire(entry.price),
        "triggered_value": to_wire(entry.value),
        "triggered_at": iso(entry.triggered_at),
        "message": entry.message,
        "read": entry.read_at is not None,
        "read_at": iso(entry.read_at),
    }


def _alert(venue: Venue, alert_id: str) -> Alert:
    found = _desk(venue).alerts.get(alert_id.strip().lower())
    if found is None:
        raise VenueError("NOT_FOUND", f"No alert with id {alert_id}.", field="alert_id")
    return found


@tool(
    "get_alerts",
    description=(
        "List the user's alerts, optionally for one symbol or asset_class (equity|crypto), "
        "50 per page; pass next_cursor back as cursor for the next page."
    ),
    guide=_GUIDE,
)
def get_alerts(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    asset_class = choice(args, "asset_class", _ASSET_CLASSES)
    symbol = str(args["symbol"]).strip().upper() if present(args, "symbol") else None
    alerts = [
        alert
        for alert in _desk(venue).alerts.values()
        if (asset_class is None or alert.asset_class == asset_class)
        and (symbol is None or alert.symbol in (symbol, f"{symbol}-USD"))
    ]
    scope = f"alerts:{asset_class}:{symbol}"
    rows, following = page(alerts, scope=scope, cursor=args.get("cursor"), size=_PAGE)
    return {"alerts": [_alert_row(a) for a in rows], "next_cursor": following}


@tool(
    "create_alert",
    description=(
        "Create an alert on an equity or crypto symbol. condition_type is one of price_above, "
        "price_below, percent_change_above, percent_change_below (with threshold), rsi_above, "
        "rsi_below (threshold and indicator), moving_average_cross_*, macd_cross_*, "
        "bollinger_cross_* (indicator only; * is above or below). At most 100 alerts."
    ),
    guide=_GUIDE,
)
def create_alert(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    asset_class = choice(args, "asset_class", _ASSET_CLASSES, default="equity") or "equity"
    condition = _condition(args)
    threshold = _threshold(condition, args.get("threshold"))
    indicator = _indicator(condition, args.get("indicator"))
    symbol, _ = _instrument(venue, str(args["symbol"]).strip(), asset_class)
    if len(desk.alerts) >= MAX_ALERTS:
        raise invalid("symbol", f"you can have at most {MAX_ALERTS} alerts")
    now = venue.now()
    alert = Alert(
        id=venue.ids.next("alert"),
        symbol=symbol,
        asset_class=asset_class,
        condition_type=condition,
        threshold=threshold,
        indicator=indicator,
        enabled=True,
        created_at=now,
        updated_at=now,
    )
    desk.arm(alert)
    desk.alerts[alert.id] = alert
    return {"alert": _alert_row(alert)}


@tool(
    "update_alert",
    description=(
        "Change an alert's condition_type, threshold or indicator, or enable or disable it. "
        "Enabling a fired alert re-arms it from the current price."
    ),
    guide=_GUIDE,
)
def update_alert(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    alert = _alert(venue, args["alert_id"])
    changes = [
        key for key in ("condition_type", "threshold", "indicator", "enabled") if key in args
    ]
    if not changes or all(args[key] is None for key in changes):
        raise invalid("alert_id", "give condition_type, threshold, indicator or enabled")
    condition = _condition(args) if present(args, "condition_type") else alert.condition_type
    condition_changed = condition != alert.condition_type
    threshold_raw = args.get("threshold") if "threshold" in args else None
    if threshold_raw in (None, "") and not condition_changed:
        threshold_raw = None if alert.threshold is None else to_wire(alert.threshold)
    indicator_raw = args.get("indicator")
    if indicator_raw is None and not condition_changed:
        indicator_raw = alert.indicator
    threshold = _threshold(condition, threshold_raw)
    indicator = _indicator(condition, indicator_raw)
    enabled = alert.enabled if args.get("enabled") is None else bool(args["enabled"])
    rearm = enabled and (not alert.enabled or condition_changed or threshold != alert.threshold)
    alert.condition_type = condition
    alert.threshold = threshold
    alert.indicator = indicator
    alert.enabled = enabled
    alert.updated_at = venue.now()
    if rearm:
        _desk(venue).arm(alert)
    return {"alert": _alert_row(alert)}


@tool(
    "delete_alert",
    description=(
        "Delete an alert. Without confirm=true nothing is deleted and the alert is shown for "
        "the user to confirm."
    ),
    guide="Call again with confirm=true to delete the alert.",
)
def delete_alert(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    alert = _alert(venue, args["alert_id"])
    if args.get("confirm") is not True:
        return {"alert": _alert_row(alert), "deleted": False, "confirmation_required": True}
    del _desk(venue).alerts[alert.id]
    return {"alert": _alert_row(alert), "deleted": True, "confirmation_required": False}


def _unread(desk: Lists) -> int:
    return sum(1 for entry in desk.alert_log if entry.read_at is None)


@tool(
    "get_alert_log",
    description=(
        "List alerts that fired, newest first: since an ISO 8601 time, for one asset_class, "
        "limit 1-100 (default 20) per page; pass next_cursor back as cursor."
    ),
    guide="Mark entries read with mark_alerts_read.",
)
def get_alert_log(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    asset_class = choice(args, "asset_class", _ASSET_CLASSES)
    since = iso_instant(args, "since")
    size = page_size(args, "limit", default=20, maximum=100)
    entries = [
        entry
        for entry in reversed(desk.alert_log)
        if (asset_class is None or entry.asset_class == asset_class)
        and (since is None or entry.triggered_at >= since)
    ]
    scope = f"alert_log:{asset_class}:{iso(since)}:{size}"
    rows, following = page(entries, scope=scope, cursor=args.get("cursor"), size=size)
    return {
        "entries": [_log_row(entry) for entry in rows],
        "next_cursor": following,
        "unread_count": _unread(desk),
    }


@tool(
    "mark_alerts_read",
    description=(
        "Mark alert log entries read: either the given alert_log_ids, or every entry that "
        "fired at or before all_through (an ISO 8601 time). Give exactly one of the two."
    ),
    guide="get_alert_log shows read and unread entries.",
)
def mark_alerts_read(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    desk = _desk(venue)
    ids = [str(value).strip().lower() for value in args.get("alert_log_ids") or []]
    through = iso_instant(args, "all_through")
    if bool(ids) == (through is not None):
        raise invalid("alert_log_ids", "give exactly one of alert_log_ids or all_through")
    now = venue.now()
    if through is not None:
        chosen = [entry for entry in desk.alert_log if entry.triggered_at <= through]
    else:
        by_id = {entry.id: entry for entry in desk.alert_log}
        unknown = [value for value in ids if value not in by_id]
        if unknown:
            raise VenueError(
                "NOT_FOUND", f"No alert log entry with id {unknown[0]}.", field="alert_log_ids"
            )
        chosen = [by_id[value] for value in ids]
    marked = 0
    for entry in chosen:
        if entry.read_at is None:
            entry.read_at = now
            marked += 1
    return {"marked_read": marked, "unread_count": _unread(desk)}
