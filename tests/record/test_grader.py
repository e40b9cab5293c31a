"""Grading filled paper placements a trading day on, against the sandbox venue's market."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pg_testkit import database
from record_testkit import CHRISTMAS_EVE, MONDAY_CLOSE, Desk, desk
from sqlalchemy import select

from ordergate.core import Side
from ordergate.record import excess_bps, grades_of
from ordergate.record._schema import grades

pytestmark = [pytest.mark.anyio, pytest.mark.req("record.grade.one-trading-day")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_christmas_eve_fill_is_graded_at_mondays_close_against_spy(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        # The venue fills the sell only once the buy has filled: two fill instants, and
        # SPY's price at each (the clock stands at a fill's instant once it is settled).
        bought = await d.fill("AAPL", Side.BUY, "2")
        spy_at_buy = _spy_last(d)
        sold = await d.fill("AAPL", Side.SELL, "1")
        spy_at_sell = _spy_last(d)
        first = await d.grader().run_once()
        assert (first.queued, first.graded) == (2, 0)
        waiting = grades_of(d.ledger.engine, "agent-a")
        assert {g["state"] for g in waiting} == {"pending"}
        assert {g["grading_day"] for g in waiting} == {"2026-12-28"}
        # Christmas Day, the weekend, and Monday a second before the close: not yet.
        for instant in (
            MONDAY_CLOSE - timedelta(days=3, hours=1),
            MONDAY_CLOSE - timedelta(days=1),
            MONDAY_CLOSE - timedelta(seconds=1),
        ):
            d.step_to(instant)
            early = await d.grader().run_once()
            assert early.graded == 0 and early.not_yet == 0
        d.step_to(MONDAY_CLOSE)
        done = await d.grader().run_once()
        assert done.graded == 2
        shown = {g["filing_id"]: g for g in grades_of(d.ledger.engine, "agent-a")}
        buy, sell = shown[bought], shown[sold]
        # The prices as the venue's market gives them, read independently of the grader.
        close = Decimal(_day_close(d, "AAPL"))
        spy_close = Decimal(_day_close(d, "SPY"))
        assert Decimal(buy["close"]) == close and Decimal(buy["spy_close"]) == spy_close
        # Each against SPY's price at its own fill instant.
        assert Decimal(buy["spy_start"]) == spy_at_buy
        assert Decimal(sell["spy_start"]) == spy_at_sell
        for entry, filing, sign in ((buy, bought, 1), (sell, sold, -1)):
            spy = spy_close / Decimal(entry["spy_start"]) - 1
            fill = d.ledger.orders.executions(filing)[0].price
            assert Decimal(entry["fill_price"]) == fill
            expected = sign * ((close / fill - 1) - spy) * 10_000
            assert abs(Decimal(entry["excess_bps"]) - expected) <= Decimal("0.005")
        # The sell filled at the bid, the buy at the ask: same span, opposite signs.
        assert Decimal(sell["excess_bps"]) * Decimal(buy["excess_bps"]) < 0
        assert buy["graded_at"] == "2026-12-28T21:00:00.000000Z"


def _spy_last(d: Desk) -> Decimal:
    """SPY's last trade price at the clock's instant, as the venue's market gives it."""
    venue = d.venue
    quote = venue.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
    return Decimal(quote["last_trade_price"])


def _day_close(d: Desk, symbol: str) -> str:
    venue = d.venue
    data = venue.data(
        "get_equity_historicals",
        {
            "symbols": [symbol],
            "start_time": "2026-12-28T14:30:00Z",
            "end_time": "2026-12-28T21:01:00Z",
            "interval": "day",
            "bounds": "regular",
        },
    )
    bars = data["results"][0]["bars"]
    assert len(bars) == 1 and bars[0]["begins_at"].startswith("2026-12-28")
    close: str = bars[0]["close_price"]
    return close


@pytest.mark.req("record.grade.once")
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_rerun_changes_no_grade(tmp_path: Path, backend: str) -> None:
    with database(backend, tmp_path) as url:
        await _rerun(tmp_path, url)


async def _rerun(tmp_path: Path, url: str) -> None:
    async with desk(tmp_path, ledger_url=url) as d:
        await d.fill("MSFT", Side.BUY)
        await d.grader().run_once()
        d.step_to(MONDAY_CLOSE + timedelta(hours=1))
        assert (await d.grader().run_once()).graded == 1
        with d.ledger.engine.connect() as connection:
            before = connection.execute(select(grades)).all()
        d.step_to(MONDAY_CLOSE + timedelta(days=2))
        again = await d.grader().run_once()
        assert (again.events, again.queued, again.graded, again.not_yet) == (0, 0, 0, 0)
        with d.ledger.engine.connect() as connection:
            assert connection.execute(select(grades)).all() == before


def test_hand_computed_grades_buy_and_sell() -> None:
    # AAPL 100 → 101 is +100 bps; SPY 400 → 402 is +50 bps: the buy beat SPY by 50 bps.
    buy = excess_bps(
        Side.BUY,
        fill=Decimal("100"),
        close=Decimal("101"),
        spy_start=Decimal("400"),
        spy_close=Decimal("402"),
    )
    assert (buy.return_bps, buy.spy_bps, buy.excess_bps) == (
        Decimal("100.00"),
        Decimal("50.00"),
        Decimal("50.00"),
    )
    sell = excess_bps(
        Side.SELL,
        fill=Decimal("100"),
        close=Decimal("101"),
        spy_start=Decimal("400"),
        spy_close=Decimal("402"),
    )
    assert sell.excess_bps == Decimal("-50.00")
    # 3 → 3.01 is 33.333… bps, SPY flat: rounded to 33.33.
    thirds = excess_bps(
        Side.BUY,
        fill=Decimal("3"),
        close=Decimal("3.01"),
        spy_start=Decimal("1"),
        spy_close=Decimal("1"),
    )
    assert thirds.excess_bps == Decimal("33.33")
    # 0.125 bps exactly rounds half to even: 0.12; -0.135 → -0.14.
    assert excess_bps(
        Side.BUY,
        fill=Decimal("80000"),
        close=Decimal("80001"),
        spy_start=Decimal("1"),
        spy_close=Decimal("1"),
    ).excess_bps == Decimal("0.12")
    with pytest.raises(ValueError, match="spy_start"):
        excess_bps(
            Side.BUY,
            fill=Decimal("1"),
            close=Decimal("1"),
            spy_start=Decimal("0"),
            spy_close=Decimal("1"),
        )


async def test_selling_spy_grades_about_zero_against_spys_price_at_the_fill_instant(
    tmp_path: Path,
) -> None:
    # Between two 5-minute (and 15-second) marks: the price at the fill, not a bar's open.
    instant = CHRISTMAS_EVE + timedelta(minutes=2, seconds=17, microseconds=512_000)
    async with desk(tmp_path) as d:
        d.step_to(instant)
        await d.fill("SPY", Side.BUY, "2")
        sold = await d.fill("SPY", Side.SELL, "1")
        quote = d.venue.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
        await d.grader().run_once()
        d.step_to(MONDAY_CLOSE)
        assert (await d.grader().run_once()).graded == 2
        grade = {g["filing_id"]: g for g in grades_of(d.ledger.engine, "agent-a")}[sold]
        assert Decimal(grade["spy_start"]) == Decimal(quote["last_trade_price"])
        # Selling SPY at the bid grades within the spread of zero, never a market move.
        bid, ask = Decimal(quote["bid_price"]), Decimal(quote["ask_price"])
        assert abs(Decimal(grade["excess_bps"])) <= (ask - bid) / bid * 10_000
