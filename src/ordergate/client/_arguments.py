"""The arguments of a tool call built by hand, for the tools that take no request model.

Unset optional arguments are left out rather than sent as ``null`` (``present``); dates,
times and id lists take the one wire form each tool expects.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from ordergate.client._fields import is_aware, iso_utc

__all__ = ["iso_day", "joined", "present", "text", "wire_time"]


def present(**arguments: Any) -> dict[str, Any]:
    """``arguments`` without the ones that are ``None``."""
    return {key: value for key, value in arguments.items() if value is not None}


def wire_time(field: str, value: datetime | None) -> str | None:
    """``value`` as ISO 8601 UTC (``2026-12-01T15:00:00Z``); ``ValueError`` naming ``field``
    for a naive datetime."""
    if value is None:
        return None
    if not is_aware(value):
        raise ValueError(f"{field} needs a timezone-aware datetime")
    return iso_utc(value)


def iso_day(value: date | None) -> str | None:
    return None if value is None else value.isoformat()


def joined(values: Sequence[str] | None) -> str | None:
    """The wire's comma-separated lists (``chain_ids``, ``ids`` …)."""
    return None if values is None else ",".join(values)


def text(value: object) -> str | None:
    """An enum (or anything) as its wire text."""
    return None if value is None else str(value)
