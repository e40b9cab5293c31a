"""The record's time text: fixed-width UTC ISO-8601 with microseconds, as the ledger stores
times (``2026-12-01T15:00:00.000000Z``), so text order is time order in SQL."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["iso", "parse_iso"]

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def iso(instant: datetime) -> str:
    if instant.tzinfo is None:
        raise ValueError("naive datetime: give a timezone")
    return instant.astimezone(UTC).strftime(_FORMAT)


def parse_iso(text: str) -> datetime:
    return datetime.strptime(text, _FORMAT).replace(tzinfo=UTC)
