"""Arguments of the market-data tools: symbol and id lists, historicals windows, the bar cap.

The captured schemas only say "array of strings" or "string"; the limits, the allowed
intervals and bounds and the time formats are Robinhood prose, checked here and refused
with ``INVALID_ARGUMENT`` naming the argument.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ordergate.sandbox.market import MAX_BARS, Bar, Bounds, Interval
from ordergate.sandbox.tools._prose_rules import invalid, iso_instant, present

__all__ = ["Window", "capped", "comma_list", "id_list", "symbols", "uuid_list", "window"]


def symbols(args: dict[str, Any], field: str, *, maximum: int | None = None) -> list[str]:
    """Upper-cased symbols in the order given, each once; empty or too many are refused."""
    raw = args.get(field)
    if not raw:
        raise invalid(field, f"{field} must name at least one symbol")
    # A dict keeps the first-seen order and de-duplicates in one pass.
    seen: dict[str, None] = {}
    for item in raw:
        symbol = item.strip().upper()
        if not symbol:
            raise invalid(field, f"{field} must not contain empty symbols")
        seen[symbol] = None
    if maximum is not None and len(seen) > maximum:
        raise invalid(field, f"{field} takes at most {maximum} symbols")
    return list(seen)


def uuid_list(items: list[str], field: str) -> list[str]:
    """Canonical lower-case UUIDs, each once; anything that is not a UUID is refused."""
    seen: dict[str, None] = {}
    for item in items:
        try:
            seen[str(uuid.UUID(item.strip()))] = None
        except ValueError:
            raise invalid(field, f"{field} must hold instrument ids (UUIDs)") from None
    return list(seen)


def id_list(args: dict[str, Any], field: str, *, maximum: int) -> list[str]:
    """An array argument of instrument ids: one to ``maximum`` UUIDs."""
    raw = args.get(field)
    if not raw:
        raise invalid(field, f"{field} must name at least one instrument id")
    ids = uuid_list(raw, field)
    if len(ids) > maximum:
        raise invalid(field, f"{field} takes at most {maximum} ids")
    return ids


def comma_list(args: dict[str, Any], field: str) -> list[str] | None:
    """A comma-separated string argument as its non-empty items; ``None`` when absent."""
    if not present(args, field):
        return None
    items = [item.strip() for item in str(args[field]).split(",") if item.strip()]
    if not items:
        raise invalid(field, f"{field} must not be empty")
    return items


@dataclass(frozen=True, slots=True)
class Window:
    """What a historicals call asks for: a time range, a bar width and the sessions."""

    start: datetime
    end: datetime | None
    interval: Interval
    bounds: Bounds


def _interval(args: dict[str, Any], default: Interval) -> Interval:
    if not present(args, "interval"):
        return default
    try:
        return Interval(str(args["interval"]).strip().lower())
    except ValueError:
        allowed = ", ".join(item.value for item in Interval)
        raise invalid("interval", f"interval must be one of: {allowed}") from None


def _bounds(args: dict[str, Any]) -> Bounds:
    if not present(args, "bounds"):
        return Bounds.REGULAR
    try:
        return Bounds(str(args["bounds"]).strip().lower())
    except ValueError:
        allowed = ", ".join(item.value for item in Bounds)
        raise invalid("bounds", f"bounds must be one of: {allowed}") from None


def window(args: dict[str, Any], *, default_interval: Interval) -> Window:
    """``start_time`` (required), ``end_time`` (default now), ``interval`` and ``bounds``.

    Times are ISO 8601; a bare date is its UTC midnight and a time without an offset is
    read as UTC. ``end_time`` must come after ``start_time``.
    """
    start = iso_instant(args, "start_time")
    if start is None:
        raise invalid("start_time", "start_time is required")
    end = iso_instant(args, "end_time")
    if end is not None and end <= start:
        raise invalid("end_time", "end_time must be after start_time")
    return Window(start, end, _interval(args, default_interval), _bounds(args))


def capped(fetch: Callable[[datetime, datetime | None], list[Bar]], span: Window) -> list[Bar]:
    """``fetch(start, end)`` when it holds the whole range; refused when the cap cut it.

    The market keeps the newest ``MAX_BARS`` bars of a range and drops the rest without a
    word, and the contract's output (``additionalProperties: false``) has no field to say
    so. A range the cap would cut is therefore refused, naming ``start_time``: the bars
    before the first one kept are fetched and, if there are any, the answer was partial.
    Only a full answer can have been cut, so the extra look costs nothing otherwise.
    (Day-based bars never reach the cap: the calendar covers fewer than 5,000 days.)
    """
    bars = fetch(span.start, span.end)
    if len(bars) >= MAX_BARS and fetch(span.start, bars[0].begins_at):
        raise invalid(
            "start_time",
            f"the range holds more than {MAX_BARS} {span.interval.value} bars; "
            "move start_time later or ask for a wider interval",
        )
    return bars
