"""Sealed custody over real sockets: each person signs in at the venue through the gateway,
and the connection's calls go out on that session, sealed at rest."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from custody_kit import Custodian, custodian, query
from mcp_http_testkit import McpSession as Mcp
from oauth_testkit import challenge_of, new_verifier

from ordergate.gateway.custody import BIND_COOKIE


@pytest.mark.req("gateway.custody.sealed-session")
def test_a_person_signs_in_at_the_venue_and_the_connection_lists_and_orders_on_that_session(
    gateway: Custodian,
) -> None:
    token = gateway.connect()
    mcp = Mcp(gateway.url, token)
    try:
        names = {tool["name"] for tool in mcp.result("tools/list", {})["tools"]}
        assert {"get_equity_quotes", "place_equity_order", "gate_how"} <= names
        quotes = mcp.tool("get_equity_quotes", {"symbols": ["SPY"]})
        assert quotes["data"]["results"][0]["quote"]["symbol"] == "SPY"
        accounts = mcp.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        order = mcp.tool(
            "place_equity_order",
            {
                "account_number": account,
                "symbol": "SPY",
                "side": "buy",
                "type": "market",
                "dollar_amount": "5",
            },
        )
    finally:
        mcp.close()
    assert order["data"]["status"] == "submitted", order
    assert order["data"]["paper"] is True
    assert order["data"]["filing_id"]
    assert gateway.settled(order["data"]["filing_id"]) == "filled"
    (row,) = gateway.rows()
    assert row["kind"] == "sealed"
    assert row["state"] == "live"
    # The profile chosen on the consent page survived the round trip through the venue.
    assert row["profile"] == "trader"
    assert row["upstream_sealed"].startswith("v2.")
    assert row["kek_id"].startswith("master-") and row["data_key_wrapped"]
    assert "access_token" not in row["upstream_sealed"]


def test_the_bind_cookie_is_http_only_lax_and_scoped_to_the_callback_path(
    gateway: Custodian,
) -> None:
    with gateway.browser() as person:
        answer = gateway.approve(person, gateway.register(), challenge_of(new_verifier()))
    assert answer.status_code == 302
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(BIND_COOKIE + "=")
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=lax", "path=/oauth/callback"} <= attributes
    upstream = query(answer.headers["location"])
    assert upstream["code_challenge_method"] == "S256"
    assert upstream["redirect_uri"] == gateway.url + "/oauth/callback"
    assert upstream["state"] != "client-state"


@pytest.mark.req("gateway.threat.other-browser")
def test_a_sign_in_finished_in_another_browser_is_refused_before_any_code_exchange(
    gateway: Custodian,
) -> None:
    with gateway.browser() as consenting, gateway.browser() as other:
        to_upstream = gateway.approve(consenting, gateway.register(), challenge_of(new_verifier()))
        callback = gateway.sign_in_upstream(other, to_upstream.headers["location"])
        refused = other.get(callback)
        # The right browser arriving later finds the sign-in spent.
        late = consenting.get(callback)
    assert refused.status_code == 403
    assert "not started in this browser" in refused.text
    assert late.status_code == 400
    assert gateway.rows() == []


def test_a_callback_with_a_forged_bind_is_refused(gateway: Custodian) -> None:
    with gateway.browser() as person:
        to_upstream = gateway.approve(person, gateway.register(), challenge_of(new_verifier()))
        callback = gateway.sign_in_upstream(person, to_upstream.headers["location"])
        person.cookies.clear()
        person.cookies.set(BIND_COOKIE, "forged", path="/oauth/callback")
        refused = person.get(callback)
    assert refused.status_code == 403
    assert gateway.rows() == []


def test_a_callback_naming_no_sign_in_in_flight_is_refused(gateway: Custodian) -> None:
    with gateway.browser() as person:
        refused = person.get(gateway.url + "/oauth/callback", params={"state": "x", "code": "y"})
    assert refused.status_code == 400
    assert "expired or was already used" in refused.text


def test_an_upstream_refusal_goes_back_to_the_client_as_access_denied(
    gateway: Custodian,
) -> None:
    with gateway.browser() as person:
        to_upstream = gateway.approve(person, gateway.register(), challenge_of(new_verifier()))
        state = query(to_upstream.headers["location"])["state"]
        back = person.get(
            gateway.url + "/oauth/callback", params={"state": state, "error": "access_denied"}
        )
    assert back.status_code == 302
    params = query(back.headers["location"])
    assert params["error"] == "access_denied"
    assert params["state"] == "client-state"
    assert gateway.rows() == []


@pytest.mark.req("gateway.custody.no-master-secret")
def test_without_the_master_secret_the_consent_page_says_why_and_connects_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with custodian(tmp_path, monkeypatch, master=None) as gateway, gateway.browser() as person:
        page = person.get(
            gateway.url + "/oauth/authorize",
            params={
                "response_type": "code",
                "client_id": gateway.register(),
                "redirect_uri": "http://127.0.0.1:33418/callback",
                "code_challenge": challenge_of(new_verifier()),
                "code_challenge_method": "S256",
            },
        )
    assert page.status_code == 503
    assert "ORDERGATE_MASTER_SECRET" in page.text


@pytest.mark.req("gateway.custody.revocation")
def test_an_upstream_revocation_marks_the_connection_dead_at_its_next_call(
    gateway: Custodian,
) -> None:
    token = gateway.connect()
    mcp = Mcp(gateway.url, token)
    try:
        assert mcp.tool("get_equity_quotes", {"symbols": ["SPY"]})["data"]["results"]
        gateway.venue.oauth.revoke_everything()
        refused = mcp.result(
            "tools/call", {"name": "get_equity_quotes", "arguments": {"symbols": ["SPY"]}}
        )
        after = mcp.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    finally:
        mcp.close()
    assert refused["isError"] is True
    assert refused["structuredContent"]["error"]["code"] == "UPSTREAM_SIGNED_OUT"
    (row,) = gateway.rows()
    assert row["state"] == "dead"
    assert row["upstream_sealed"] is None
    assert after.status_code == 401


@pytest.mark.req("gateway.custody.refresh")
def test_the_upstream_session_is_refreshed_within_a_minute_of_its_expiry_and_resealed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with custodian(tmp_path, monkeypatch, access_ttl=timedelta(minutes=30)) as gateway:
        token = gateway.connect()
        mcp = Mcp(gateway.url, token)
        try:
            assert mcp.tool("get_equity_quotes", {"symbols": ["SPY"]})["data"]["results"]
            (before,) = gateway.rows()
            gateway.clock.advance(timedelta(minutes=29, seconds=30))
            assert mcp.tool("get_equity_quotes", {"symbols": ["SPY"]})["data"]["results"]
            (after,) = gateway.rows()
        finally:
            mcp.close()
    assert after["upstream_sealed"] != before["upstream_sealed"]
    assert after["upstream_expires_at"] > before["upstream_expires_at"]
    assert after["state"] == "live"


def test_gate_disconnect_erases_the_sealed_session(gateway: Custodian) -> None:
    mcp = Mcp(gateway.url, gateway.connect())
    try:
        mcp.tool("gate_disconnect", {})
    finally:
        mcp.close()
    (row,) = gateway.rows()
    assert row["state"] == "erased"
    assert row["upstream_sealed"] is None


def test_only_the_vault_opens_a_sealed_upstream_session() -> None:
    source = Path(__file__).parents[3] / "src" / "ordergate"
    unsealing = sorted(
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if ".unseal(" in path.read_text(encoding="utf-8")
    )
    # The vault opens token sets; the sign-in opens only its own PKCE verifier.
    assert unsealing == ["gateway/custody/_signin.py", "gateway/custody/_vault.py"]
