"""Every act of the order path takes the account's turn itself (``Guard.turn``): submit,
approve, deny and cancel wait while another process holds it, and past the bound refuse with
``account_busy``, nothing filed or changed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from guard_kit import BOUND_S, Desk, buy, desk, limit_buy, policy
from pg_testkit import database

from ordergate.core import RealtimeClock
from ordergate.ledger import (
    AccountBusyError,
    AccountTurns,
    ApprovalState,
    FilingStatus,
    open_ledger,
)

pytestmark = pytest.mark.anyio

SHORT_S = 0.2
ALWAYS = policy('approval = "always"')


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def held_elsewhere(url: str, account: str) -> AsyncIterator[None]:
    """``account``'s turn held, for the block, by another ledger on ``url`` in a task of its
    own (as another process would hold it)."""
    other = open_ledger(url, clock=RealtimeClock())
    taken, done = anyio.Event(), anyio.Event()

    async def hold() -> None:
        async with other.turns.account(account):
            taken.set()
            await done.wait()

    try:
        with anyio.fail_after(BOUND_S):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(hold)
                await taken.wait()
                try:
                    yield
                finally:
                    done.set()
    finally:
        other.close()


def impatient(d: Desk) -> None:
    """The guard's turns wait ``SHORT_S`` at most."""
    d.ledger.turns = AccountTurns(d.ledger.engine, bound_s=SHORT_S)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_submit_waits_for_the_accounts_turn_and_past_the_bound_files_nothing(
    kind: str, tmp_path: Path
) -> None:
    with database(kind, tmp_path) as url:
        async with desk(tmp_path, ledger_url=url) as d:
            impatient(d)
            async with held_elsewhere(url, d.account):
                with pytest.raises(AccountBusyError) as busy:
                    await d.guard.submit(buy("SPY"), identity="agent")
            assert busy.value.code == "account_busy"
            assert d.ledger.rolling_spend(d.account).orders == 0
            assert d.ledger.journal.entries() == []
            placed = await d.guard.submit(buy("SPY"), identity="agent")
            assert placed.status is FilingStatus.SUBMITTED  # the turn is free again


async def test_approve_and_deny_take_the_accounts_turn(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'desk-ledger.db'}"
    async with desk(tmp_path, config=ALWAYS, ledger_url=url) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        assert pending.approval_id is not None
        impatient(d)
        async with held_elsewhere(url, d.account):
            with pytest.raises(AccountBusyError):
                await d.guard.approve(pending.approval_id, by="owner")
            with pytest.raises(AccountBusyError):
                await d.guard.deny(pending.approval_id, by="owner")
        assert d.ledger.approvals.get(pending.approval_id).state is ApprovalState.PENDING
        assert d.ledger.filing(pending.filing_id).status is FilingStatus.PENDING_APPROVAL
        approved = await d.guard.approve(pending.approval_id, by="owner")
        assert approved.status is FilingStatus.SUBMITTED


async def test_cancel_takes_the_accounts_turn(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'desk-ledger.db'}"
    async with desk(tmp_path, live=True, ledger_url=url) as d:
        bid = Decimal(d.quote("SPY")["bid_price"])
        rests = str((bid * Decimal("0.99")).quantize(Decimal("0.01")))
        resting = await d.guard.submit(limit_buy("SPY", rests), identity="a")
        assert resting.status is FilingStatus.SUBMITTED
        impatient(d)
        async with held_elsewhere(url, d.account):
            with pytest.raises(AccountBusyError):
                await d.guard.cancel(resting.filing_id, identity="a")
        assert d.ledger.filing(resting.filing_id).status is FilingStatus.SUBMITTED
        cancelled = await d.guard.cancel(resting.filing_id, identity="a")
        assert cancelled.status is FilingStatus.CANCELLED


async def test_the_order_path_holds_the_turn_through_the_place_call(tmp_path: Path) -> None:
    async with desk(tmp_path, live=True) as d:
        executor = d.executor
        place = executor.place
        held_at_place: list[bool] = []

        async def watched(ticket: Any) -> Any:
            held_at_place.append(d.ledger.turns.held(d.account))
            return await place(ticket)

        executor.place = watched
        assert not d.ledger.turns.held(d.account)
        await d.guard.submit(buy("SPY"), identity="agent")
        assert held_at_place == [True]
        assert not d.ledger.turns.held(d.account)
