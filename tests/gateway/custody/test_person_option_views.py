"""A person on a hosted rail (live mode over the sandbox) sees their own exercise request on
their console's approval page by its act, contract and contracts, as the operator's
console shows one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from custody_kit import Custodian, live_rail
from mcp_http_testkit import McpSession
from person_console_kit import PersonConsole, connect_with_passkey


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with live_rail(tmp_path, monkeypatch) as served:
        yield served


def _exercise(url: str, token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ask to exercise two AAPL calls of the nearest expiry: the answer and the contract."""
    session = McpSession(url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        chain = session.tool("get_option_chains", {"underlying_symbol": "AAPL"})["data"]
        day = chain["chains"][0]["expiration_dates"][0]
        listed = session.tool(
            "get_option_instruments",
            {"chain_symbol": "AAPL", "expiration_dates": day, "type": "call"},
        )["data"]["instruments"]
        asked = {"account_number": account, "option_id": listed[0]["id"], "quantity": 2}
        data: dict[str, Any] = session.tool("exercise_option", asked)["data"]
    finally:
        session.close()
    return data, listed[0]


def test_a_persons_exercise_request_shows_its_contract_on_their_approval_page(
    live: Custodian,
) -> None:
    passkey, _, token = connect_with_passkey(live, profile="optiontrader")
    held, contract = _exercise(live.url, token)
    assert held["status"] == "pending_approval", held
    browser = PersonConsole(live)
    try:
        assert browser.sign_in(passkey).status_code == 200
        page = browser.get(f"/mine/approvals/{held['approval_id']}")
        overview = browser.get("/mine")
    finally:
        browser.close()
    assert page.status_code == 200, page.text
    assert f"<h1>Exercise AAPL {contract['expiration_date']} " in page.text
    assert contract["id"] in page.text and "Contracts</dt><dd>2</dd>" in page.text
    assert f">Exercise AAPL {contract['expiration_date']} " in overview.text  # the waiting list
