"""A hosted rail's person in real Chromium: the whole consent flow on their own page (the
venue's sign-in as its named user, a passkey registered on the device's virtual authenticator,
their code confirmed), and their passkey signing them in to their console."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pyotp
from chromium_testkit import WAIT_MS, expect
from custody_kit import REDIRECT, Custodian, query
from mcp_http_testkit import McpSession
from oauth_testkit import challenge_of, new_verifier


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


def connect_in(rail: Custodian, page: Any, user: str) -> tuple[str, str]:
    """The person's whole consent flow in ``page``, signing in at the venue as ``user``, a
    passkey registered for the connection on its device's authenticator and their code
    confirmed: the client's access token and the person's code secret."""
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
    return _exchange(rail, params["client_id"], query(page.url)["code"], verifier), secret


def accounts_of(rail: Custodian, token: str) -> set[str]:
    """The agentic account numbers the connection of ``token`` sees at the venue."""
    session = McpSession(rail.url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
    finally:
        session.close()
    return {row["account_number"] for row in accounts if row["agentic_allowed"]}


def console_sign_in(rail: Custodian, page: Any) -> str:
    """The person signs in to their console with the passkey: the connection it shows."""
    page.goto(f"{rail.url}/console/sign-in", wait_until="load")
    page.click("#person-sign-in")
    page.wait_for_url("**/console/mine", timeout=WAIT_MS)
    expect(page.locator("h1")).to_have_text("Your connection")
    shown: str = page.locator("#connection").get_attribute("data-connection")
    return shown
