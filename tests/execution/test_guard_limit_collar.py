"""The price collar on limit orders through the guard: the limit price against the mid of the
quote read when the order is filed (stage A), and again against the review's quote (stage B),
one cent either side of ``price_collar_bps``, on paper and against the sandbox venue."""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

import pytest
from guard_kit import desk, limit_buy, policy

from ordergate.ledger import FilingStatus
from ordergate.policy import Stage

pytestmark = pytest.mark.anyio

CENT = Decimal("0.01")
COLLAR = "[limits]\nprice_collar_bps = 100\nduplicate_window_s = 0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _ceiling(quote: dict[str, str]) -> Decimal:
    """The highest limit price within 100 bps above the mid, to the cent."""
    mid = (Decimal(quote["bid_price"]) + Decimal(quote["ask_price"])) / 2
    return (mid * Decimal("1.01")).quantize(CENT, rounding=ROUND_FLOOR)


@pytest.mark.req("wall.limit-collar")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_limit_one_cent_past_the_collar_from_the_filing_quote_is_refused_at_stage_a(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live, config=policy(COLLAR)) as d:
        ceiling = _ceiling(d.quote("SPY"))
        over = await d.guard.submit(limit_buy("SPY", str(ceiling + CENT)), identity="a")
        assert over.status is FilingStatus.REFUSED and over.stage is Stage.ESTIMATE
        assert over.reasons == ("price_collar",)
        # The message names the limit weighed, the quote and the collar.
        assert f"price_collar: the order's price ${ceiling + CENT} against the quote" in (
            over.message
        )
        assert "(limits.price_collar_bps = 100)" in over.message
        inside = await d.guard.submit(limit_buy("SPY", str(ceiling)), identity="a")
        assert inside.status is not FilingStatus.REFUSED, inside


@pytest.mark.req("wall.limit-collar")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_limit_inside_the_collar_when_filed_is_refused_at_review_after_the_market_moved(
    tmp_path: Path, live: bool
) -> None:
    held = policy(f'approval = "always"\n{COLLAR}')
    async with desk(tmp_path, live=live, config=held) as d:
        ceiling = _ceiling(d.quote("SPY"))
        pending = await d.guard.submit(limit_buy("SPY", str(ceiling)), identity="a")
        assert pending.status is FilingStatus.PENDING_APPROVAL
        d.venue.admin("shock", {"symbol": "SPY", "pct": "-2"})
        d.step(2)  # the paper market reads the moved price (its quotes last a second)
        reviewed = await d.guard.approve(pending.approval_id, by="owner")
        assert reviewed.status is FilingStatus.REFUSED and reviewed.stage is Stage.REVIEW
        assert "price_collar" in reviewed.reasons
        assert f"price_collar: the order's price ${ceiling} against the quote" in reviewed.message
