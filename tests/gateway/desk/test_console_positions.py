"""The console's positions and equity: the paper book's positions and cash after a fill, and
an equity curve with the high-water mark drawn as server-side SVG."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from console_kit import console

from ordergate.gateway.console._equity import Sample, drawdown, equity_svg

NEVER_HELD = """
approval = "never"
[symbols]
allow = ["SPY"]
"""


@pytest.mark.req("console.positions")
def test_positions_cash_and_an_svg_equity_curve_from_the_paper_book(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, policy=NEVER_HELD) as c:
        placed = c.desk.place()
        assert placed["status"] == "submitted", placed
        assert c.desk.settled(placed["filing_id"]) == "filled"
        assert c.sign_in().status_code == 200
        page = c.get("/positions")
        assert page.status_code == 200, page.text
        assert "paper book" in page.text and "<svg" in page.text and "SPY" in page.text
        assert "Cash</dt><dd>$" in page.text
        again = c.get("/positions").text
        assert 'aria-label="equity curve, 2 samples"' in again
        assert "high-water" in again


@pytest.mark.req("console.positions")
def test_the_drawdown_is_measured_from_the_high_water_mark() -> None:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    series = [Sample(at, Decimal("100")), Sample(at, Decimal("120")), Sample(at, Decimal("90"))]
    assert drawdown(series, None) == {"high_water_mark": "120", "drawdown_bps": 2500}
    assert drawdown(series, Decimal("150"))["drawdown_bps"] == 4000
    assert drawdown([], None)["drawdown_bps"] is None
    assert "No equity read yet" in equity_svg([], None)
    flat = equity_svg([Sample(at, Decimal("5"))], Decimal("5"))
    assert "<polyline" in flat and "$5" in flat


def test_the_curve_places_each_sample_at_its_time_and_labels_the_range_to_the_cent() -> None:
    at = datetime(2026, 12, 1, 15, tzinfo=UTC)
    series = [
        Sample(at, Decimal("100")),
        Sample(at + timedelta(hours=1), Decimal("120")),
        Sample(at + timedelta(hours=10), Decimal("90")),
    ]
    svg = equity_svg(series, Decimal("120"))
    [points] = re.findall(r'<polyline [^>]*points="([^"]*)"', svg)
    xs = [float(point.split(",")[0]) for point in points.split()]
    # An hour, then nine: the second gap is nine times the first, not equal to it.
    assert round((xs[2] - xs[1]) / (xs[1] - xs[0]), 6) == 9
    assert "$90.00" in svg and "$120.00" in svg and "high-water $120.00" in svg
    assert "2026-12-01 15:00 UTC" in svg and "2026-12-02 01:00 UTC" in svg
