"""The account's turn (``Ledger.turns``): one order at a time per account in a process, across
processes on one SQLite file, across replicas on Postgres; every wait bounded; a holder that
dies gives it back."""

from __future__ import annotations

import os
import selectors
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from pg_testkit import database
from sqlalchemy import create_engine

from ordergate.core import SteppedClock
from ordergate.ledger import AccountBusyError, AccountTurns, Ledger, open_ledger

pytestmark = pytest.mark.anyio
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
BOUND_S = 30.0
SHORT_S = 0.2  # the bound a refused wait waits out


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def two_ledgers(kind: str, tmp_path: Path) -> Iterator[tuple[str, Ledger, Ledger]]:
    """Two ledgers on one database, as two processes open it."""
    with (
        database(kind, tmp_path) as url,
        open_ledger(url, clock=SteppedClock(start=START)) as here,
        open_ledger(url, clock=SteppedClock(start=START)) as there,
    ):
        yield url, here, there


async def taken_elsewhere(turns: AccountTurns, account: str) -> str:
    """Take ``account``'s turn in another task (as another process would): ``"taken"`` or
    the refusal's code."""
    said: list[str] = []

    async def take() -> None:
        try:
            async with turns.account(account):
                said.append("taken")
        except AccountBusyError as busy:
            assert busy.account == account
            said.append(busy.code)

    with anyio.fail_after(BOUND_S):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(take)
    return said[0]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_a_second_process_waits_for_an_accounts_turn_and_past_the_bound_is_refused(
    kind: str, tmp_path: Path
) -> None:
    with two_ledgers(kind, tmp_path) as (_, here, there):
        there.turns = AccountTurns(there.engine, bound_s=SHORT_S)
        async with here.turns.account("ACCT-A"):
            assert here.turns.held("ACCT-A") and not here.turns.held("ACCT-B")
            assert await taken_elsewhere(there.turns, "ACCT-A") == "account_busy"
            # On Postgres another account is not held up; on SQLite (one host, one write
            # lock) every account on the file takes turns across processes.
            other = "taken" if kind == "postgres" else "account_busy"
            assert await taken_elsewhere(there.turns, "ACCT-B") == other
        assert await taken_elsewhere(there.turns, "ACCT-A") == "taken"  # free once released
    assert here.turns.shared is (kind == "postgres")


async def test_the_sqlite_turn_is_a_private_file_beside_the_database(tmp_path: Path) -> None:
    with two_ledgers("sqlite", tmp_path) as (_, here, _there):
        async with here.turns.account("ACCT-A"):
            pass
        lock_file = here.turns.lock_file
    assert lock_file == tmp_path / "ledger.db.turn"
    assert stat.S_IMODE(lock_file.stat().st_mode) == 0o600


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_in_one_process_an_accounts_orders_take_turns_in_order(
    kind: str, tmp_path: Path
) -> None:
    with two_ledgers(kind, tmp_path) as (_, here, _there):
        turns = here.turns
        order: list[str] = []

        async def second() -> None:
            async with turns.account("ACCT-A"):
                order.append("second")

        with anyio.fail_after(BOUND_S):
            async with anyio.create_task_group() as tasks, turns.account("ACCT-A"):
                tasks.start_soon(second)
                await anyio.wait_all_tasks_blocked()
                order.append("first")
    assert order == ["first", "second"]


async def test_a_task_holding_the_turn_takes_it_again_without_waiting(tmp_path: Path) -> None:
    with two_ledgers("sqlite", tmp_path) as (_, here, _there):
        turns = AccountTurns(here.engine, bound_s=SHORT_S)
        async with turns.account("ACCT-A"), turns.account("ACCT-A"):
            assert turns.held("ACCT-A")
        assert not turns.held("ACCT-A")


async def test_a_wait_in_the_process_past_the_bound_is_refused(tmp_path: Path) -> None:
    with two_ledgers("sqlite", tmp_path) as (_, here, _there):
        turns = AccountTurns(here.engine, bound_s=SHORT_S)
        async with turns.account("ACCT-A"):
            assert await taken_elsewhere(turns, "ACCT-A") == "account_busy"


def test_a_turn_needs_a_positive_bound(tmp_path: Path) -> None:
    with two_ledgers("sqlite", tmp_path) as (_, here, _there), pytest.raises(ValueError):
        AccountTurns(here.engine, bound_s=0)


_HOLDER = """
import sys, anyio
from ordergate.core import RealtimeClock
from ordergate.ledger import open_ledger

async def hold():
    with open_ledger(sys.argv[1], clock=RealtimeClock()) as ledger:
        async with ledger.turns.account("ACCT-A"):
            print("held", flush=True)
            sys.stdin.read()

anyio.run(hold)
"""


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_a_holder_killed_in_its_turn_gives_it_back(kind: str, tmp_path: Path) -> None:
    with two_ledgers(kind, tmp_path) as (url, _here, there):
        holder = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={k: v for k, v in os.environ.items() if not k.startswith("COV_")},
        )
        try:
            assert holder.stdout is not None
            with selectors.DefaultSelector() as ready:
                ready.register(holder.stdout, selectors.EVENT_READ)
                assert ready.select(timeout=BOUND_S * 3), "the holder never took the turn"
            assert holder.stdout.readline() == b"held\n"
            busy = AccountTurns(there.engine, bound_s=SHORT_S)
            assert await taken_elsewhere(busy, "ACCT-A") == "account_busy"
            holder.send_signal(signal.SIGKILL)
            holder.wait(timeout=BOUND_S)
            assert await taken_elsewhere(there.turns, "ACCT-A") == "taken"
        finally:
            if holder.poll() is None:
                holder.kill()
                holder.wait(timeout=BOUND_S)
            for pipe in (holder.stdin, holder.stdout):
                if pipe is not None:
                    pipe.close()


async def test_a_database_without_a_file_takes_turns_in_its_process_alone() -> None:
    engine = create_engine("sqlite://")
    try:
        turns = AccountTurns(engine, bound_s=SHORT_S)
        assert turns.lock_file is None and not turns.shared
        async with turns.account("ACCT-A"):
            assert await taken_elsewhere(turns, "ACCT-A") == "account_busy"
            # Nothing beside it for another process to lock: its turns are its own.
            assert await taken_elsewhere(AccountTurns(engine), "ACCT-A") == "taken"
    finally:
        engine.dispose()
