"""Discovery: the 401 challenge, RFC 9728 and RFC 8414 metadata, and the server's own config."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from gateway_oauth_kit import START, Gateway

from ordergate.core import ConfigError, SteppedClock
from ordergate.gateway.oauth import GatewayAuth
from ordergate.ledger import open_ledger


def test_an_mcp_request_without_a_token_is_answered_401_naming_the_resource_metadata(
    gateway: Gateway,
) -> None:
    response = gateway.mcp(None)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{gateway.url}/.well-known/oauth-protected-resource/mcp"'
    )
    refused = gateway.mcp("not-a-token")
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == (
        f'Bearer error="invalid_token", '
        f'resource_metadata="{gateway.url}/.well-known/oauth-protected-resource/mcp"'
    )


def test_the_challenge_refuses_an_error_that_would_break_the_header(gateway: Gateway) -> None:
    with pytest.raises(ValueError, match="quotes"):
        gateway.auth.verifier.www_authenticate('x", realm="evil')


def test_the_protected_resource_metadata_names_the_mcp_endpoint_and_the_gateway(
    gateway: Gateway,
) -> None:
    for path in ("/mcp", ""):
        response = gateway.http.get("/.well-known/oauth-protected-resource" + path)
        assert response.status_code == 200
        document = response.json()
        assert document["resource"] == gateway.url + "/mcp"
        assert document["authorization_servers"] == [gateway.url]
        assert document["scopes_supported"] == ["gateway"]
        assert document["bearer_methods_supported"] == ["header"]
    assert gateway.auth.verifier.metadata_url == (
        gateway.url + "/.well-known/oauth-protected-resource/mcp"
    )


def test_the_authorization_server_metadata_offers_public_clients_and_s256_only(
    gateway: Gateway,
) -> None:
    document = gateway.http.get("/.well-known/oauth-authorization-server").json()
    url = gateway.url
    assert document["issuer"] == url
    assert document["authorization_endpoint"] == url + "/oauth/authorize"
    assert document["token_endpoint"] == url + "/oauth/token"
    assert document["registration_endpoint"] == url + "/oauth/register"
    assert document["revocation_endpoint"] == url + "/oauth/revoke"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["token_endpoint_auth_methods_supported"] == ["none"]
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert document["response_types_supported"] == ["code"]
    assert document["authorization_response_iss_parameter_supported"] is True
    assert gateway.auth.issuer == url and gateway.auth.resource == url + "/mcp"


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"public_url": "127.0.0.1:8787"}, "public_url"),
        ({"public_url": "http://127.0.0.1:8787/"}, "public_url"),
        ({"public_url": "http://127.0.0.1:8787/gw"}, "public_url"),
        ({"access_ttl": timedelta(0)}, "access_ttl"),
        ({"access_ttl": timedelta(milliseconds=500)}, "access_ttl"),
        ({"refresh_ttl": timedelta(seconds=-1)}, "refresh_ttl"),
        ({"code_ttl": timedelta(0)}, "code_ttl"),
        ({"consent_ttl": timedelta(0)}, "consent_ttl"),
    ],
)
def test_an_unusable_setting_is_refused_naming_it(
    tmp_path: Path, settings: dict[str, object], key: str
) -> None:
    clock = SteppedClock(start=START)
    arguments: dict[str, object] = {"public_url": "http://127.0.0.1:8787", **settings}
    with (
        open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=clock) as ledger,
        pytest.raises(ConfigError) as raised,
    ):
        GatewayAuth(ledger.engine, clock=clock, **arguments)  # type: ignore[arg-type]
    assert raised.value.key == key
