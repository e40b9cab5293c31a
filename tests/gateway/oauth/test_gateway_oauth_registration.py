"""RFC 7591 registration: loopback or https redirect URIs only, a public client each."""

from __future__ import annotations

import pytest
from gateway_oauth_kit import Gateway


@pytest.mark.parametrize(
    "uris",
    [
        ["http://localhost:5173"],
        ["http://127.0.0.1:33418/callback"],
        ["http://127.0.0.1/oauth/cb?x=1", "http://localhost:9/a/b"],
        ["https://app.example.com/oauth/callback"],
        ["http://[::1]:8080/cb"],
    ],
)
def test_loopback_and_https_redirect_uris_are_registered_exactly_as_sent(
    gateway: Gateway, uris: list[str]
) -> None:
    response = gateway.http.post(
        "/oauth/register", json={"redirect_uris": uris, "client_name": "Cursor"}
    )
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["redirect_uris"] == uris
    assert body["client_name"] == "Cursor"
    client = gateway.auth.store.client(body["client_id"])
    assert client is not None and client.redirect_uris == tuple(uris)


def test_every_registration_gets_its_own_random_public_client_id(gateway: Gateway) -> None:
    request = {
        "redirect_uris": ["http://127.0.0.1:1/cb"],
        "token_endpoint_auth_method": "client_secret_post",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    bodies = [gateway.http.post("/oauth/register", json=request).json() for _ in range(3)]
    ids = {body["client_id"] for body in bodies}
    assert len(ids) == 3 and all(len(client_id) == 32 for client_id in ids)
    for body in bodies:
        # Asked for a secret-based method, it is a public client all the same.
        assert body["token_endpoint_auth_method"] == "none"
        assert "client_secret" not in body
        assert body["grant_types"] == ["authorization_code", "refresh_token"]
        assert body["client_id_issued_at"] == 1796137200
        assert "client_name" not in body
    assert len(gateway.rows()["gateway_clients"]) == 3


@pytest.mark.parametrize(
    "uris",
    [
        ["http://app.example.com/callback"],
        ["http://127.0.0.1.evil.example/cb"],
        ["http://localhost.evil.example/cb"],
        ["http://user@127.0.0.1/cb"],
        ["https://app.example.com/cb#fragment"],
        ["javascript:alert(1)"],
        ["data:text/html,hi"],
        ["ftp://127.0.0.1/cb"],
        ["https://app.example.com/a b"],
        ["http://127.0.0.1:33418/cb", "http://10.0.0.1/cb"],
        [],
        "http://127.0.0.1/cb",
        [42],
        [f"http://127.0.0.1:{port}/cb" for port in range(1, 12)],
        None,
    ],
)
def test_any_other_redirect_uri_is_refused_as_invalid_redirect_uri(
    gateway: Gateway, uris: object
) -> None:
    body = {"client_name": "x"} if uris is None else {"redirect_uris": uris}
    response = gateway.http.post("/oauth/register", json=body)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"
    assert gateway.rows()["gateway_clients"] == []


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b'["http://127.0.0.1/cb"]',
        b'{"redirect_uris": ["http://127.0.0.1/cb"], "client_name": "' + b"n" * 201 + b'"}',
        b'{"redirect_uris": ["http://127.0.0.1/cb"], "client_name": 7}',
        b'{"redirect_uris": ["http://127.0.0.1/cb"], "client_name": "Good\\u202egnp.exe"}',
        b'{"redirect_uris": ["http://127.0.0.1/cb"], "client_name": "two\\nlines"}',
        b'{"redirect_uris": ["http://127.0.0.1/cb"], "grant_types": ["client_credentials"]}',
        b'{"redirect_uris": ["http://127.0.0.1/cb"], "grant_types": "authorization_code"}',
        b'{"redirect_uris": ["http://127.0.0.1/cb"], "response_types": ["token"]}',
    ],
)
def test_other_unusable_metadata_is_refused_as_invalid_client_metadata(
    gateway: Gateway, content: bytes
) -> None:
    response = gateway.http.post(
        "/oauth/register", content=content, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    assert gateway.rows()["gateway_clients"] == []


@pytest.mark.req("oauth.registration.application-type")
@pytest.mark.parametrize(
    ("sent", "uris", "answered"),
    [
        ({"application_type": "native"}, ["http://127.0.0.1:33418/callback"], "native"),
        ({"application_type": "web"}, ["https://app.example.com/cb"], "web"),
        ({}, ["https://app.example.com/cb"], "web"),
        ({}, ["com.example.app:/oauth/cb"], "native"),
        ({"application_type": "native"}, ["com.example.app:/oauth/cb"], "native"),
    ],
)
def test_application_type_is_accepted_at_registration_and_answered(
    gateway: Gateway, sent: dict[str, str], uris: list[str], answered: str
) -> None:
    response = gateway.http.post("/oauth/register", json={"redirect_uris": uris, **sent})
    assert response.status_code == 201, response.text
    assert response.json()["application_type"] == answered


@pytest.mark.req("oauth.registration.application-type")
@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"redirect_uris": ["http://127.0.0.1/cb"], "application_type": "desktop"},
         "invalid_client_metadata"),
        ({"redirect_uris": ["http://127.0.0.1/cb"], "application_type": 1},
         "invalid_client_metadata"),
        ({"redirect_uris": ["com.example.app:/cb"], "application_type": "web"},
         "invalid_redirect_uri"),
    ],
)  # fmt: skip
def test_an_application_type_that_does_not_fit_is_refused(
    gateway: Gateway, body: dict[str, object], error: str
) -> None:
    response = gateway.http.post("/oauth/register", json=body)
    assert response.status_code == 400
    assert response.json()["error"] == error
    assert gateway.rows()["gateway_clients"] == []
