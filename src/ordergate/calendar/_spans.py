"""The reporting spans of Robinhood's P&L tools (``span``), as days: one rule for the sandbox
venue and the paper book's answers."""

from __future__ import annotations

import calendar
from datetime import date, timedelta

__all__ = ["PNL_SPANS", "span_start"]

PNL_SPANS = ("day", "week", "month", "3month", "ytd", "year", "5year", "all")


def _months_back(day: date, months: int) -> date:
    """The same day ``months`` earlier, clamped to that month's length (31 Mar → 28 Feb)."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    length = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, length))


def span_start(span: str, today: date) -> date | None:
    """The first day ``span`` covers up to ``today`` (``None`` for ``all``); ``ValueError``
    for a span that is not one of ``PNL_SPANS``."""
    starts: dict[str, date | None] = {
        "day": today,
        "week": today - timedelta(days=6),
        "month": _months_back(today, 1),
        "3month": _months_back(today, 3),
        "ytd": date(today.year, 1, 1),
        "year": _months_back(today, 12),
        "5year": _months_back(today, 60),
        "all": None,
    }
    if span not in starts:
        raise ValueError(f"span must be one of {' | '.join(PNL_SPANS)}")
    return starts[span]
