"""The shipped XNYS session table is exactly what exchange_calendars says."""

from __future__ import annotations

from datetime import date

from ordergate.calendar._table import (
    SHIPPED_FIRST,
    SHIPPED_LAST,
    export_sessions,
    sessions,
)


def test_shipped_table_matches_the_installed_exchange_calendars() -> None:
    assert sessions(SHIPPED_FIRST, SHIPPED_LAST) == export_sessions(SHIPPED_FIRST, SHIPPED_LAST)


def test_ranges_beyond_the_shipped_table_come_from_the_library() -> None:
    rows = sessions(date(2032, 1, 1), date(2032, 1, 10))
    assert [row[0] for row in rows] == [
        date(2032, 1, 2),
        date(2032, 1, 5),
        date(2032, 1, 6),
        date(2032, 1, 7),
        date(2032, 1, 8),
        date(2032, 1, 9),
    ]


def test_thanksgiving_2026_is_absent_and_the_day_after_closes_early() -> None:
    rows = {row[0]: row for row in sessions(date(2026, 11, 20), date(2026, 11, 30))}
    assert date(2026, 11, 26) not in rows
    _, opened, closed = rows[date(2026, 11, 27)]
    assert (closed - opened).total_seconds() == 3.5 * 3600
