"""``MarketCloses`` reads only the bar it asked for: another symbol's result, a null bar, an
interpolated bar or a bar of another day is no close ("not yet"), never a price.

The sandbox venue always answers cleanly, so these answers are shaped by hand (parsed by the
client's own models, as a real answer is) and handed over by a stand-in for the client.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from ordergate.calendar import NyseCalendar
from ordergate.client.market import EquityHistoricals
from ordergate.core import SteppedClock
from ordergate.record import MarketCloses

pytestmark = [pytest.mark.anyio, pytest.mark.req("record.grade.fail-closed")]

MONDAY = date(2026, 12, 28)
AFTER = datetime(2026, 12, 29, 1, 0, tzinfo=UTC)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _bar(begins_at: str, *, interpolated: bool = False) -> dict[str, Any]:
    return {
        "begins_at": begins_at, "open_price": "10.00", "close_price": "11.00",
        "high_price": "11.50", "low_price": "9.50", "volume": 1, "session": "reg",
        "interpolated": interpolated,
    }  # fmt: skip


class Answering:
    def __init__(self, results: list[dict[str, Any]]) -> None:
        self._answer = EquityHistoricals.model_validate({"results": results})

    async def historicals(self, symbols: list[str], **_: Any) -> EquityHistoricals:
        return self._answer


def _closes(results: list[dict[str, Any]]) -> MarketCloses:
    market: Any = Answering(results)
    return MarketCloses(market, calendar=NyseCalendar(), clock=SteppedClock(start=AFTER))


@pytest.mark.parametrize(
    "results",
    [
        [{"symbol": "MSFT", "interval": "day", "bounds": "regular",
          "bars": [_bar("2026-12-28T00:00:00Z")]}],
        [{"symbol": "AAPL", "interval": "day", "bounds": "regular", "bars": [None]}],
        [{"symbol": "AAPL", "interval": "day", "bounds": "regular",
          "bars": [_bar("2026-12-28T00:00:00Z", interpolated=True)]}],
        [{"symbol": "AAPL", "interval": "day", "bounds": "regular",
          "bars": [_bar("2026-12-24T00:00:00Z")]}],
    ],
    ids=["another-symbol", "null-bar", "interpolated", "another-day"],
)  # fmt: skip
async def test_an_answer_without_the_days_own_bar_is_no_close(
    results: list[dict[str, Any]],
) -> None:
    closes = _closes(results)
    assert await closes.close("AAPL", MONDAY) is None
    assert await closes.price_at("AAPL", datetime(2026, 12, 28, 0, 1, tzinfo=UTC)) is None


async def test_the_days_own_bar_is_the_close() -> None:
    bars = [_bar("2026-12-24T00:00:00Z"), _bar("2026-12-28T00:00:00Z")]
    closes = _closes([{"symbol": "AAPL", "interval": "day", "bounds": "regular", "bars": bars}])
    assert str(await closes.close("AAPL", MONDAY)) == "11.00"
