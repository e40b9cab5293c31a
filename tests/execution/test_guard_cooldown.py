"""The cooldown after a breaker through the guard, on paper and against the sandbox venue: a
breaker's refusal is recorded, and buys are refused ``cooldown`` for ``[cooldown] minutes``
after it (to the second) though the equity has recovered; sells are not."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from guard_kit import buy, desk, policy, sell

from ordergate.execution._losses import losing_closes
from ordergate.ledger import FilingStatus
from ordergate.policy import Proposal, Stage

pytestmark = pytest.mark.anyio

MINUTES = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.req("wall.cooldown")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_buys_are_refused_cooldown_until_the_second_the_cooldown_after_a_breaker_ends(
    tmp_path: Path, live: bool
) -> None:
    config = policy(f"[cooldown]\nminutes = {MINUTES}\n[limits]\nduplicate_window_s = 0")
    async with desk(tmp_path, live=live, config=config) as d:
        held = await d.guard.submit(buy("SPY"), identity="agent")
        assert held.status is not FilingStatus.REFUSED, held
        d.ledger.controls.set_high_water_mark(Decimal(10) ** 9, account=d.account)
        tripped_at = d.clock.now()
        tripped = await d.guard.submit(buy("SPY"), identity="agent")
        assert "drawdown_halt" in tripped.reasons
        assert d.ledger.controls.breaker_tripped_at(d.account) == tripped_at
        # The equity is its own high again: the breaker no longer refuses, the cooldown does.
        d.ledger.controls.set_high_water_mark(Decimal(1), account=d.account)
        d.step(MINUTES * 60 - 1)
        cooling = await d.guard.submit(buy("SPY"), identity="agent")
        assert cooling.reasons == ("cooldown",)
        until = (tripped_at + timedelta(minutes=MINUTES)).isoformat().replace("+00:00", "Z")
        assert f"buys are refused until {until} (cooldown.minutes = {MINUTES})" in cooling.message
        out = await d.guard.submit(sell("SPY", quantity=Decimal("0.5")), identity="agent")
        assert "cooldown" not in out.reasons, out
        d.step(1)
        after = await d.guard.submit(buy("SPY"), identity="agent")
        assert after.status is not FilingStatus.REFUSED, after


async def test_without_a_cooldown_a_breakers_refusal_is_not_recorded(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        d.ledger.controls.set_high_water_mark(Decimal(10) ** 9, account=d.account)
        tripped = await d.guard.submit(buy("SPY"), identity="agent")
        assert "drawdown_halt" in tripped.reasons
        assert d.ledger.controls.breaker_tripped_at(d.account) is None


@pytest.mark.req("wall.cooldown")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_two_losing_round_trips_start_the_cooldown_and_it_ends_to_the_second(
    tmp_path: Path, live: bool
) -> None:
    # A buy fills at the ask and a sell at the bid: at the seeded venue, or on paper's
    # engine over its quotes (five seconds apart), each round trip loses.
    config = policy(
        f"[cooldown]\nminutes = {MINUTES}\nloss_streak = 2\nloss_window_minutes = 60\n"
        "[limits]\nduplicate_window_s = 0"
    )
    async with desk(tmp_path, live=live, config=config) as d:

        async def filled(proposal: Proposal, identity: str = "agent") -> None:
            outcome = await d.guard.submit(proposal, identity=identity)
            d.step(5)  # the venue, or paper's engine, fills a market order as the clock moves
            await d.guard.reconcile()
            assert d.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED, outcome

        for _ in range(2):
            await filled(buy("SPY"))
            await filled(sell("SPY"))
        cooling = await d.guard.submit(buy("SPY"), identity="agent")
        assert cooling.reasons == ("cooldown",)
        assert "cooldown: 2 of your closed trades lost in the last 90 minutes" in cooling.message
        await filled(buy("SPY", quantity=Decimal("0.5")), "another")  # the streak is the agent's
        last_loss = max(losing_closes(d.ledger.orders.fills_of("agent", limit=10)))
        d.step((last_loss + timedelta(minutes=MINUTES) - d.clock.now()).total_seconds() - 1)
        assert (await d.guard.submit(buy("SPY"), identity="agent")).reasons == ("cooldown",)
        d.step(1)
        await filled(buy("SPY"))


@pytest.mark.req("wall.cooldown")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_cooldown_begun_while_a_buy_awaits_approval_refuses_it_at_review_with_numbers(
    tmp_path: Path, live: bool
) -> None:
    config = policy(f'approval = "always"\n[cooldown]\nminutes = {MINUTES}')
    async with desk(tmp_path, live=live, config=config) as d:
        held = await d.guard.submit(buy("SPY"), identity="agent")
        assert held.status is FilingStatus.PENDING_APPROVAL and held.approval_id is not None
        tripped_at = d.clock.now()
        d.ledger.controls.breaker_tripped(tripped_at, ["drawdown_halt"], account=d.account)
        refused = await d.guard.approve(held.approval_id, by="owner")
        assert refused.status is FilingStatus.REFUSED and refused.stage is Stage.REVIEW
        assert refused.reasons == ("cooldown",)
        until = (tripped_at + timedelta(minutes=MINUTES)).isoformat().replace("+00:00", "Z")
        # Stage B names the code and its numbers as stage A does.
        tripped = tripped_at.isoformat().replace("+00:00", "Z")
        assert f"cooldown: a breaker was last found tripped at {tripped}" in refused.message
        assert f"buys are refused until {until} (cooldown.minutes = {MINUTES})" in refused.message


@pytest.mark.req("wall.cooldown.per-account")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_breaker_tripped_on_one_account_cools_down_that_account_and_not_another(
    tmp_path: Path, live: bool
) -> None:
    config = policy(f"[cooldown]\nminutes = {MINUTES}\n[limits]\nduplicate_window_s = 0")
    url = f"sqlite:///{tmp_path / 'one-ledger.db'}"
    (tmp_path / "b").mkdir()
    # Two accounts (two venues' agentic accounts) on one ledger.
    async with (
        desk(tmp_path, live=live, config=config, ledger_url=url) as a,
        desk(tmp_path / "b", live=live, config=config, ledger_url=url, venue={"seed": 8}) as b,
    ):
        assert a.account != b.account
        a.ledger.controls.set_high_water_mark(Decimal(10) ** 9, account=a.account)
        tripped = await a.guard.submit(buy("SPY"), identity="agent")
        assert "drawdown_halt" in tripped.reasons
        a.ledger.controls.set_high_water_mark(
            Decimal(1), account=a.account
        )  # the breaker is clear again
        assert (await a.guard.submit(buy("SPY"), identity="agent")).reasons == ("cooldown",)
        elsewhere = await b.guard.submit(buy("SPY"), identity="agent")
        assert elsewhere.status is not FilingStatus.REFUSED, elsewhere.reasons
        assert b.ledger.controls.breaker_tripped_at(b.account) is None


@pytest.mark.req("wall.cooldown.loss-window")
async def test_a_streak_at_the_start_of_its_window_counts_however_many_filings_follow_it(
    tmp_path: Path,
) -> None:
    config = policy(
        f"[cooldown]\nminutes = {MINUTES}\nloss_streak = 2\nloss_window_minutes = 60\n"
        "[limits]\nduplicate_window_s = 0\nmax_orders_per_minute = 1000\n"
        "max_account_orders_per_minute = 1000\nmax_orders_per_day = 1000"
    )
    async with desk(tmp_path, config=config) as d:
        for _ in range(2):  # two losing round trips (five seconds apart, each loses)
            for proposal in (buy("SPY"), sell("SPY")):
                outcome = await d.guard.submit(proposal, identity="agent")
                assert await d.settled(outcome) is FilingStatus.FILLED, outcome.reasons
        # 250 filings after the streak, inside the window: more than the 200 filings before
        # it that are read for the buys a sell closes.
        for _ in range(250):
            refused = await d.guard.submit(buy("SPY"), identity="agent")
            assert refused.reasons == ("cooldown",)
            d.step(1)
        assert len(d.ledger.filings_of("agent", limit=1000)) == 254
        assert "cooldown: 2 of your closed trades lost in the last 90 minutes" in refused.message
