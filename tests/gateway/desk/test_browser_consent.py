"""The consent page in real Chromium: the owner approves a client as a trader with the owner
code, and the browser is sent back to the client's redirect URI with a code and its state.

A form post from a page served with ``Referrer-Policy: no-referrer`` carries ``Origin: null``
in Chromium, which the gateway's Origin check refuses; the httpx tests set ``Origin`` by hand
and could not see it.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from browser_kit import WAIT_MS, browser_console
from capture_testkit import capture_server

pytestmark = pytest.mark.req("oauth.consent.real-browser")


def test_the_owner_approves_a_client_on_the_consent_page_in_a_real_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with capture_server() as client_app, browser_console(tmp_path, monkeypatch) as browser:
        gateway = browser.desk.url
        redirect = f"{client_app.url}/callback"
        registered = httpx2.post(
            f"{gateway}/oauth/register",
            json={"redirect_uris": [redirect], "client_name": "Browser Client"},
            timeout=10,
        )
        assert registered.status_code == 201, registered.text
        verifier = secrets.token_urlsafe(48)
        challenge = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        query = urlencode(
            {
                "response_type": "code",
                "client_id": registered.json()["client_id"],
                "redirect_uri": redirect,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "state": "browser-state",
                "scope": "gateway",
                "resource": f"{gateway}/mcp",
            }
        )
        page = browser.page
        page.goto(f"{gateway}/oauth/authorize?{query}", wait_until="load")
        page.select_option("#profile", "trader")
        page.fill("#owner_code", browser.desk.codes.next())
        with page.expect_request(
            lambda request: request.url.startswith(f"{redirect}?"), timeout=WAIT_MS
        ) as sent_back:
            page.click("button[name=decision][value=approve]")
        answer = parse_qs(urlsplit(sent_back.value.url).query)
        assert answer["state"] == ["browser-state"]
        assert len(answer["code"][0]) >= 32
        assert [r.path.split("?")[0] for r in client_app.requests] == ["/callback"]
