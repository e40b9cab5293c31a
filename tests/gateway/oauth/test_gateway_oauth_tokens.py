"""The token endpoint: codes for tokens, tokens' lifetimes, rotation, and what is stored."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from gateway_oauth_kit import Gateway


def test_a_code_exchanges_for_a_bearer_token_pair_the_mcp_endpoint_accepts(
    gateway: Gateway,
) -> None:
    flow = gateway.flow()
    response = flow.exchange(flow.code())
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert body["scope"] == "gateway"
    assert len(body["access_token"]) == 43 and len(body["refresh_token"]) == 43
    grant = gateway.auth.verifier.verify(body["access_token"])
    assert grant is not None
    assert grant.client_id == flow.client_id and grant.scopes == ("gateway",)
    assert grant.expires_at.isoformat() == "2026-12-01T16:00:00+00:00"
    mcp = gateway.mcp(body["access_token"])
    assert mcp.status_code == 200 and mcp.json()["connection"] == grant.connection_id


def test_only_the_sha256_of_a_token_is_stored(gateway: Gateway) -> None:
    flow = gateway.flow()
    body = flow.tokens()
    rows = gateway.rows()
    stored = {row["token_sha256"]: row for row in rows["gateway_tokens"]}
    for kind, value in (("access", body["access_token"]), ("refresh", body["refresh_token"])):
        row = stored[hashlib.sha256(value.encode()).hexdigest()]
        assert row["kind"] == kind and row["client_id"] == flow.client_id
    assert stored[hashlib.sha256(body["refresh_token"].encode()).hexdigest()]["expires_at"] == (
        "2026-12-31T15:00:00.000000Z"
    )
    for value in gateway.minted:
        assert value not in str(rows)


def test_an_access_token_lives_one_hour(gateway: Gateway) -> None:
    access = gateway.flow().tokens()["access_token"]
    gateway.clock.advance(timedelta(minutes=59, seconds=59))
    assert gateway.auth.verifier.verify(access) is not None
    gateway.clock.advance(timedelta(seconds=1))
    assert gateway.auth.verifier.verify(access) is None
    assert gateway.mcp(access).status_code == 401


def test_a_code_lives_five_minutes(gateway: Gateway) -> None:
    flow = gateway.flow()
    code = flow.code()
    gateway.clock.advance(timedelta(minutes=5))
    response = flow.exchange(code)
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


def test_a_code_is_bound_to_its_client_and_redirect_uri(gateway: Gateway) -> None:
    flow = gateway.flow()
    other = gateway.flow()
    stolen = other.exchange(flow.code(), code_verifier=flow.verifier)
    assert stolen.json()["error"] == "invalid_grant"
    redirected = flow.exchange(flow.code(), redirect_uri="http://127.0.0.1:33418/other")
    assert redirected.json() == {
        "error": "invalid_grant",
        "error_description": "redirect_uri does not match the code",
    }


def test_a_refresh_rotates_both_tokens_and_retires_the_old_access_token(
    gateway: Gateway,
) -> None:
    flow = gateway.flow()
    first = flow.tokens()
    response = flow.refresh(first["refresh_token"], scope="gateway", resource=gateway.resource)
    assert response.status_code == 200
    second = response.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert gateway.auth.verifier.verify(first["access_token"]) is None
    new = gateway.auth.verifier.verify(second["access_token"])
    old_connection = gateway.rows()["connections"][0]["id"]
    assert new is not None and new.connection_id == old_connection
    third = flow.refresh(second["refresh_token"])
    assert third.status_code == 200


def test_a_refresh_token_lives_thirty_days(gateway: Gateway) -> None:
    flow = gateway.flow()
    refresh = flow.tokens()["refresh_token"]
    gateway.clock.advance(timedelta(days=30))
    assert flow.refresh(refresh).json()["error"] == "invalid_grant"


def test_a_dead_connection_gets_no_tokens(gateway: Gateway) -> None:
    flow = gateway.flow()
    body = flow.tokens()
    grant = gateway.auth.verifier.verify(body["access_token"])
    assert grant is not None
    code = flow.code()
    assert gateway.auth.store.mark_dead(grant.connection_id) is True
    assert gateway.auth.verifier.verify(body["access_token"]) is None
    assert flow.refresh(body["refresh_token"]).json()["error"] == "invalid_grant"
    # A code whose connection died before the exchange is worthless too.
    later = gateway.rows()["gateway_codes"]
    (pending_code,) = [row for row in later if row["used_at"] is None]
    assert gateway.auth.store.mark_dead(pending_code["connection_id"]) is True
    assert flow.exchange(code).json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"grant_type": "client_credentials", "client_id": "c"}, "unsupported_grant_type"),
        ({"grant_type": "password"}, "unsupported_grant_type"),
        ({}, "invalid_request"),
        ({"grant_type": "authorization_code", "code": "x"}, "invalid_request"),
        ({"grant_type": "authorization_code", "client_id": "c", "code": "x"}, "invalid_request"),
        ({"grant_type": "refresh_token", "client_id": "c"}, "invalid_request"),
        (
            {"grant_type": "refresh_token", "client_id": "c", "refresh_token": "r", "scope": "all"},
            "invalid_scope",
        ),
        ({"grant_type": "refresh_token", "client_id": "c", "refresh_token": "r"}, "invalid_grant"),
        (
            {"grant_type": "refresh_token", "client_id": "c", "refresh_token": "r" * 600},
            "invalid_grant",
        ),
        (
            {
                "grant_type": "authorization_code",
                "client_id": "c",
                "code": "never-issued",
                "redirect_uri": "http://127.0.0.1/cb",
                "code_verifier": "v" * 43,
            },
            "invalid_grant",
        ),
        (
            {
                "grant_type": "authorization_code",
                "client_id": "c",
                "code": "x" * 600,
                "redirect_uri": "http://127.0.0.1/cb",
                "code_verifier": "v" * 43,
            },
            "invalid_grant",
        ),
        # RFC 6749 §5.2: an unknown client is invalid_client (``c`` above is a registered one).
        (
            {"grant_type": "refresh_token", "client_id": "not-registered", "refresh_token": "r"},
            "invalid_client",
        ),
        (
            {
                "grant_type": "authorization_code",
                "client_id": "not-registered",
                "code": "never-issued",
                "redirect_uri": "http://127.0.0.1/cb",
                "code_verifier": "v" * 43,
            },
            "invalid_client",
        ),
    ],
)
def test_malformed_token_requests_are_refused_with_the_rfc_error(
    gateway: Gateway, data: dict[str, str], error: str
) -> None:
    registered = gateway.register()
    sent = {key: registered if value == "c" else value for key, value in data.items()}
    response = gateway.http.post("/oauth/token", data=sent)
    assert response.status_code == 400
    assert response.json()["error"] == error


def test_a_parameter_given_twice_at_the_token_endpoint_is_refused(gateway: Gateway) -> None:
    response = gateway.http.post(
        "/oauth/token",
        content=b"grant_type=refresh_token&grant_type=authorization_code",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.json()["error"] == "invalid_request"
