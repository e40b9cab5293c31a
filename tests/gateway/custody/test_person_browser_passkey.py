"""A hosted rail's person in real Chromium (a virtual authenticator of their own): the consent
page, the venue's sign-in as its own user (their name and password, their own account), then on
the page it ends on a passkey registered for their own connection and their code confirmed; the
passkey then signs them in to that connection's console."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pyotp
import pytest
from chromium_testkit import WAIT_MS, chromium_page, expect, sync_playwright
from custody_kit import REDIRECT, Custodian, custodian, query
from mcp_http_testkit import McpSession
from oauth_testkit import challenge_of, new_verifier
from person_console_kit import HELD, place_held


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(
        tmp_path, monkeypatch, policy=HELD, localhost=True, venue_users=("alice", "bob")
    ) as served:
        yield served


def _exchange(rail: Custodian, client_id: str, code: str, verifier: str) -> str:
    """The client redeems its code, as its own process would (the connection is then one):
    its access token."""
    with rail.browser() as client:
        tokens = client.post(
            rail.url + "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "client_id": client_id,
                "code_verifier": verifier,
                "resource": rail.url + "/mcp",
            },
        )
    assert tokens.status_code == 200, tokens.text
    access: str = tokens.json()["access_token"]
    return access


def _connect(rail: Custodian, page: Any, user: str) -> str:
    """The person's whole consent flow in ``page``, signing in at the venue as ``user``, a
    passkey registered for the connection on its device's authenticator and their code
    confirmed: the client's access token."""
    verifier = new_verifier()
    params = {
        "response_type": "code",
        "client_id": rail.register(),
        "redirect_uri": REDIRECT,
        "code_challenge": challenge_of(verifier),
        "code_challenge_method": "S256",
        "state": "client-state",
        "resource": rail.url + "/mcp",
    }
    # The client's loopback redirect: nothing listens there, the browser is answered.
    page.route(f"{REDIRECT}**", lambda route: route.fulfill(status=200, body="client"))
    page.goto(f"{rail.url}/oauth/authorize?{urlencode(params)}", wait_until="load")
    page.select_option("select[name=profile]", "trader")
    page.click("button[value=approve]")
    expect(page.locator("h1")).to_have_text("Sign in to the sandbox venue")
    credentials = rail.venue_credentials(user)
    page.fill("#username", credentials["username"])
    page.fill("#password", credentials["password"])
    page.click("button[value=approve]")
    page.wait_for_url(f"{rail.url}/oauth/callback**", timeout=WAIT_MS)
    page.click("#passkey-enrol")
    expect(page.locator("#passkey-status")).to_contain_text("now signs you in")
    secret = query(page.locator("#otpauth").inner_text())["secret"]
    rail.clock.advance(timedelta(seconds=30))
    page.fill("input[name=person_code]", pyotp.TOTP(secret).at(rail.clock.now()))
    page.click("button[value=confirm]")
    page.wait_for_url(f"{REDIRECT}**", timeout=WAIT_MS)
    return _exchange(rail, params["client_id"], query(page.url)["code"], verifier)


def _accounts(rail: Custodian, token: str) -> set[str]:
    """The agentic account numbers the connection of ``token`` sees at the venue."""
    session = McpSession(rail.url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
    finally:
        session.close()
    return {row["account_number"] for row in accounts if row["agentic_allowed"]}


def _sign_in(rail: Custodian, page: Any) -> str:
    """The person signs in to their console with the passkey: the connection it shows."""
    page.goto(f"{rail.url}/console/sign-in", wait_until="load")
    page.click("#person-sign-in")
    page.wait_for_url("**/console/mine", timeout=WAIT_MS)
    expect(page.locator("h1")).to_have_text("Your connection")
    shown: str = page.locator("#connection").get_attribute("data-connection")
    return shown


@pytest.mark.req("rail.person.passkey")
@pytest.mark.req("rail.person.console")
@pytest.mark.req("console.browser")
def test_two_people_each_register_a_passkey_and_see_only_their_own_connection_in_chromium(
    rail: Custodian, tmp_path: Path
) -> None:
    assert rail.url.startswith("http://localhost:")
    with (
        sync_playwright() as p,
        chromium_page(p, tmp_path / "alice") as alice,
        chromium_page(p, tmp_path / "bob") as bob,
    ):
        alice_token, bob_token = _connect(rail, alice, "alice"), _connect(rail, bob, "bob")
        alice_order = str(place_held(rail.url, alice_token)["approval_id"])
        rail.clock.advance(timedelta(seconds=31))
        bob_order = str(place_held(rail.url, bob_token)["approval_id"])
        # Each held order was filed on its person's own venue account.
        for token, user in ((alice_token, "alice"), (bob_token, "bob")):
            own = rail.venue.user(user).venue.accounts.agentic.account_number
            assert _accounts(rail, token) == {own}
        alice_id, bob_id = _sign_in(rail, alice), _sign_in(rail, bob)
        assert alice_id != bob_id
        assert {row["id"] for row in rail.rows()} == {alice_id, bob_id}
        for page, mine, theirs in ((alice, alice_order, bob_order), (bob, bob_order, alice_order)):
            page.goto(f"{rail.url}/console/mine", wait_until="load")
            expect(page.locator(f"[data-approval='{mine}']")).to_have_count(1)
            expect(page.locator(f"[data-approval='{theirs}']")).to_have_count(0)
            page.goto(f"{rail.url}/console/mine/approvals/{theirs}", wait_until="load")
            expect(page.locator("h1")).to_have_text("Refused")
        alice.goto(f"{rail.url}/console/mine/approvals/{alice_order}", wait_until="load")
        alice.click("button[data-passkey=approve]")
        expect(alice.locator("#passkey-status")).to_contain_text("The order is filled")
