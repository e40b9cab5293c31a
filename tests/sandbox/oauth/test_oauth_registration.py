from __future__ import annotations

import httpx2
import pytest
from mcp.client.auth.oauth2 import check_registration_usable
from mcp.client.auth.utils import handle_registration_response

from ordergate.sandbox.oauth import SHARED_CLIENT_ID

pytestmark = pytest.mark.anyio

REGISTER = "/oauth/trading/register"


async def test_two_different_registrations_get_the_same_shared_client_id(
    client: httpx2.AsyncClient,
) -> None:
    first = await client.post(
        REGISTER,
        json={"client_name": "Claude", "redirect_uris": ["http://127.0.0.1:1/cb"]},
    )
    second = await client.post(
        REGISTER,
        json={
            "client_name": "Cursor",
            "redirect_uris": ["https://cursor.example/cb"],
            "token_endpoint_auth_method": "client_secret_post",
            "grant_types": ["client_credentials"],
            "scope": "admin",
        },
    )
    assert first.status_code == second.status_code == 201
    assert first.json()["client_id"] == second.json()["client_id"] == SHARED_CLIENT_ID


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json at all",
        b"\xff\xfe\x00",
        b"[1, 2, 3]",
        b'"a string"',
        b"{" * 50_000,
        b"[" * 60_000,
    ],
)
async def test_registration_ignores_garbage_and_still_returns_the_shared_client(
    client: httpx2.AsyncClient, content: bytes
) -> None:
    response = await client.post(
        REGISTER, content=content, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 201
    assert response.json() == {
        "client_id": SHARED_CLIENT_ID,
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "scope": "internal",
    }
    assert response.headers["cache-control"] == "no-store"


async def test_registration_never_issues_a_secret_whatever_is_requested(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.post(
        REGISTER, json={"token_endpoint_auth_method": "client_secret_basic"}
    )
    body = response.json()
    assert "client_secret" not in body
    assert body["token_endpoint_auth_method"] == "none"


async def test_registration_echoes_redirect_uris_and_client_name(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.post(
        REGISTER,
        json={"client_name": "agent <x>", "redirect_uris": ["http://localhost:9/cb"]},
    )
    body = response.json()
    assert body["redirect_uris"] == ["http://localhost:9/cb"]
    assert body["client_name"] == "agent <x>"


@pytest.mark.parametrize(
    "sent",
    [
        {"redirect_uris": "http://localhost/cb", "client_name": 7},
        {"redirect_uris": [1, "http://localhost/cb"], "client_name": ""},
        {"redirect_uris": [], "client_name": None},
    ],
)
async def test_registration_does_not_echo_malformed_metadata(
    client: httpx2.AsyncClient, sent: dict[str, object]
) -> None:
    body = (await client.post(REGISTER, json=sent)).json()
    assert "redirect_uris" not in body
    assert "client_name" not in body


async def test_registration_response_is_a_client_record_the_mcp_sdk_accepts(
    client: httpx2.AsyncClient,
) -> None:
    sent = {
        "redirect_uris": ["http://127.0.0.1:33418/callback"],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "client_name": "ordergate",
        "application_type": "native",
    }
    info = await handle_registration_response(await client.post(REGISTER, json=sent))
    check_registration_usable(info)
    assert info.client_id == SHARED_CLIENT_ID
    assert info.client_secret is None
    assert [str(uri) for uri in info.redirect_uris or []] == sent["redirect_uris"]


async def test_registration_refuses_a_body_far_larger_than_any_client_sends(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.post(REGISTER, content=b" " * (65 * 1024))
    assert response.status_code == 413


async def test_registration_is_post_only(client: httpx2.AsyncClient) -> None:
    assert (await client.get(REGISTER)).status_code == 405
