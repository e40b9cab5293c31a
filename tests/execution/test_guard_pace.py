"""The pace of filing at the guard, counted from the ledger: the same order again inside
``duplicate_window_s`` is refused ``duplicate_order``, orders past the identity's or the
account's rolling-minute rate are refused ``order_rate`` — at stage A, with nothing reserved
or sent — on paper and live against the sandbox venue, at each boundary."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from guard_kit import Desk, buy, desk, policy

from ordergate.execution import Guard, Outcome
from ordergate.ledger import FilingStatus
from ordergate.policy import Proposal, Stage

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize("live", [False, True], ids=["paper", "live"]),
]

PLACED = {FilingStatus.FILLED, FilingStatus.SUBMITTED}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _file(guard: Guard, proposal: Proposal, identity: str = "agent") -> Outcome:
    return await guard.submit(proposal, identity=identity)


def _refused_before_anything(d: Desk, outcome: Outcome, code: str, orders: int) -> None:
    """Refused at stage A with ``code``, named in the sentence, nothing reserved or placed."""
    assert outcome.refused and outcome.stage is Stage.ESTIMATE
    assert outcome.reasons == (code,)
    assert code in outcome.message
    assert outcome.order_id is None
    assert d.ledger.orders.executions(outcome.filing_id) == []
    assert d.ledger.rolling_spend(d.account).orders == orders


@pytest.mark.req("policy.duplicate-order")
async def test_the_same_order_inside_the_window_is_refused_and_at_the_window_it_is_not(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live) as d:
        first = await _file(d.guard, buy())
        assert first.status in PLACED
        d.step(29)
        again = await _file(d.guard, buy())
        _refused_before_anything(d, again, "duplicate_order", orders=1)
        assert "limits.duplicate_window_s = 30" in again.message
        # Another identity, or other terms, are not duplicates of it.
        assert (await _file(d.guard, buy(), identity="other")).status in PLACED
        assert (await _file(d.guard, buy(quantity=Decimal(2)))).status in PLACED
        # The window is 30 s from the accepted order (the refusal at 29 s does not restart it).
        d.step(1)
        assert (await _file(d.guard, buy())).status in PLACED


@pytest.mark.req("policy.duplicate-order")
async def test_a_duplicate_window_of_zero_lets_the_same_order_through(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live) as d:
        guard = d.guard_with(policy("[limits]\nduplicate_window_s = 0"))
        assert (await _file(guard, buy())).status in PLACED
        assert (await _file(guard, buy())).status in PLACED


@pytest.mark.req("policy.order-rate")
async def test_an_identitys_orders_past_the_rate_are_refused_until_the_first_leaves_the_minute(
    tmp_path: Path, live: bool
) -> None:
    async with desk(tmp_path, live=live) as d:
        for size in range(1, 6):  # five different orders, a second apart: all accepted
            assert (await _file(d.guard, buy(quantity=Decimal(size) / 10))).status in PLACED
            d.step(1)
        # 59 s after the first (at t0 + 59): the five are still inside the minute.
        d.step(54)
        sixth = await _file(d.guard, buy(quantity=Decimal("0.6")))
        _refused_before_anything(d, sixth, "order_rate", orders=5)
        assert "5 orders accepted from you in the last minute" in sixth.message
        assert "limits.max_orders_per_minute = 5" in sixth.message
        # Another identity has its own rate (the account's, 10, is not reached).
        assert (
            await _file(d.guard, buy(quantity=Decimal("0.7")), identity="other")
        ).status in PLACED
        # A minute after the first, it has left the window: one more is accepted.
        d.step(1)
        last = await _file(d.guard, buy(quantity=Decimal("0.8")))
        assert last.status in PLACED, last.reasons


@pytest.mark.req("policy.order-rate")
async def test_the_accounts_rate_counts_every_identity(tmp_path: Path, live: bool) -> None:
    async with desk(tmp_path, live=live) as d:
        guard = d.guard_with(policy("[limits]\nmax_account_orders_per_minute = 3"))
        assert (await _file(guard, buy(quantity=Decimal(1)), "a")).status in PLACED
        assert (await _file(guard, buy(quantity=Decimal(2)), "a")).status in PLACED
        assert (await _file(guard, buy(quantity=Decimal(3)), "b")).status in PLACED
        fourth = await _file(guard, buy(quantity=Decimal(4)), "c")
        _refused_before_anything(d, fourth, "order_rate", orders=3)
        assert "3 orders accepted for this account in the last minute" in fourth.message
        assert "limits.max_account_orders_per_minute = 3" in fourth.message
        # Refusals are not counted: a minute after the three, the account files again.
        d.step(60)
        assert (await _file(guard, buy(quantity=Decimal(5)), "c")).status in PLACED
