"""``size_vs_adv`` through the guard: the symbol's average daily volume read from the venue's
day bars (``MarketVolumes``), an order's quantity weighed against ``max_adv_pct`` of it on
paper and against the sandbox venue as the broker; no volume refuses (fail closed)."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from pathlib import Path

import pytest
from guard_kit import Desk, buy, desk, policy

from ordergate.core import Bounds, Interval
from ordergate.ledger import FilingStatus
from ordergate.policy import Stage
from ordergate.venues import ADV_LOOKBACK, ADV_SESSIONS
from ordergate.venues.robinhood import MarketVolumes

pytestmark = pytest.mark.anyio

STEP = Decimal("0.000001")
PCT = "0.00001"  # of SPY's tens of millions of shares a day: a few shares


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _day_volumes(d: Desk, symbol: str) -> list[int]:
    now = d.clock.now()
    answer = await d.rh.market.historicals(
        [symbol],
        start_time=now - ADV_LOOKBACK,
        end_time=now,
        interval=Interval.DAY,
        bounds=Bounds.REGULAR,
    )
    today = d.clock.now().date()
    return [
        bar.volume
        for result in answer.results
        for bar in result.bars
        if bar is not None and not bar.interpolated and bar.begins_at.date() < today
    ]


async def test_market_volumes_average_the_last_closed_sessions_day_bars(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        volumes = MarketVolumes(d.rh.market, clock=d.clock)
        expected = Decimal(sum((await _day_volumes(d, "SPY"))[-ADV_SESSIONS:])) / ADV_SESSIONS
        assert await volumes.average_daily_volume("SPY") == expected
        assert await volumes.average_daily_volume("SPY") == expected  # kept for the day
        assert await volumes.average_daily_volume("NOSUCH") is None


@pytest.mark.req("wall.size-vs-adv")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_an_order_one_share_millionth_past_max_adv_pct_is_refused_size_vs_adv(
    tmp_path: Path, live: bool
) -> None:
    config = policy(f'[limits]\nmax_adv_pct = "{PCT}"\nduplicate_window_s = 0')
    async with desk(tmp_path, live=live, config=config) as d:
        volumes = MarketVolumes(d.rh.market, clock=d.clock)
        guard = d.guard_with(config, volumes=volumes)
        adv = await volumes.average_daily_volume("SPY")
        assert adv is not None
        cap = adv * Decimal(PCT) / 100
        at_cap = cap.quantize(STEP, rounding=ROUND_DOWN)
        accepted = await guard.submit(buy("SPY", quantity=at_cap), identity="agent")
        assert accepted.status is not FilingStatus.REFUSED, accepted
        over = await guard.submit(buy("SPY", quantity=at_cap + STEP), identity="agent")
        assert over.status is FilingStatus.REFUSED
        assert over.reasons == ("size_vs_adv",)
        # The refusal names the code and its numbers: what was asked, the cap, the volume.
        assert f"size_vs_adv: {at_cap + STEP} shares is above {cap} shares" in over.message
        assert f"average daily volume of {adv} shares" in over.message


async def test_without_a_volume_source_max_adv_pct_refuses_every_order(tmp_path: Path) -> None:
    config = policy(f'[limits]\nmax_adv_pct = "{PCT}"')
    async with desk(tmp_path, config=config) as d:
        refused = await d.guard_with(config).submit(buy("SPY"), identity="agent")
        assert refused.reasons == ("missing_data:average_daily_volume",)
        unknown = MarketVolumes(d.rh.market, clock=d.clock)
        guard = d.guard_with(config, volumes=unknown)
        none = await guard.submit(buy("NOSUCH"), identity="agent")
        assert "missing_data:average_daily_volume" in none.reasons


@pytest.mark.req("wall.size-vs-adv")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_an_approved_order_past_max_adv_pct_at_review_is_refused_naming_cap_and_quantity(
    tmp_path: Path, live: bool
) -> None:
    # Filed under one max_adv_pct, approved under one a tenth of it: stage B refuses.
    filed = policy(f'approval = "always"\n[limits]\nmax_adv_pct = "{PCT}"')
    tighter = policy(f'approval = "always"\n[limits]\nmax_adv_pct = "{Decimal(PCT) / 10}"')
    async with desk(tmp_path, live=live, config=filed) as d:
        volumes = MarketVolumes(d.rh.market, clock=d.clock)
        adv = await volumes.average_daily_volume("SPY")
        assert adv is not None
        cap = adv * Decimal(PCT) / 100
        quantity = cap.quantize(STEP, rounding=ROUND_DOWN)
        held = await d.guard_with(filed, volumes=volumes).submit(
            buy("SPY", quantity=quantity), identity="agent"
        )
        assert held.status is FilingStatus.PENDING_APPROVAL and held.approval_id is not None
        guard = d.guard_with(tighter, volumes=volumes)
        refused = await guard.approve(held.approval_id, by="owner")
        assert refused.status is FilingStatus.REFUSED and refused.stage is Stage.REVIEW
        assert refused.reasons == ("size_vs_adv",)
        pct = Decimal(PCT) / 10
        asked = f"size_vs_adv: {quantity} shares is above {adv * pct / 100} shares"
        assert asked in refused.message
        assert f"(limits.max_adv_pct = {pct})" in refused.message
