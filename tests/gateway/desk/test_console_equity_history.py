"""The console's equity curve is drawn from the marks kept on the ledger: a gateway started
again on the same ledger draws the points the first one marked."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import httpx2
import pytest
from console_kit import BOUND_S, Console, console
from desk_kit import MASTER, Desk
from gateway_testkit import OPEN, sandbox_gateway
from owner_testkit import PASSPHRASE, OwnerCodes, enrol
from sqlalchemy import insert

from ordergate._serving import bind_socket
from ordergate.callers import CallerKey
from ordergate.core import Secret, SteppedClock
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._serve import GatewayServer
from ordergate.ledger import EquityMark
from ordergate.ledger._schema import equity_marks
from ordergate.runtime import Settings
from ordergate.store import iso, parse_iso

NEVER_HELD = """
approval = "never"
[symbols]
allow = ["SPY"]
"""
_DESC = re.compile(r"<desc>([^<]*)</desc>")
_SAID = re.compile(r"(\d+) stored marks from (\S+) to (\S+), and the equity now")
_POINTS = re.compile(r'<polyline [^>]*points="([^"]*)"')

pytestmark = pytest.mark.req("console.equity-history")


@contextmanager
def serving(
    server: GatewayServer, clock: SteppedClock, codes: OwnerCodes, key: CallerKey, home: Path
) -> Iterator[Console]:
    with (
        server as url,
        httpx2.Client(base_url=url, timeout=BOUND_S, follow_redirects=False) as http,
    ):
        desk = Desk(url=url, server=server, codes=codes, key=key, home=home, market=clock)
        yield Console(desk, http, clock, url)


def test_the_curve_outlives_a_restart_on_the_same_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = CallerKey.derive(Secret(MASTER))
    clock = SteppedClock(start=OPEN)
    config = GatewayConfig(port=0, caller_key=key)
    first = sandbox_gateway(tmp_path, monkeypatch, policy=NEVER_HELD, config=config, clock=clock)
    home = tmp_path / "home"
    codes = enrol(home, passphrase=PASSPHRASE)
    marked = []
    with serving(first, clock, codes, key, home) as c:
        for _ in range(3):  # each order marks the equity it was decided on, a minute apart
            marked.append(clock.now())
            placed = c.desk.place()
            assert placed["status"] == "submitted"
            assert c.desk.settled(placed["filing_id"]) == "filled"
            clock.advance(timedelta(minutes=2))
        assert first.running is not None
        marks = c.desk.ledger.equity.window(first.running.guard.account)
        assert [m.at for m in marks] == marked and {m.source for m in marks} == {"paper"}
        assert c.sign_in().status_code == 200
        before = c.get("/positions").text
    said = f"3 stored marks from {iso(marked[0])} to {iso(marked[-1])}, and the equity now"
    assert _DESC.findall(before) == [said]

    again = GatewayServer(
        Settings.resolve(sandbox=True), config, bind_socket("127.0.0.1", 0), clock=clock
    )
    with serving(again, clock, codes, key, home) as c:
        assert c.sign_in().status_code == 200
        page = c.get("/positions")
        assert page.status_code == 200, page.text
        assert _DESC.findall(page.text) == [said]
        assert 'aria-label="equity curve, 4 samples"' in page.text
        points = _POINTS.findall(page.text)[0].split()
        assert points[:3] == _POINTS.findall(before)[0].split()[:3]  # the earlier points
        assert "high-water" in page.text


def test_the_page_draws_at_most_500_stored_marks_of_the_last_90_days(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, policy=NEVER_HELD) as c:
        assert c.desk.server.running is not None
        account = c.desk.server.running.guard.account
        every = timedelta(minutes=30)
        start = OPEN - 4_999 * every  # 5,000 marks, about 104 days, the newest at OPEN
        rows = [
            {"account": account, "at": iso(start + i * every), "equity": str(100_000 + i),
             "source": "paper"}
            for i in range(5_000)
        ]  # fmt: skip
        with c.desk.ledger.engine.begin() as connection:
            connection.execute(insert(equity_marks), rows)
        assert c.sign_in().status_code == 200
        page = c.get("/positions").text
        (said,) = _DESC.findall(page)
        found = _SAID.fullmatch(said)
        assert found is not None, said
        count, since, until = found.groups()
        assert parse_iso(until) == OPEN
        assert 400 < int(count) <= 500
        assert parse_iso(since) >= OPEN - timedelta(days=90)
        assert len(_POINTS.findall(page)[0].split()) == int(count) + 1


def test_a_serving_gateway_marks_the_equity_each_interval_of_its_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = SteppedClock(start=OPEN)
    server = sandbox_gateway(
        tmp_path, monkeypatch, policy=NEVER_HELD, clock=clock, equity_every=0.05
    )

    def marks_after(count: int) -> list[EquityMark]:
        assert server.running is not None
        ledger, account = server.running.guard.ledger, server.running.guard.account
        deadline = time.monotonic() + BOUND_S
        while time.monotonic() < deadline:  # bounded: the pass runs every 0.05 s
            marks = ledger.equity.window(account)
            if len(marks) >= count:
                return marks
            threading.Event().wait(0.01)  # the marker runs on the gateway's own thread
        raise AssertionError(f"no {count} marks within {BOUND_S} s")

    with server:
        [first] = marks_after(1)
        assert (first.at, first.source, first.equity) == (OPEN, "paper", Decimal("10000"))
        clock.advance(timedelta(seconds=1))  # a new interval of the gateway's clock
        marks = marks_after(2)
    assert [m.at for m in marks] == [OPEN, OPEN + timedelta(seconds=1)]
