"""A quote older than ``max_quote_age_s`` through the guard, on a venue whose feed is held
behind its clock (the sandbox's ``quote_lag_s`` fault): a quote exactly as old as the policy
allows passes, one a second older is refused ``stale_quote`` — at stage A on the quote read
when filing, and at stage B on the review's quote — with nothing sent, on paper (the paper
book, the venue's engine) and live."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from guard_kit import Desk, buy, desk, policy

from ordergate.ledger import FilingStatus
from ordergate.policy import Stage

pytestmark = pytest.mark.anyio

MODES = [{"live": False}, {"live": True}]
MODE_IDS = ["paper", "live"]
# Spread and duplicates out of the way: only the quote's age is weighed here.
QUIET = "[limits]\nmax_quote_age_s = 15\nduplicate_window_s = 0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _placed(d: Desk) -> list[dict[str, object]]:
    orders: list[dict[str, object]] = d.venue.data(
        "get_equity_orders", {"account_number": d.account}
    )["orders"]
    return orders


@pytest.mark.req("wall.stale-quote")
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
async def test_a_quote_one_second_past_max_quote_age_is_refused_at_stage_a_with_nothing_sent(
    tmp_path: Path, mode: dict[str, bool]
) -> None:
    async with desk(tmp_path, config=policy(QUIET), **mode) as d:
        d.venue.faults(quote_lag_s={"SPY": 16})
        over = await d.guard.submit(buy("SPY", quantity=Decimal("0.01")), identity="a")
        d.step(1)  # past the paper engine's quote reuse
        d.venue.faults(quote_lag_s={"SPY": 15})
        at_the_cap = await d.guard.submit(buy("SPY", quantity=Decimal("0.01")), identity="a")
        placed = _placed(d)
    assert over.status is FilingStatus.REFUSED and over.stage is Stage.ESTIMATE
    assert over.reasons == ("stale_quote",)
    assert "stale_quote: the quote is 16 s old (limits.max_quote_age_s = 15)" in over.message
    assert at_the_cap.status is not FilingStatus.REFUSED, at_the_cap
    # Live, the venue holds the accepted order only; on paper, nothing reaches it.
    assert len(placed) == (1 if mode.get("live") else 0)


@pytest.mark.req("wall.stale-quote")
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
async def test_a_review_quote_one_second_past_max_quote_age_is_refused_at_stage_b_unsent(
    tmp_path: Path, mode: dict[str, bool]
) -> None:
    held = policy(f'approval = "always"\n{QUIET}')
    async with desk(tmp_path, config=held, **mode) as d:
        fresh = await d.guard.submit(buy("SPY", quantity=Decimal("0.01")), identity="a")
        at_the_cap = await d.guard.submit(buy("SPY", quantity=Decimal("0.02")), identity="a")
        assert fresh.status is at_the_cap.status is FilingStatus.PENDING_APPROVAL
        d.step(60)
        d.venue.faults(quote_lag_s={"SPY": 16})
        over = await d.guard.approve(fresh.approval_id, by="owner")
        d.step(1)  # past the paper engine's quote reuse
        d.venue.faults(quote_lag_s={"SPY": 15})
        passed = await d.guard.approve(at_the_cap.approval_id, by="owner")
        placed = _placed(d)
    assert over.status is FilingStatus.REFUSED and over.stage is Stage.REVIEW
    assert over.reasons == ("stale_quote",)
    assert "stale_quote: the quote is 16 s old" in over.message
    assert passed.status is not FilingStatus.REFUSED, passed
    assert len(placed) == (1 if mode.get("live") else 0)
