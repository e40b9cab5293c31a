from __future__ import annotations

import httpx2
import pytest
from mcp.client.auth.utils import validate_metadata_issuer
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from oauth_testkit import ISSUER, RESOURCE

pytestmark = pytest.mark.anyio

EXPECTED_PRM = {
    "resource": RESOURCE,
    "authorization_servers": [ISSUER],
    "scopes_supported": ["internal"],
    "bearer_methods_supported": ["header"],
}


async def test_protected_resource_metadata_is_served_at_the_path_specific_url(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.get("/.well-known/oauth-protected-resource/mcp/trading")
    assert response.status_code == 200
    assert response.json() == EXPECTED_PRM


async def test_protected_resource_metadata_is_also_served_at_the_bare_well_known_url(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.get("/.well-known/oauth-protected-resource")
    assert response.status_code == 200
    assert response.json() == EXPECTED_PRM


async def test_authorization_server_metadata_publishes_the_live_endpoints(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    assert response.json() == {
        "issuer": ISSUER,
        "authorization_endpoint": ISSUER + "/oauth",
        "token_endpoint": ISSUER + "/oauth2/token/",
        "registration_endpoint": ISSUER + "/oauth/trading/register",
        "scopes_supported": ["internal"],
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
    }


async def test_metadata_documents_satisfy_the_mcp_sdk_discovery_checks(
    client: httpx2.AsyncClient,
) -> None:
    prm_body = await client.get("/.well-known/oauth-protected-resource/mcp/trading")
    prm = ProtectedResourceMetadata.model_validate_json(prm_body.content)
    asm_body = await client.get("/.well-known/oauth-authorization-server")
    asm = OAuthMetadata.model_validate_json(asm_body.content)
    # The SDK compares the metadata issuer, as a string, with the server the PRM named.
    validate_metadata_issuer(asm, str(prm.authorization_servers[0]))
    assert str(prm.resource) == RESOURCE


async def test_metadata_documents_refuse_post(client: httpx2.AsyncClient) -> None:
    response = await client.post("/.well-known/oauth-authorization-server")
    assert response.status_code == 405
