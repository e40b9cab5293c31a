"""The metadata documents are plain dicts: each validates as the MCP SDK's model and is
served byte for byte as the SDK's handler would serve it."""

from __future__ import annotations

import httpx2
import pytest
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from starlette.applications import Starlette

from ordergate.oauth._documents import checked_url
from ordergate.oauth._rfc8414 import authorization_server_metadata, metadata_route
from ordergate.oauth._rfc9728 import protected_resource_metadata, protected_resource_routes

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("issuer", ["http://127.0.0.1:8787", "https://venue.test/auth"])
@pytest.mark.parametrize("revocation", [None, "/revoke"])
def test_the_authorization_server_document_is_what_the_sdk_model_renders(
    issuer: str, revocation: str | None
) -> None:
    document = authorization_server_metadata(
        issuer,
        authorization_path="/authorize",
        token_path="/token",
        registration_path="/register",
        revocation_path=revocation,
        scopes=["trade", "read"],
        iss_parameter=revocation is not None,
    )
    model = OAuthMetadata.model_validate(document)
    assert model.model_dump(mode="json", exclude_none=True) == document
    assert list(model.model_dump(exclude_none=True)) == list(document)


@pytest.mark.parametrize("name", [None, "ordergate"])
def test_the_protected_resource_document_is_what_the_sdk_model_renders(name: str | None) -> None:
    document = protected_resource_metadata(
        resource="http://127.0.0.1:8787/mcp", issuer="http://127.0.0.1:8787", scopes=["trade"],
        resource_name=name,
    )  # fmt: skip
    model = ProtectedResourceMetadata.model_validate(document)
    assert model.model_dump(mode="json", exclude_none=True) == document
    assert list(model.model_dump(exclude_none=True)) == list(document)


async def test_a_document_is_served_as_compact_json_cached_for_an_hour() -> None:
    issuer = "http://127.0.0.1:8787"
    routes = protected_resource_routes(resource=issuer + "/mcp", issuer=issuer, scopes=["trade"])
    document = authorization_server_metadata(
        issuer, authorization_path="/a", token_path="/t", registration_path="/r",
        revocation_path=None, scopes=["trade"], iss_parameter=False,
    )  # fmt: skip
    app = Starlette(routes=[*routes, metadata_route(document)])
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url=issuer) as http:
        served = await http.get("/.well-known/oauth-authorization-server")
        resource = await http.get("/.well-known/oauth-protected-resource/mcp")
    expected = OAuthMetadata.model_validate(document).model_dump_json(exclude_none=True)
    assert served.content == expected.encode()
    assert served.headers["cache-control"] == "public, max-age=3600"
    assert served.headers["content-type"] == "application/json"
    assert ProtectedResourceMetadata.model_validate_json(resource.content).resource_name is None


@pytest.mark.parametrize("url", ["/relative", "ftp://venue.test/x", "http://"])
def test_a_metadata_url_that_is_not_absolute_http_is_refused_naming_its_field(url: str) -> None:
    with pytest.raises(ValueError, match="token_endpoint must be an absolute http"):
        checked_url("token_endpoint", url)
