"""One reconciliation loop per gateway process (``custody._reconciling``), one replica's pass
at a time (``Ledger.turns.pass_turn``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
import sqlalchemy.exc
from pg_testkit import database

from ordergate.core import SteppedClock
from ordergate.gateway._owner import identity_of
from ordergate.gateway.custody import SealedBackend
from ordergate.gateway.custody._reconciling import PassReport, reconcile_open
from ordergate.ledger import AccountTurns, Filing, Ledger, RollingCaps, open_ledger
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
        report = await reconcile_open(ledger, guard=no_guard, live_connections=never)
    assert report == PassReport(turn=True)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_one_pass_at_a_time_the_others_skip_theirs(kind: str, tmp_path: Path) -> None:
    async def no_guard(connection_id: str) -> Any:
        raise AssertionError("no guard is needed")

    with (
        database(kind, tmp_path) as url,
        open_ledger(url, clock=SteppedClock(start=START)) as ledger,
        open_ledger(url, clock=SteppedClock(start=START)) as other,
    ):
        here = ledger.turns
        async with here.pass_turn() as turn:
            assert turn
            # The same process's next pass, and (on Postgres) another process's, skip.
            async with here.pass_turn() as again:
                assert not again
            skipped = await reconcile_open(other, guard=no_guard, live_connections=list)
            assert skipped.turn is (not other.turns.shared)
        async with other.turns.pass_turn() as after:
            assert after  # released with the pass
    assert here.shared is (kind == "postgres")


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
    from ordergate.ledger import _turns

    monkeypatch.setattr(_turns, "RECONCILE_KEY", 2**70)  # no Postgres bigint
    with ledger_on("postgres", tmp_path) as ledger:
        turns = AccountTurns(ledger.engine)
        try:
            with pytest.raises(sqlalchemy.exc.DBAPIError):
                async with turns.pass_turn():
                    raise AssertionError("a turn was given")
        finally:
            turns.dispose()
