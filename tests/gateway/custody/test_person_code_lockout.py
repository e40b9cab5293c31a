"""Wrong codes for a person's connection are limited per connection: ``SOURCE_FAILURES``
wrong within the window lock that connection's owner acts (no code, even the right one, is
checked while the lock holds), each refusal journalled, other connections untouched, and the
lock ends on the injected clock."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from custody_kit import Custodian, custodian
from mcp_http_testkit import McpSession
from owner_testkit import PASSPHRASE, channel_act
from sqlalchemy import text

from ordergate.owner import SOURCE_FAILURES, SOURCE_LOCKOUT

HELD = 'approval = "always"\n[symbols]\nallow = ["SPY"]\n'
BUY = {"symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": "5"}


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, policy=HELD) as served:
        yield served


def _place(served: Custodian, token: str) -> str:
    """A held order's approval id."""
    session = McpSession(served.url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        data = session.tool("place_equity_order", {**BUY, "account_number": account})["data"]
    finally:
        session.close()
    served.clock.advance(timedelta(seconds=31))
    assert data["status"] == "pending_approval", data
    return str(data["approval_id"])


def _approve(served: Custodian, approval_id: str, code: str | None) -> httpx2.Response:
    return channel_act(served.home, "approve", {"approval_id": approval_id}, code)


def _refusals(served: Custodian) -> list[dict[str, Any]]:
    with served.engine.connect() as db:
        rows = db.execute(
            text("SELECT detail FROM decisions WHERE kind = 'person_act' ORDER BY seq")
        )
        return [json.loads(row.detail) for row in rows]


@pytest.mark.req("rail.person.code-lockout")
def test_wrong_codes_lock_the_connections_acts_even_against_the_right_code_until_the_lock_ends(
    held: Custodian,
) -> None:
    approval = _place(held, held.connect())
    [secret] = held.secrets
    for _ in range(SOURCE_FAILURES):
        wrong = _approve(held, approval, PASSPHRASE)
        assert wrong.json()["error"]["code"] == "person_code_wrong", wrong.text
    locked = _approve(held, approval, held.person_code(secret))
    assert locked.status_code == 429, locked.text
    assert locked.json()["error"]["code"] == "person_code_locked"
    entries = _refusals(held)
    assert [entry.get("reason") for entry in entries[-2:]] == [
        "person_code_wrong",
        "person_code_locked",
    ]
    assert all("locked_until" in entry["detail"] for entry in entries[-2:])
    held.clock.advance(SOURCE_LOCKOUT)
    approved = _approve(held, approval, held.person_code(secret))
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "submitted"
    assert held.settled(approved.json()["filing_id"]) == "filled"


def test_one_connections_lock_leaves_another_persons_connection_free(held: Custodian) -> None:
    alice = _place(held, held.connect())
    bob = _place(held, held.connect())
    _, bob_secret = held.secrets
    for _ in range(SOURCE_FAILURES):
        _approve(held, alice, PASSPHRASE)
    assert _approve(held, alice, PASSPHRASE).json()["error"]["code"] == "person_code_locked"
    approved = _approve(held, bob, held.person_code(bob_secret))
    assert approved.status_code == 200, approved.text


def test_a_right_code_forgives_the_wrong_ones_before_it(held: Custodian) -> None:
    token = held.connect()
    [secret] = held.secrets
    first, second = _place(held, token), _place(held, token)
    for _ in range(SOURCE_FAILURES - 1):
        _approve(held, first, PASSPHRASE)
    assert _approve(held, first, held.person_code(secret)).status_code == 200
    for _ in range(SOURCE_FAILURES - 1):
        _approve(held, second, PASSPHRASE)
    assert _approve(held, second, held.person_code(secret)).status_code == 200
