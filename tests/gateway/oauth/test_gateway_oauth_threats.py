"""One test per threat in seed 001's list that the authorization server answers."""

from __future__ import annotations

import pytest
from gateway_oauth_kit import START, Gateway, challenge_of, location_params

from ordergate.core import SteppedClock
from ordergate.sandbox.oauth import OAuthServer


@pytest.mark.req("gateway.threat.code-replay")
def test_code_replay_ends_the_connection_and_every_token_issued_from_it(
    gateway: Gateway,
) -> None:
    flow = gateway.flow()
    code = flow.code()
    first = flow.exchange(code).json()
    grant = gateway.auth.verifier.verify(first["access_token"])
    assert grant is not None
    refreshed = flow.refresh(first["refresh_token"]).json()

    replay = flow.exchange(code)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    for token in (first["access_token"], refreshed["access_token"]):
        assert gateway.auth.verifier.verify(token) is None
    assert flow.refresh(refreshed["refresh_token"]).json()["error"] == "invalid_grant"
    connection = gateway.auth.store.connection(grant.connection_id)
    assert connection is not None and connection.state == "erased"
    assert gateway.rows()["gateway_tokens"] == []


@pytest.mark.parametrize(
    "requested",
    [
        "https://attacker.example/callback",
        "http://127.0.0.1:33418/callback/../steal",
        "http://127.0.0.1:33418/other",
        "http://127.0.0.1:33418/callback?next=https://attacker.example",
        "http://127.0.0.1:33418/callback#x",
        "http://localhost:33418/callback",
        "http://127.0.0.1.attacker.example:33418/callback",
        "http://127.0.0.1:33418/Callback",
        "http://127.0.0.1:33418\\@attacker.example/callback",
    ],
)
@pytest.mark.req("gateway.threat.open-redirect")
def test_open_redirect_an_unregistered_redirect_uri_gets_an_html_page_and_no_redirect(
    gateway: Gateway, requested: str
) -> None:
    response = gateway.flow().page(redirect_uri=requested)
    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert "redirect_uri is not one this client registered" in response.text
    assert gateway.rows()["gateway_pending"] == []


def test_open_redirect_on_https_even_the_port_must_match(gateway: Gateway) -> None:
    flow = gateway.flow(gateway.register("https://app.example.com/cb"))
    assert flow.page(redirect_uri="https://app.example.com/cb").status_code == 200
    elsewhere = flow.page(redirect_uri="https://app.example.com:8443/cb")
    assert elsewhere.status_code == 400 and "location" not in elsewhere.headers


@pytest.mark.parametrize(
    "tamper",
    [
        lambda form: {"pending": form["pending"]},
        lambda form: {"nonce": form["nonce"]},
        lambda form: {**form, "nonce": "forged-" + form["nonce"][7:]},
        lambda form: {**form, "pending": "0" * 32},
        lambda form: {**form, "nonce": "n" * 600},
    ],
    ids=["no-nonce", "no-pending", "wrong-nonce", "other-pending", "oversized-nonce"],
)
def test_a_consent_post_without_its_nonce_is_refused(gateway: Gateway, tamper: object) -> None:
    flow = gateway.flow()
    form = flow.form()
    response = flow.decide(tamper(form))  # type: ignore[operator]
    assert response.status_code == 400
    assert "location" not in response.headers
    assert gateway.rows()["connections"] == []
    # The real page still works: a forged post spent nothing.
    assert "code" in location_params(flow.decide(form))


@pytest.mark.req("gateway.threat.consent-nonce")
def test_a_reused_consent_nonce_is_refused(gateway: Gateway) -> None:
    flow = gateway.flow()
    form = flow.form()
    assert "code" in location_params(flow.decide(form))
    for decision in ("approve", "deny"):
        again = flow.decide(form, decision)
        assert again.status_code == 400
        assert "expired or was already used" in again.text
        assert "location" not in again.headers
    assert len(gateway.rows()["connections"]) == 1


@pytest.mark.parametrize(
    "overrides",
    [
        {"code_challenge_method": "plain"},
        {"code_challenge_method": None},
        {"code_challenge": None},
        {"code_challenge": None, "code_challenge_method": None},
    ],
    ids=["plain", "method-missing", "challenge-missing", "no-pkce"],
)
def test_pkce_plain_or_missing_is_refused(
    gateway: Gateway, overrides: dict[str, str | None]
) -> None:
    flow = gateway.flow()
    if overrides.get("code_challenge_method", "S256") == "plain":
        overrides = {**overrides, "code_challenge": flow.verifier[:43]}
    params = location_params(flow.page(**overrides))
    assert params["error"] == "invalid_request"
    assert "code" not in params
    assert gateway.rows()["gateway_pending"] == []


@pytest.mark.parametrize("verifier", ["wrong-" + "v" * 43, "short", None])
@pytest.mark.req("gateway.threat.pkce")
def test_pkce_a_wrong_verifier_is_refused_and_the_code_is_spent(
    gateway: Gateway, verifier: str | None
) -> None:
    flow = gateway.flow()
    code = flow.code()
    if verifier is None:
        # The plain method's answer: the challenge itself as the verifier.
        verifier = challenge_of(flow.verifier)
    refused = flow.exchange(code, code_verifier=verifier)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
    assert flow.exchange(code).json()["error"] == "invalid_grant"


@pytest.mark.req("gateway.threat.resource-mismatch")
def test_resource_mismatch_is_refused_at_authorize_and_at_the_token_endpoint(
    gateway: Gateway,
) -> None:
    flow = gateway.flow()
    for resource in (gateway.url, gateway.url + "/mcp/", "https://agent.robinhood.com/mcp"):
        params = location_params(flow.page(resource=resource))
        assert params["error"] == "invalid_target" and params["state"] == "state-123"
    assert gateway.rows()["gateway_pending"] == []
    code = flow.code(resource=None)
    refused = flow.exchange(code, resource="https://agent.robinhood.com/mcp")
    assert refused.json()["error"] == "invalid_target"
    # Refused before the code was looked at: it still exchanges, without a resource too.
    assert flow.exchange(code, resource=None).status_code == 200


@pytest.mark.req("gateway.threat.refresh-reuse")
def test_refresh_token_reuse_revokes_every_token_of_the_connection(gateway: Gateway) -> None:
    flow = gateway.flow()
    first = flow.tokens()
    second = flow.refresh(first["refresh_token"]).json()
    grant = gateway.auth.verifier.verify(second["access_token"])
    assert grant is not None

    reuse = flow.refresh(first["refresh_token"])
    assert reuse.status_code == 400 and reuse.json()["error"] == "invalid_grant"
    assert gateway.auth.verifier.verify(second["access_token"]) is None
    assert flow.refresh(second["refresh_token"]).json()["error"] == "invalid_grant"
    connection = gateway.auth.store.connection(grant.connection_id)
    assert connection is not None and connection.state == "erased"


def test_a_refresh_with_another_clients_id_is_refused(gateway: Gateway) -> None:
    flow = gateway.flow()
    other = gateway.flow()
    tokens = flow.tokens()
    refused = flow.refresh(tokens["refresh_token"], client_id=other.client_id)
    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid_grant"
    missing = flow.refresh(tokens["refresh_token"], client_id=None)
    assert missing.json()["error"] == "invalid_request"
    # Refused, not spent: the rightful client still refreshes, and nothing was revoked.
    assert gateway.auth.verifier.verify(tokens["access_token"]) is not None
    assert flow.refresh(tokens["refresh_token"]).status_code == 200


@pytest.mark.req("gateway.threat.foreign-token")
def test_a_token_the_gateway_did_not_mint_is_refused(gateway: Gateway) -> None:
    upstream = OAuthServer(
        issuer="http://127.0.0.1:8790",
        resource="http://127.0.0.1:8790/mcp/trading",
        clock=SteppedClock(start=START),
    ).mint_tokens()
    flow = gateway.flow()
    own = flow.tokens()
    code = flow.code()
    foreign = [
        upstream.access_token.reveal(),  # the upstream's own (sandbox Robinhood) token
        upstream.refresh_token.reveal(),
        own["refresh_token"],  # the gateway's, but not an access token
        code,
        challenge_of(flow.verifier),
        "",
        "x" * 10_000,
    ]
    for token in foreign:
        assert gateway.auth.verifier.verify(token) is None
    for token in foreign[:4]:
        response = gateway.mcp(token)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    assert gateway.mcp(own["access_token"]).status_code == 200
