"""The owner's desk in sealed custody: a held order is carried on by the guard of the
connection that filed it, whichever identity it filed under, and only with the owner code."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest
from custody_kit import MASTER, OPEN, Custodian, custodian
from mcp_http_testkit import McpSession
from owner_testkit import PASSPHRASE, channel_act

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret

HELD = 'approval = "always"\n[symbols]\nallow = ["SPY"]\n'
BUY = {
    "symbol": "SPY",
    "side": "buy",
    "type": "market",
    "dollar_amount": "5",
}


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, policy=HELD) as served:
        yield served


def _place(url: str, token: str) -> dict[str, object]:
    session = McpSession(url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        order = {**BUY, "account_number": account}
        data: dict[str, object] = session.tool("place_equity_order", order)["data"]
    finally:
        session.close()
    assert data["status"] == "pending_approval", data
    return data


def _approve(home: Path, approval_id: object, code: str | None) -> httpx2.Response:
    return channel_act(home, "approve", {"approval_id": str(approval_id)}, code)


@pytest.mark.req("owner.act.approve")
def test_a_held_order_of_a_sealed_connection_is_placed_on_its_own_session_with_the_code(
    held: Custodian,
) -> None:
    data = _place(held.url, held.connect())
    assert _approve(held.home, data["approval_id"], None).status_code == 401
    approved = _approve(held.home, data["approval_id"], PASSPHRASE)
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "filled" and approved.json()["mode"] == "paper"


def test_a_held_order_of_a_caller_bound_to_a_sealed_connection_is_placed_on_that_session(
    held: Custodian,
) -> None:
    held.connect()
    [row] = held.rows()
    token = mint(
        CallerKey.derive(Secret(MASTER)),
        caller="nightly",
        profile="trader",
        ttl=timedelta(minutes=15),
        now=OPEN,
        connection=row["id"],
    ).reveal()
    data = _place(held.url, token)
    approved = _approve(held.home, data["approval_id"], PASSPHRASE)
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "filled"
