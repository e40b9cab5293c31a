"""An option exercise on the owner's own rail (live mode over the embedded sandbox) is the
owner's act: an agent's ``exercise_option`` is filed and held, an approval without the owner
code is refused ``owner_code_required`` with nothing sent (the request still waits), and only
the owner's code sends it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from desk_kit import Desk, owner_desk
from gateway_testkit import OPEN
from mcp_http_testkit import ask_exercise
from option_market_testkit import OPTION_TRADER

from ordergate.callers import mint
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


def _exercise(desk: Desk) -> dict[str, Any]:
    """An agent under ``optiontrader`` asks to exercise one AAPL call of the nearest expiry."""
    token = mint(
        desk.key, caller="agent", profile="optiontrader", ttl=timedelta(minutes=15), now=OPEN
    ).reveal()
    held, _ = ask_exercise(desk.url, token)
    return held


def test_an_exercise_approved_without_the_owner_code_is_refused_and_nothing_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles = {"optiontrader": OPTION_TRADER}
    with owner_desk(tmp_path, monkeypatch, policy=LIVE_OPTIONS, profiles=profiles) as desk:
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
