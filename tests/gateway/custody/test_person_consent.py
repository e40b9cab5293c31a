"""Consent on a hosted rail: the person's own enrolment, not the operator's owner code, is the
authority for a connection beyond ``monitor`` (owner custody keeps the owner code)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from custody_kit import REDIRECT, Custodian, custodian
from mcp_http_testkit import McpSession
from oauth_testkit import challenge_of, new_verifier


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch) as served:
        served.codes = None  # the person types no operator code anywhere
        yield served


def test_the_consent_page_of_a_hosted_rail_asks_no_operator_code(rail: Custodian) -> None:
    client_id = rail.register()
    with rail.browser() as person:
        page = person.get(
            rail.url + "/oauth/authorize",
            params={
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge_of(new_verifier()),
                "code_challenge_method": "S256",
                "state": "client-state",
                "resource": rail.url + "/mcp",
            },
        )
    assert page.status_code == 200, page.text
    assert 'name="owner_code"' not in page.text
    assert "enrol a code of your own" in page.text


@pytest.mark.req("rail.person.consent")
def test_a_person_connects_a_trading_profile_with_their_own_enrolment_and_no_operator_code(
    rail: Custodian,
) -> None:
    token = rail.connect(profile="trader")
    [row] = rail.rows()
    assert row["profile"] == "trader" and row["person_totp_step"] is not None
    session = McpSession(rail.url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(item for item in accounts if item["agentic_allowed"])["account_number"]
        placed = session.tool(
            "place_equity_order",
            {
                "symbol": "SPY",
                "side": "buy",
                "type": "market",
                "dollar_amount": "5",
                "account_number": account,
            },
        )["data"]
    finally:
        session.close()
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
