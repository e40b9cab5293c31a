"""One clock story: a sandbox's simulated clock moves the market only. Everything the ledger
records about a filing, an approval, an equity mark and a pause is stamped on the record's
clock (security time, the wall clock in a run), so an approval never expires before it was
filed, however far the market is."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from ordergate.core import SecurityClock, Side, SteppedClock
from ordergate.ledger import FilingStatus
from ordergate.policy import Proposal, parse_policy
from ordergate.runtime import Settings, open_guard

POLICY = """\
mode = "paper"
approval = "always"
[limits]
max_order_usd = "3000"
max_daily_usd = "10000"
[symbols]
allow = ["SPY"]
[paper]
starting_cash_usd = "10000"
"""
# The market years ahead (a Tuesday's regular session); the wall clock today.
MARKET = datetime(2029, 3, 6, 15, 0, tzinfo=UTC)
WALL = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.anyio
@pytest.mark.req("clocks.security-is-wall-time")
async def test_a_filing_its_approval_its_equity_mark_and_a_pause_are_stamped_on_one_clock(
    tmp_path: Path,
) -> None:
    (tmp_path / "policy.toml").write_text(POLICY, encoding="utf-8")
    settings = Settings(
        home=tmp_path,
        policy_path=tmp_path / "policy.toml",
        policy_given=True,
        db_url=f"sqlite:///{tmp_path / 'ledger.db'}",
        upstream_url=None,
        sandbox=True,
    )
    market, wall = SteppedClock(start=MARKET), SteppedClock(start=WALL)
    async with open_guard(
        settings,
        clock=market,
        security_clock=SecurityClock(wall),
        in_force=(parse_policy(POLICY), None),
    ) as running:
        guard, ledger = running.guard, running.guard.ledger
        outcome = await guard.submit(
            Proposal(symbol="SPY", side=Side.BUY, quantity=Decimal(1)), identity="agent"
        )
        assert outcome.status is FilingStatus.PENDING_APPROVAL, outcome.reasons
        filing = ledger.filing(outcome.filing_id)
        (approval,) = ledger.approvals.pending()
        assert filing.created_at == approval.created_at == WALL
        assert approval.expires_at > filing.created_at
        (mark,) = ledger.equity.window(guard.account)
        assert mark.at == WALL
        wall.advance(timedelta(minutes=1))
        ledger.controls.pause("lunch")
        assert ledger.controls.pause_state().since == WALL + timedelta(minutes=1)
        # The market moving (a simulated week) neither ages the record nor expires the
        # approval; the market day still names the session the breakers count from.
        market.advance(timedelta(days=7))
        assert ledger.approvals.pending() == [approval]
        assert ledger.now() == WALL + timedelta(minutes=1)
        assert ledger.controls.session_start_equity(guard.account).session == "2029-03-06"  # type: ignore[union-attr]
