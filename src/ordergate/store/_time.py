"""The one time encoding of everything ordergate stores.

A time is fixed-width UTC ISO-8601 text with microseconds (``2026-12-01T15:00:00.000000Z``):
readable in any SQL shell, ordered as text the way it is in time, and hashed by the ledger as
stored. Where SQL compares times in a window, a column holds integer microseconds since the
epoch instead (``ordergate.core.to_us``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from ordergate.core import wire_time

__all__ = ["iso", "parse_iso"]

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_WIDTH = len("2026-12-01T15:00:00.000000Z")


iso = wire_time
"""Fixed-width UTC ISO-8601 with microseconds: ``2026-12-01T15:00:00.000000Z`` (the very text
the venue's wire carries, ``ordergate.core.wire_time``); ``ValueError`` for a naive time."""


def parse_iso(text: str) -> datetime:
    """The aware UTC datetime ``iso`` wrote as ``text``; ``ValueError`` for any other text.

    The shape is checked here and the fields parsed by ``datetime.fromisoformat`` (about 50
    times ``strptime``'s speed; the order path parses a dozen stored times per order)."""
    if len(text) != _WIDTH or text[19] != "." or text[-1] != "Z" or not text[20:26].isdigit():
        raise ValueError(f"time data {text!r} does not match format {_FORMAT!r}")
    parsed = datetime.fromisoformat(text)
    if text[10] != "T" or parsed.tzinfo is not UTC:
        raise ValueError(f"time data {text!r} does not match format {_FORMAT!r}")
    return parsed
