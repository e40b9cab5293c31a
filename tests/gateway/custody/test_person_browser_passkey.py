"""A hosted rail's person in real Chromium (a virtual authenticator of their own): the consent
page, the venue's sign-in, then on the page it ends on a passkey registered for their own
connection and their code confirmed; the passkey then signs them in to that connection's
console."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pyotp
import pytest
from chromium_testkit import WAIT_MS, chromium_page, expect, sync_playwright
from custody_kit import REDIRECT, Custodian, custodian, query
from oauth_testkit import challenge_of, new_verifier
from person_console_kit import HELD


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, policy=HELD, localhost=True) as served:
        yield served


def _exchange(rail: Custodian, client_id: str, code: str, verifier: str) -> None:
    """The client redeems its code, as its own process would (the connection is then one)."""
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


@pytest.mark.req("rail.person.passkey")
@pytest.mark.req("console.browser")
def test_a_person_registers_a_passkey_on_the_consent_flow_and_signs_in_to_their_console(
    rail: Custodian, tmp_path: Path
) -> None:
    assert rail.url.startswith("http://localhost:")
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
    with sync_playwright() as p, chromium_page(p, tmp_path / "person") as page:
        # The client's loopback redirect: nothing listens there, the browser is answered.
        page.route(f"{REDIRECT}**", lambda route: route.fulfill(status=200, body="client"))
        page.goto(f"{rail.url}/oauth/authorize?{urlencode(params)}", wait_until="load")
        page.select_option("select[name=profile]", "trader")
        page.click("button[value=approve]")
        expect(page.locator("h1")).to_have_text("Sign in to the sandbox venue")
        page.click("button[value=approve]")
        page.wait_for_url(f"{rail.url}/oauth/callback**", timeout=WAIT_MS)
        page.click("#passkey-enrol")
        expect(page.locator("#passkey-status")).to_contain_text("now signs you in")
        uri = page.locator("#otpauth").inner_text()
        secret = query(uri)["secret"]
        page.fill("input[name=person_code]", pyotp.TOTP(secret).at(rail.clock.now()))
        page.click("button[value=confirm]")
        page.wait_for_url(f"{REDIRECT}**", timeout=WAIT_MS)
        _exchange(rail, params["client_id"], query(page.url)["code"], verifier)
        page.goto(f"{rail.url}/console/sign-in", wait_until="load")
        page.click("#person-sign-in")
        page.wait_for_url("**/console/mine", timeout=WAIT_MS)
        expect(page.locator("h1")).to_have_text("Your connection")
        [row] = rail.rows()
        expect(page.locator("#connection")).to_have_attribute("data-connection", row["id"])
    assert row["person_passkey_sealed"] is not None
