"""An option exercise on the owner's own rail (live mode over the embedded sandbox) is the
owner's act: an agent's ``exercise_option`` is filed and held, an approval without the owner
code is refused ``owner_code_required`` with nothing sent (the request still waits), and only
the owner's code sends it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from desk_kit import MASTER, Desk
from gateway_testkit import OPEN, sandbox_gateway
from mcp_http_testkit import McpSession
from owner_testkit import PASSPHRASE, enrol

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret, SecurityClock, SteppedClock
from ordergate.gateway._config import GatewayConfig
from ordergate.ledger import FilingStatus

LIVE_OPTIONS = """
mode = "live"
real_money = true
approval = "never"
[symbols]
allow = ["AAPL"]
[options]
underlyings = ["AAPL"]
"""
OPTION_TRADER = """
name: optiontrader
description: Trades equities and options within the account policy.
permissions: [account.read, market.read, orders.read, options.review, options.place,
  options.cancel]
"""


@contextmanager
def _live_desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    key = CallerKey.derive(Secret(MASTER))
    clock = SteppedClock(start=OPEN)
    market = SteppedClock(start=OPEN)
    server = sandbox_gateway(
        tmp_path,
        monkeypatch,
        policy=LIVE_OPTIONS,
        config=GatewayConfig(port=0, caller_key=key),
        clock=market,
        security_clock=SecurityClock(clock),
    )
    home = tmp_path / "home"
    (home / "profiles").mkdir(exist_ok=True)
    (home / "profiles" / "optiontrader.yaml").write_text(OPTION_TRADER)
    codes = enrol(home, passphrase=PASSPHRASE)
    with server as url:
        yield Desk(
            url=url, server=server, codes=codes, key=key, home=home, market=market, clock=clock
        )


def _exercise(desk: Desk) -> dict[str, Any]:
    """An agent under ``optiontrader`` asks to exercise one AAPL call of the nearest expiry."""
    token = mint(
        desk.key, caller="agent", profile="optiontrader", ttl=timedelta(minutes=15), now=OPEN
    ).reveal()
    session = McpSession(desk.url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        chain = session.tool("get_option_chains", {"underlying_symbol": "AAPL"})["data"]
        day = chain["chains"][0]["expiration_dates"][0]
        listed = session.tool(
            "get_option_instruments",
            {"chain_symbol": "AAPL", "expiration_dates": day, "type": "call"},
        )["data"]["instruments"]
        asked = {"account_number": account, "option_id": listed[0]["id"], "quantity": 1}
        data: dict[str, Any] = session.tool("exercise_option", asked)["data"]
    finally:
        session.close()
    return data


def test_an_exercise_approved_without_the_owner_code_is_refused_and_nothing_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _live_desk(tmp_path, monkeypatch) as desk:
        held = _exercise(desk)
        assert held["status"] == "pending_approval", held
        refused = desk.act("approve", {"approval_id": held["approval_id"]}, None)
        waiting = desk.get("/approvals").json()["approvals"]
        record = desk.ledger.filing(held["filing_id"])
        orders = desk.ledger.filings_of(record.identity, limit=10)
        approved = desk.act("approve", {"approval_id": held["approval_id"]}, desk.codes.next())
        ended = desk.ledger.filing(held["filing_id"]).status
    assert refused.json()["error"]["code"] == "owner_code_required", refused.text
    assert [row["approval_id"] for row in waiting] == [held["approval_id"]]
    assert record.kind == "option_exercise"
    assert record.status is FilingStatus.PENDING_APPROVAL  # nothing sent: still held
    assert [o.id for o in orders] == [record.id]
    assert approved.status_code == 200, approved.text
    assert ended in {FilingStatus.FILLED, FilingStatus.REJECTED}  # sent: the venue answered
