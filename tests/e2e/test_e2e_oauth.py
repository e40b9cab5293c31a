"""The venue's OAuth 2.1 flow as a public client runs it, over real loopback sockets."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from oauth_testkit import challenge_of, new_verifier, parse_form, redirect_params
from venue_testkit import ACCEPT_BOTH, VenueClient, running_venue

REDIRECT = "http://127.0.0.1:51234/callback"


@pytest.fixture
def venue() -> Iterator[VenueClient]:
    with running_venue() as client:
        client.token = None
        yield client


class PublicClient:
    """Discovery from the 401, registration, PKCE, consent by form POST, token exchange."""

    def __init__(self, venue: VenueClient) -> None:
        self.http = venue.http
        self.mcp_url = venue.mcp_url
        self.verifier = new_verifier()
        challenge = self.http.post(
            self.mcp_url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"accept": ACCEPT_BOTH},
        )
        assert challenge.status_code == 401
        match = re.search(r'resource_metadata="([^"]+)"', challenge.headers["www-authenticate"])
        assert match is not None
        resource_meta = self.http.get(match.group(1)).json()
        assert resource_meta["resource"] == self.mcp_url
        issuer = resource_meta["authorization_servers"][0]
        self.meta: dict[str, Any] = self.http.get(
            f"{issuer}/.well-known/oauth-authorization-server"
        ).json()
        registered = self.http.post(
            self.meta["registration_endpoint"],
            json={"client_name": "e2e", "redirect_uris": [REDIRECT]},
        )
        assert registered.status_code == 201
        self.client_id: str = registered.json()["client_id"]

    def code(self, state: str = "s-1") -> str:
        page = self.http.get(
            self.meta["authorization_endpoint"],
            params={
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge_of(self.verifier),
                "code_challenge_method": "S256",
                "state": state,
                "scope": "internal",
                "resource": self.mcp_url,
            },
        )
        assert page.status_code == 200
        form = parse_form(page.text).hidden
        approved = self.http.post(
            self.meta["authorization_endpoint"], data={**form, "decision": "approve"}
        )
        params = redirect_params(approved)
        assert params["state"] == state
        return params["code"]

    def exchange(self, code: str) -> httpx2.Response:
        return self.http.post(
            self.meta["token_endpoint"],
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "client_id": self.client_id,
                "code_verifier": self.verifier,
                "resource": self.mcp_url,
            },
        )

    def refresh(self, refresh_token: str) -> httpx2.Response:
        return self.http.post(
            self.meta["token_endpoint"],
            data={
                "grant_type": "refresh_token",
                "refresh_token": refresh_token,
                "client_id": self.client_id,
            },
        )


def _authorized_ping(venue: VenueClient, token: str) -> int:
    venue.token = token
    return venue.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code


@pytest.mark.req("oauth.flow.public-client")
def test_public_client_signs_in_and_calls_a_tool(venue: VenueClient) -> None:
    client = PublicClient(venue)
    assert client.meta["code_challenge_methods_supported"] == ["S256"]
    assert client.meta["token_endpoint_auth_methods_supported"] == ["none"]
    tokens = client.exchange(client.code()).json()
    assert tokens["token_type"] == "Bearer"
    assert tokens["scope"] == "internal"
    venue.token = tokens["access_token"]
    assert venue.data("get_accounts")["accounts"]


@pytest.mark.req("oauth.registration.shared-client-id")
def test_registration_returns_one_shared_public_client_id(venue: VenueClient) -> None:
    first = PublicClient(venue).client_id
    second = venue.http.post(
        f"{venue.base_url}/oauth/trading/register", json={"client_name": "another agent"}
    ).json()
    assert second["client_id"] == first
    assert second["token_endpoint_auth_method"] == "none"


@pytest.mark.req("oauth.refresh.rotation")
def test_refresh_rotates_and_the_old_refresh_token_is_refused(venue: VenueClient) -> None:
    client = PublicClient(venue)
    first = client.exchange(client.code()).json()
    second_response = client.refresh(first["refresh_token"])
    assert second_response.status_code == 200
    second = second_response.json()
    assert second["refresh_token"] != first["refresh_token"]
    replay = client.refresh(first["refresh_token"])
    assert replay.status_code == 400
    assert replay.json()["error"] == "invalid_grant"
    assert _authorized_ping(venue, second["access_token"]) == 200
    assert client.refresh(second["refresh_token"]).status_code == 200


@pytest.mark.req("oauth.code.single-use")
def test_code_replay_is_refused_and_revokes_what_the_code_issued(venue: VenueClient) -> None:
    client = PublicClient(venue)
    code = client.code()
    tokens = client.exchange(code).json()
    assert _authorized_ping(venue, tokens["access_token"]) == 200
    replay = client.exchange(code)
    assert replay.status_code == 400
    assert replay.json()["error"] == "invalid_grant"
    assert _authorized_ping(venue, tokens["access_token"]) == 401


@pytest.mark.req("oauth.pkce.s256-only")
def test_wrong_verifier_is_refused(venue: VenueClient) -> None:
    client = PublicClient(venue)
    code = client.code()
    client.verifier = new_verifier()
    response = client.exchange(code)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


@pytest.mark.req("oauth.pkce.s256-only")
def test_plain_pkce_is_refused_with_state_echoed(venue: VenueClient) -> None:
    client = PublicClient(venue)
    response = venue.http.get(
        client.meta["authorization_endpoint"],
        params={
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": client.verifier,
            "code_challenge_method": "plain",
            "state": "s-9",
        },
    )
    params = redirect_params(response)
    assert params["error"] == "invalid_request"
    assert params["state"] == "s-9"
