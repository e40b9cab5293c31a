"""Postgres locks: a filing waits only for filings of its own account, and a checkpoint waits
for every filing in flight (so it covers all filings numbered up to its ``seq``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal

import pytest
from sqlalchemy import Connection, Engine, text

from ordergate.core import SteppedClock
from ordergate.ledger import ChainHead, Filing, Ledger, RollingCaps, open_ledger
from ordergate.store import lock_accounts

CAPS = RollingCaps(max_daily_usd=Decimal(1000), max_orders_per_day=100)
WAIT_S = 30
POLLS = 400

pytestmark = pytest.mark.req("ledger.postgres-parity")


@pytest.fixture
def pg_ledger(pg_url: str, clock: SteppedClock) -> Iterator[Ledger]:
    with open_ledger(pg_url, clock=clock) as opened:
        yield opened


@contextmanager
def in_flight(engine: Engine, account: str) -> Iterator[Connection]:
    """A filing of ``account`` between taking its locks and committing."""
    with engine.connect() as connection, connection.begin():
        lock_accounts(connection, [account])
        yield connection


class Call(threading.Thread):
    def __init__(self, call: Callable[[], object]) -> None:
        super().__init__(daemon=True)
        self.call = call
        self.result: object = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.call()
        except BaseException as error:  # reported by the test
            self.error = error

    def finished(self) -> bool:
        self.join(timeout=WAIT_S)
        return not self.is_alive() and self.error is None


def file_for(ledger: Ledger, account: str) -> Call:
    call = Call(
        lambda: ledger.file_and_reserve(
            Filing("agent", {}, account=account), notional=Decimal(1), caps=CAPS
        )
    )
    call.start()
    return call


def waits_on_a_lock(engine: Engine, call: Call) -> bool:
    """Whether ``call`` gets stuck on an advisory lock (polled, at most ``POLLS`` times)."""
    with engine.connect() as watcher:
        for _ in range(POLLS):
            waiting = watcher.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock' AND wait_event = 'advisory'"
                )
            ).scalar()
            watcher.rollback()
            if waiting or not call.is_alive():
                return bool(waiting)
            call.join(timeout=0.05)
    return False


def test_a_filing_for_another_account_does_not_wait_but_one_for_the_same_account_does(
    pg_ledger: Ledger,
) -> None:
    with in_flight(pg_ledger.engine, "a"):
        other = file_for(pg_ledger, "b")
        assert other.finished()
        same = file_for(pg_ledger, "a")
        assert waits_on_a_lock(pg_ledger.engine, same)
    assert same.finished()
    assert pg_ledger.head().seq == 2
    assert pg_ledger.verify().ok


def test_a_checkpoint_waits_for_the_filings_in_flight(pg_ledger: Ledger) -> None:
    pg_ledger.file_and_reserve(Filing("agent", {}, account="a"), notional=Decimal(1), caps=CAPS)
    with in_flight(pg_ledger.engine, "b"):
        head = Call(pg_ledger.head)
        head.start()
        assert waits_on_a_lock(pg_ledger.engine, head)
    assert head.finished()
    assert isinstance(head.result, ChainHead) and head.result.seq == 1


def test_pausing_waits_for_the_filings_in_flight(pg_ledger: Ledger) -> None:
    with in_flight(pg_ledger.engine, "a"):
        pause = Call(lambda: pg_ledger.controls.pause("stop"))
        pause.start()
        assert waits_on_a_lock(pg_ledger.engine, pause)
    assert pause.finished()
    refused = pg_ledger.file_and_reserve(
        Filing("agent", {}, account="a"), notional=Decimal(1), caps=CAPS
    )
    assert refused.reason == "paused"
