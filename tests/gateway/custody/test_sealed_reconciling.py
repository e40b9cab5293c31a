"""One reconciliation loop per gateway process (``custody._reconciling``), and the locks that
make replicas on one ledger take turns (``gateway._replica_locks``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
import sqlalchemy.exc
from pg_testkit import database

from ordergate.core import SteppedClock
from ordergate.gateway import _replica_locks
from ordergate.gateway._owner import identity_of
from ordergate.gateway._replica_locks import ReplicaLocks
from ordergate.gateway._serve import in_turn
from ordergate.gateway.custody import SealedBackend
from ordergate.gateway.custody._reconciling import PassReport, reconcile_open
from ordergate.ledger import Filing, Ledger, RollingCaps, open_ledger
from ordergate.policy import PolicyConfig

pytestmark = pytest.mark.anyio
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
CAPS = RollingCaps(Decimal("100000"), 1000)
BOUND_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def ledger_on(kind: str, tmp_path: Path) -> Iterator[Ledger]:
    with database(kind, tmp_path) as url, open_ledger(url, clock=SteppedClock(start=START)) as led:
        yield led


def file(ledger: Ledger, account: str, identity: str) -> None:
    ledger.file_and_reserve(
        Filing(identity=identity, terms={"symbol": "SPY", "side": "buy"}, account=account),
        notional=Decimal("10"),
        caps=CAPS,
    )


class FakeGuard:
    """A connection's guard as the loop uses it: its account and one reconciler pass."""

    def __init__(self, account: str, *, fails: bool = False) -> None:
        self.account = account
        self.fails = fails
        self.passes = 0

    async def reconcile(self) -> None:
        self.passes += 1
        if self.fails:
            raise RuntimeError("the broker is away")


async def test_a_pass_follows_each_account_with_open_filings_once_on_a_live_connection(
    tmp_path: Path,
) -> None:
    with ledger_on("sqlite", tmp_path) as ledger:
        file(ledger, "ACCT-A", identity_of("a"))
        file(ledger, "ACCT-A", identity_of("a"))
        file(ledger, "ACCT-A", f"caller:nightly@{identity_of('b').removeprefix('conn:')}")
        file(ledger, "ACCT-B", identity_of("gone"))  # no live connection filed it
        file(ledger, "ACCT-C", identity_of("moved"))  # its connection now trades elsewhere
        file(ledger, "ACCT-D", identity_of("broken"))  # its broker does not answer
        file(ledger, "ACCT-E", "owner")  # not a connection's: the owner's guard follows it
        guards = {
            "a": FakeGuard("ACCT-A"),
            "b": FakeGuard("ACCT-A"),
            "moved": FakeGuard("ACCT-ELSEWHERE"),
            "broken": FakeGuard("ACCT-D", fails=True),
        }
        asked: list[str] = []

        async def guard(connection_id: str) -> Any:
            asked.append(connection_id)
            return guards[connection_id]

        report = await reconcile_open(
            ledger,
            ReplicaLocks(ledger.engine),
            guard=guard,
            live_connections=lambda: ["a", "b", "moved", "broken"],
        )
    assert report == PassReport(turn=True, accounts=1, orphaned=2)
    assert guards["a"].passes + guards["b"].passes == 1  # one pass per account
    assert guards["broken"].passes == 1
    assert sorted(asked) == sorted([asked[0], "moved", "broken"])


async def test_with_nothing_open_a_pass_reads_no_connection(tmp_path: Path) -> None:
    def never() -> list[str]:
        raise AssertionError("the connections were read with nothing open")

    async def no_guard(connection_id: str) -> Any:
        raise AssertionError("a guard was opened with nothing open")

    with ledger_on("sqlite", tmp_path) as ledger:
        report = await reconcile_open(
            ledger, ReplicaLocks(ledger.engine), guard=no_guard, live_connections=never
        )
    assert report == PassReport(turn=True)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_one_pass_at_a_time_the_others_skip_theirs(kind: str, tmp_path: Path) -> None:
    async def no_guard(connection_id: str) -> Any:
        raise AssertionError("no guard is needed")

    with ledger_on(kind, tmp_path) as ledger:
        here, there = ReplicaLocks(ledger.engine), ReplicaLocks(ledger.engine)
        try:
            async with here.pass_turn() as turn:
                assert turn
                # The same process's next pass, and (on Postgres) another process's, skip.
                async with here.pass_turn() as again:
                    assert not again
                skipped = await reconcile_open(ledger, there, guard=no_guard, live_connections=list)
                assert skipped.turn is (not there.shared)
            async with there.pass_turn() as after:
                assert after  # released with the pass
        finally:
            here.dispose()
            there.dispose()
    assert here.shared is (kind == "postgres")


async def test_replicas_take_turns_on_an_account_and_a_wait_past_the_timeout_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_replica_locks, "LOCK_TIMEOUT_MS", 200)
    with ledger_on("postgres", tmp_path) as ledger:
        here, there = ReplicaLocks(ledger.engine), ReplicaLocks(ledger.engine)
        try:
            async with here.account("ACCT-A"):
                with pytest.raises(sqlalchemy.exc.OperationalError):
                    async with there.account("ACCT-A"):
                        raise AssertionError("two replicas held one account's turn")
                async with there.account("ACCT-B"):
                    pass  # another account is not held up
            async with there.account("ACCT-A"):
                pass  # free again once released
        finally:
            here.dispose()
            there.dispose()


async def test_on_sqlite_an_accounts_turn_is_this_process_alone(tmp_path: Path) -> None:
    with ledger_on("sqlite", tmp_path) as ledger:
        locks = ReplicaLocks(ledger.engine)
        order: list[str] = []

        async def second() -> None:
            async with locks.account("ACCT-A"):
                order.append("second")

        async with anyio.create_task_group() as tasks, locks.account("ACCT-A"):
            tasks.start_soon(second)
            await anyio.wait_all_tasks_blocked()
            order.append("first")
        locks.dispose()
    assert order == ["first", "second"]


class NoSessions:
    """A session source no test here opens."""

    def session(self, connection_id: str) -> Any:
        raise AssertionError("no session is opened with nothing open")


async def test_the_sealed_backend_reconciles_on_its_own_loop_through_a_failed_pass(
    tmp_path: Path,
) -> None:
    async def erase(connection_id: str) -> None:
        return None

    with ledger_on("sqlite", tmp_path) as ledger:
        passes: list[str] = []
        done = anyio.Event()
        with anyio.fail_after(BOUND_S):
            async with SealedBackend.running(
                vault=NoSessions(),
                policy=PolicyConfig(),
                ledger=ledger,
                clock=SteppedClock(start=START),
                erase=erase,
                reconcile_every=0.01,
            ) as sealed:
                assert await sealed.reconcile() == PassReport(turn=True)

                async def counted() -> PassReport:
                    passes.append("pass")
                    if len(passes) == 1:
                        raise RuntimeError("one bad pass")
                    done.set()
                    return PassReport(turn=True)

                sealed.reconcile = counted  # type: ignore[method-assign]
                await done.wait()
    assert len(passes) >= 2  # the failed pass did not end the loop


async def test_a_turn_that_cannot_be_asked_for_fails_the_pass_and_frees_its_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_replica_locks, "RECONCILE_KEY", 2**70)  # no Postgres bigint
    with ledger_on("postgres", tmp_path) as ledger:
        locks = ReplicaLocks(ledger.engine)
        try:
            with pytest.raises(sqlalchemy.exc.DBAPIError):
                async with locks.pass_turn():
                    raise AssertionError("a turn was given")
        finally:
            locks.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_an_approved_order_is_reviewed_and_placed_in_its_accounts_turn(
    tmp_path: Path, kind: str
) -> None:
    """The owner desk's guard (``in_turn``) waits for the filing's account's turn that an
    MCP order holds from its count through its place call, on another replica too."""
    with ledger_on(kind, tmp_path) as ledger:
        file(ledger, "ACCT-A", "agent")
        record = ledger.open_filings("ACCT-A")[0]
        order_side, approve_side = ReplicaLocks(ledger.engine), ReplicaLocks(ledger.engine)
        if kind == "sqlite":
            approve_side = order_side  # one process on SQLite: its one set of turns
        guard = FakeGuard("ACCT-A")

        @asynccontextmanager
        async def the_guard(filing: Any) -> AsyncIterator[Any]:
            yield guard

        steps: list[str] = []

        async def approve() -> None:
            async with in_turn(approve_side, the_guard)(record) as held:
                assert held is guard
                steps.append("approved order placed")

        try:
            with anyio.fail_after(BOUND_S):
                async with anyio.create_task_group() as tasks, order_side.account("ACCT-A"):
                    tasks.start_soon(approve)
                    # The approval waits for the turn (in this process's lock, or on
                    # Postgres the other replica's advisory lock): it has not placed yet.
                    await anyio.wait_all_tasks_blocked()
                    steps.append("mcp order placed")
        finally:
            order_side.dispose()
            approve_side.dispose()
    assert steps == ["mcp order placed", "approved order placed"]
