"""The XNYS session table, read from ``exchange_calendars`` and shipped with the package.

Importing ``exchange_calendars`` (and pandas under it) takes about 1.4 s and building the
calendar another 0.4 s, which alone broke the sandbox venue's 2-second start. So the table the
calendar needs (each session day with its open and close) is exported once from
``exchange_calendars`` into ``data/xnys-sessions.json`` and read from there; any range the
file does not cover still comes from the library. A test checks the file against the
installed library, so a library update with new holidays cannot drift past unnoticed.

Regenerate with ``scripts/gen-xnys-table``.
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["SHIPPED_FIRST", "SHIPPED_LAST", "export_sessions", "sessions", "write_shipped"]

Row = tuple[date, datetime, datetime]

# The shipped file covers these session days (the calendar's default range plus margin).
SHIPPED_FIRST = date(2019, 12, 1)
SHIPPED_LAST = date(2031, 1, 31)
_FILE = "xnys-sessions.json"


def export_sessions(first: date, last: date) -> list[Row]:
    """Every XNYS session from ``first`` to ``last`` with its open and close, from the library."""
    # exchange_calendars 4.13 trips pandas 3.1 deprecation warnings inside its own
    # constructor; they are its business, not ours, and must not turn into errors here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        import exchange_calendars

        calendar: Any = exchange_calendars.get_calendar(
            "XNYS", start=first.isoformat(), end=last.isoformat()
        )
        schedule: Any = calendar.schedule
        return [
            (label.date(), opened.to_pydatetime(), closed.to_pydatetime())
            for label, opened, closed in zip(
                schedule.index, schedule["open"], schedule["close"], strict=True
            )
        ]


def _shipped() -> list[Row]:
    text = resources.files("ordergate.calendar").joinpath("data", _FILE).read_text("utf-8")
    return [
        (
            date.fromisoformat(day),
            datetime.fromtimestamp(opened, UTC),
            datetime.fromtimestamp(closed, UTC),
        )
        for day, opened, closed in json.loads(text)["sessions"]
    ]


def sessions(first: date, last: date) -> list[Row]:
    """Sessions from ``first`` to ``last``: from the shipped file when it covers the range."""
    if first >= SHIPPED_FIRST and last <= SHIPPED_LAST:
        return [row for row in _shipped() if first <= row[0] <= last]
    return export_sessions(first, last)


def write_shipped(path: Path | None = None) -> Path:
    """Export the shipped range from the library into the package's data file."""
    path = path or Path(__file__).resolve().parent / "data" / _FILE
    rows = export_sessions(SHIPPED_FIRST, SHIPPED_LAST)
    body = {
        "source": "exchange_calendars XNYS",
        "first": SHIPPED_FIRST.isoformat(),
        "last": SHIPPED_LAST.isoformat(),
        "sessions": [
            [day.isoformat(), int(opened.timestamp()), int(closed.timestamp())]
            for day, opened, closed in rows
        ],
    }
    path.write_text(json.dumps(body, separators=(",", ":")) + "\n", encoding="utf-8")
    return path
