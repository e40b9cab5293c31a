"""Processes sharing one engine book: every order each one placed is there, once, and the
cash is exact, equity orders and crypto orders alike. On one SQLite file and on one Postgres
database."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from engine_process_testkit import START, btc_prices, spy_listing, spy_quote
from pg_testkit import database

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import EquityEngine, ObservedPrices
from ordergate.store import engine_for, migrate, normalise_url

PROCESSES = 3
EACH = 8
SUPPORT = Path(__file__).parents[2] / "support"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as found:
        engine = engine_for(normalise_url(found))
        migrate(engine)
        engine.dispose()
        yield found


def test_processes_placing_on_one_book_lose_no_order_and_no_cent(url: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SUPPORT), *sys.path])}
    command = [sys.executable, "-m", "engine_process_testkit", url, "shared", str(EACH)]
    running = [
        subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(PROCESSES)
    ]
    placed: list[str] = []
    for process in running:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        placed.extend(out.split())
    assert len(placed) == len(set(placed)) == PROCESSES * EACH

    clock = SteppedClock(start=START + timedelta(seconds=5))
    prices = ObservedPrices()
    prices.list(spy_listing())
    prices.observe(spy_quote(clock.now()))
    db = engine_for(normalise_url(url))
    try:
        engine = EquityEngine(db, book="shared", prices=prices, clock=clock)
        account = engine.account.account_number
        orders: list[dict[str, str]] = []
        page = engine.call("get_equity_orders", {"account_number": account})
        orders.extend(page["structuredContent"]["data"]["orders"])
        assert "next" not in page["structuredContent"]["data"]
        assert sorted(o["id"] for o in orders) == sorted(placed)
        assert {o["state"] for o in orders} == {"filled"}
        portfolio = engine.call("get_portfolio", {"account_number": account})
        cash = Decimal(portfolio["structuredContent"]["data"]["cash"])
        assert cash == Decimal("100000.00") - PROCESSES * EACH * Decimal("600.01")
    finally:
        db.dispose()


def test_processes_placing_crypto_on_one_book_lose_no_order_no_unit_and_no_cent(url: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SUPPORT), *sys.path])}
    command = [sys.executable, "-m", "engine_process_testkit", url, "shared", str(EACH), "crypto"]
    running = [
        subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(PROCESSES)
    ]
    placed: list[str] = []
    for process in running:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        placed.extend(out.split())
    assert len(placed) == len(set(placed)) == PROCESSES * EACH

    clock = SteppedClock(start=START + timedelta(seconds=5))
    db = engine_for(normalise_url(url))
    try:
        engine = EquityEngine(
            db,
            book="shared",
            prices=ObservedPrices(),
            crypto_prices=btc_prices(clock.now()),
            clock=clock,
        )
        rhs = engine.account.rhs_account_number
        page = engine.call("get_crypto_orders", {"rhs_account_number": rhs})
        orders = page["structuredContent"]["data"]["orders"]
        assert sorted(o["id"] for o in orders) == sorted(placed)
        assert {o["state"] for o in orders} == {"filled"}
        held = engine.call("get_crypto_positions", {"rhs_account_number": rhs})
        [position] = held["structuredContent"]["data"]["positions"]
        assert Decimal(position["quantity"]) == PROCESSES * EACH * Decimal("0.01")
        portfolio = engine.call("get_portfolio", {"account_number": engine.account.account_number})
        cash = Decimal(portfolio["structuredContent"]["data"]["cash"])
        # Each fill: 0.01 BTC at the 50000.50 ask, 500.005 booked as the venue rounds it.
        assert cash == Decimal("100000.00") - PROCESSES * EACH * Decimal("500.00")
    finally:
        db.dispose()
