"""Native apps connect (issue 13 §3): private-use URI scheme redirects (RFC 8252 §7.1) and a
requested scope narrowed to the gateway's (RFC 6749 §3.3), over loopback HTTP.

Cursor registers ``cursor://anysphere.cursor-mcp/oauth/callback`` beside an https and a
loopback callback, in one request; the gateway took none of it before. A private-use
redirect is matched exactly like any other, and the consent page says the answer goes to an
app on this device.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from gateway_oauth_kit import REDIRECT, Gateway, location_params

from ordergate.gateway.oauth._pages import APP_REDIRECT
from ordergate.oauth import is_private_use, redirect_destination, redirect_uri_problem

CURSOR = "cursor://anysphere.cursor-mcp/oauth/callback"
# What Cursor's dynamic registration sends, all three in one request.
CURSOR_URIS = [
    CURSOR,
    "https://www.cursor.com/agents/mcp/oauth/callback",
    "http://localhost:8787/callback",
]


@pytest.mark.req("oauth.redirect.private-use")
def test_cursors_own_registration_is_accepted_with_all_three_redirects(gateway: Gateway) -> None:
    response = gateway.http.post(
        "/oauth/register",
        json={
            "client_name": "Cursor",
            "redirect_uris": CURSOR_URIS,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        },
    )
    assert response.status_code == 201, response.text
    assert response.json()["redirect_uris"] == CURSOR_URIS


@pytest.mark.req("oauth.redirect.private-use")
@pytest.mark.req("oauth.consent.app-redirect-warning")
def test_a_private_use_redirect_gets_the_code_after_a_warned_consent(gateway: Gateway) -> None:
    flow = gateway.flow(gateway.register(*CURSOR_URIS, name="Cursor"))
    page = flow.page(redirect_uri=CURSOR)
    assert page.status_code == 200, page.text
    assert f'<p class="notice" id="app-redirect">{APP_REDIRECT}</p>' in page.text
    assert '<code id="redirect-host">cursor://anysphere.cursor-mcp</code>' in page.text
    decided = flow.decide(flow.form(redirect_uri=CURSOR))
    assert decided.headers["location"].startswith(CURSOR + "?")
    params = location_params(decided)
    assert params["state"] == "state-123" and params["iss"] == gateway.url
    tokens = flow.exchange(params["code"], redirect_uri=CURSOR)
    assert tokens.status_code == 200, tokens.text
    assert gateway.mcp(tokens.json()["access_token"]).status_code == 200


@pytest.mark.req("oauth.consent.app-redirect-warning")
def test_a_web_redirect_is_not_warned_about_as_an_app(gateway: Gateway) -> None:
    https = "https://www.cursor.com/agents/mcp/oauth/callback"
    flow = gateway.flow(gateway.register(https))
    page = flow.page(redirect_uri=https)
    assert page.status_code == 200
    assert 'id="app-redirect"' not in page.text
    assert '<code id="redirect-host">www.cursor.com</code>' in page.text
    assert 'id="app-redirect"' not in gateway.flow().page().text


@pytest.mark.req("oauth.redirect.private-use")
def test_a_private_use_redirect_must_be_the_registered_one_exactly(gateway: Gateway) -> None:
    flow = gateway.flow(gateway.register(CURSOR))
    for other in (
        "cursor://anysphere.cursor-mcp/oauth/other",
        "cursor://evil.example/oauth/callback",
        "CURSOR://anysphere.cursor-mcp/oauth/callback",
        CURSOR + "?x=1",
    ):
        page = flow.page(redirect_uri=other)
        assert page.status_code == 400 and 'id="problem"' in page.text
        assert "location" not in page.headers


@pytest.mark.req("oauth.redirect.private-use")
@pytest.mark.parametrize(
    "uri",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "blob:https://app.example/1",
        "about:blank",
        "mailto:someone@example.com",
        "ws://127.0.0.1/cb",
        "http://app.example.com/cb",
        "cursor:",
        "cursor://",
        "cursor://anysphere.cursor-mcp/cb#fragment",
        "cursor://user:pw@anysphere.cursor-mcp/cb",
        "1cursor://anysphere.cursor-mcp/cb",
    ],
)
def test_schemes_that_are_no_apps_own_are_refused_at_registration(
    gateway: Gateway, uri: str
) -> None:
    response = gateway.http.post("/oauth/register", json={"redirect_uris": [uri]})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"
    assert gateway.rows()["gateway_clients"] == []


def test_the_reverse_domain_form_is_an_app_and_is_shown_by_its_scheme() -> None:
    assert redirect_uri_problem("com.example.app:/oauth2redirect") is None
    assert is_private_use("com.example.app:/oauth2redirect")
    assert redirect_destination("com.example.app:/oauth2redirect") == "com.example.app:"
    assert not is_private_use(REDIRECT) and not is_private_use("https://a.example/cb")
    assert redirect_destination(REDIRECT) == urlsplit(REDIRECT).netloc


@pytest.mark.req("oauth.scope.narrowed")
@pytest.mark.parametrize("asked", ["gateway offline_access", "offline_access gateway openid"])
def test_a_scope_beyond_the_gateways_is_narrowed_and_the_token_says_what_was_granted(
    gateway: Gateway, asked: str
) -> None:
    flow = gateway.flow()
    tokens = flow.exchange(flow.code(scope=asked))
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["scope"] == "gateway"
    # A refresh asks within what was granted (RFC 6749 §6): more is still invalid_scope.
    refused = flow.refresh(tokens.json()["refresh_token"], scope=asked)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_scope"


@pytest.mark.req("oauth.scope.narrowed")
@pytest.mark.parametrize("asked", ["offline_access", "gateway  offline_access"])
def test_a_scope_naming_nothing_offered_or_malformed_is_still_refused(
    gateway: Gateway, asked: str
) -> None:
    response = gateway.flow().page(scope=asked)
    assert location_params(response)["error"] == "invalid_scope"
