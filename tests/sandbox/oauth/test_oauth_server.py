from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from oauth_testkit import ISSUER, RESOURCE, Flow
from starlette.routing import Route

import ordergate.sandbox.oauth as oauth
from ordergate.core import ConfigError, Secret, SteppedClock
from ordergate.sandbox.oauth import SHARED_CLIENT_ID, AccessGrant, OAuthServer, TokenPair

METADATA_URL = ISSUER + "/.well-known/oauth-protected-resource/mcp/trading"


def test_the_package_exports_exactly_its_public_interface() -> None:
    assert sorted(oauth.__all__) == [
        "AccessGrant",
        "OAuthServer",
        "SANDBOX_SUBJECT",
        "SHARED_CLIENT_ID",
        "TokenPair",
        "WRONG_CREDENTIALS",
        "user_password",
    ]


def test_shared_client_id_looks_like_a_uuid() -> None:
    assert str(uuid.UUID(SHARED_CLIENT_ID)) == SHARED_CLIENT_ID


def test_www_authenticate_names_the_resource_metadata(server: OAuthServer) -> None:
    assert server.www_authenticate() == f'Bearer resource_metadata="{METADATA_URL}"'


def test_www_authenticate_with_an_error_puts_the_error_first(server: OAuthServer) -> None:
    assert server.www_authenticate(error="invalid_token") == (
        f'Bearer error="invalid_token", resource_metadata="{METADATA_URL}"'
    )


@pytest.mark.parametrize("error", ['a"b', "a\\b", "line\nbreak", ""])
def test_www_authenticate_refuses_an_error_that_would_break_the_header(
    server: OAuthServer, error: str
) -> None:
    with pytest.raises(ValueError):
        server.www_authenticate(error=error)


def test_minted_access_token_verifies_until_it_expires_by_the_clock(
    server: OAuthServer, clock: SteppedClock
) -> None:
    pair = server.mint_tokens()
    assert pair.expires_in == 9 * 24 * 3600
    grant = server.verify_access_token(pair.access_token.reveal())
    assert grant == AccessGrant(
        client_id=SHARED_CLIENT_ID,
        scope="internal",
        expires_at=clock.now() + timedelta(days=9),
        subject="sandbox-user",
    )
    clock.advance(timedelta(days=9) - timedelta(seconds=1))
    assert server.verify_access_token(pair.access_token.reveal()) is not None
    clock.advance(timedelta(seconds=1))
    assert server.verify_access_token(pair.access_token.reveal()) is None


def test_unknown_access_token_does_not_verify(server: OAuthServer) -> None:
    server.mint_tokens()
    assert server.verify_access_token("not-a-token") is None
    assert server.verify_access_token("") is None


def test_expire_access_tokens_expires_every_live_token_and_counts_them(
    server: OAuthServer, clock: SteppedClock
) -> None:
    old = server.mint_tokens()
    clock.advance(timedelta(days=10))
    live = [server.mint_tokens(), server.mint_tokens()]
    assert server.expire_access_tokens() == 2
    for pair in [old, *live]:
        assert server.verify_access_token(pair.access_token.reveal()) is None
    assert server.expire_access_tokens() == 0
    fresh = server.mint_tokens()
    assert server.verify_access_token(fresh.access_token.reveal()) is not None


@pytest.mark.anyio
async def test_refresh_tokens_survive_expire_access_tokens(flow: Flow, server: OAuthServer) -> None:
    pair = server.mint_tokens()
    server.expire_access_tokens()
    response = await flow.refresh(pair.refresh_token.reveal())
    assert response.status_code == 200
    assert server.verify_access_token(response.json()["access_token"]) is not None


@pytest.mark.anyio
async def test_revoke_everything_refuses_every_access_and_refresh_token_issued_so_far(
    flow: Flow, server: OAuthServer
) -> None:
    pairs = [server.mint_tokens(), server.mint_tokens()]
    assert server.revoke_everything() == 2
    for pair in pairs:
        assert server.verify_access_token(pair.access_token.reveal()) is None
        assert (await flow.refresh(pair.refresh_token.reveal())).status_code == 400
    fresh = server.mint_tokens()
    assert server.verify_access_token(fresh.access_token.reveal()) is not None


def test_custom_lifetimes_are_honoured(clock: SteppedClock) -> None:
    server = OAuthServer(
        issuer=ISSUER, resource=RESOURCE, clock=clock, access_token_ttl=timedelta(minutes=5)
    )
    pair = server.mint_tokens()
    assert pair.expires_in == 300
    clock.advance(timedelta(minutes=5))
    assert server.verify_access_token(pair.access_token.reveal()) is None


def test_a_custom_client_id_is_the_one_registration_hands_out(clock: SteppedClock) -> None:
    server = OAuthServer(issuer=ISSUER, resource=RESOURCE, clock=clock, client_id="abc")
    assert server.client_id == "abc"
    grant = server.verify_access_token(server.mint_tokens().access_token.reveal())
    assert grant is not None
    assert grant.client_id == "abc"


def test_no_token_value_appears_in_any_repr(server: OAuthServer) -> None:
    pair = server.mint_tokens()
    grant = server.verify_access_token(pair.access_token.reveal())
    shown = " ".join([repr(pair), str(pair), repr(grant), str(grant), repr(server)])
    assert pair.access_token.reveal() not in shown
    assert pair.refresh_token.reveal() not in shown
    assert isinstance(pair.access_token, Secret)
    assert isinstance(pair, TokenPair)


@pytest.mark.parametrize(
    ("issuer", "resource", "key"),
    [
        (ISSUER + "/", RESOURCE, "issuer"),
        ("127.0.0.1:8790", RESOURCE, "issuer"),
        ("ftp://127.0.0.1", "ftp://127.0.0.1/mcp", "issuer"),
        (ISSUER + "/base", ISSUER + "/base/mcp", "issuer"),
        (ISSUER + "?x=1", RESOURCE, "issuer"),
        (ISSUER, "http://127.0.0.1:9999/mcp/trading", "resource"),
        (ISSUER, ISSUER, "resource"),
        (ISSUER, RESOURCE + "#x", "resource"),
        (ISSUER, "http://127.0.0.1:87900/mcp", "resource"),
    ],
)
def test_a_malformed_issuer_or_resource_is_a_config_error(
    clock: SteppedClock, issuer: str, resource: str, key: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        OAuthServer(issuer=issuer, resource=resource, clock=clock)
    assert raised.value.key == key


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("access_token_ttl", timedelta(0)),
        ("access_token_ttl", timedelta(milliseconds=500)),
        ("refresh_token_ttl", timedelta(seconds=-1)),
        ("code_ttl", timedelta(0)),
    ],
)
def test_a_lifetime_that_is_not_positive_is_a_config_error(
    clock: SteppedClock, setting: str, value: timedelta
) -> None:
    lifetimes: dict[str, Any] = {setting: value}
    with pytest.raises(ConfigError) as raised:
        OAuthServer(issuer=ISSUER, resource=RESOURCE, clock=clock, **lifetimes)
    assert raised.value.key == setting


def test_routes_cover_every_oauth_endpoint(server: OAuthServer) -> None:
    routes = server.routes()
    assert all(isinstance(route, Route) for route in routes)
    paths = {route.path for route in routes if isinstance(route, Route)}
    assert paths == {
        "/.well-known/oauth-protected-resource/mcp/trading",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
        "/oauth/trading/register",
        "/oauth",
        "/oauth2/token/",
    }
    assert server.issuer == ISSUER
    assert server.resource == RESOURCE
