from __future__ import annotations

from datetime import timedelta

import httpx2
import pytest
from oauth_testkit import REDIRECT_URI, Flow, new_verifier
from starlette.routing import Router

from ordergate.core import SteppedClock
from ordergate.sandbox.oauth import SHARED_CLIENT_ID, OAuthServer

pytestmark = pytest.mark.anyio

TOKEN = "/oauth2/token/"


def assert_refused(response: httpx2.Response, error: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json()["error"] == error
    assert response.headers["cache-control"] == "no-store"


# -- authorization_code ---------------------------------------------------------------


async def test_code_exchange_returns_a_bearer_token_pair_for_scope_internal(
    flow: Flow, server: OAuthServer, clock: SteppedClock
) -> None:
    response = await flow.exchange(await flow.code())
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert body["token_type"] == "Bearer"
    assert body["scope"] == "internal"
    assert body["expires_in"] == 9 * 24 * 3600
    assert body["access_token"] != body["refresh_token"]
    grant = server.verify_access_token(body["access_token"])
    assert grant is not None
    assert grant.client_id == SHARED_CLIENT_ID
    assert grant.scope == "internal"
    assert grant.subject == "sandbox-user"
    assert grant.expires_at == clock.now() + timedelta(days=9)


async def test_refresh_token_is_not_an_access_token(flow: Flow, server: OAuthServer) -> None:
    body = await flow.tokens()
    assert server.verify_access_token(body["refresh_token"]) is None


async def test_wrong_code_verifier_is_refused(flow: Flow) -> None:
    response = await flow.exchange(await flow.code(), code_verifier=new_verifier())
    assert_refused(response, "invalid_grant")


@pytest.mark.parametrize("verifier", ["short", "x" * 129, "a" * 42 + "!"])
async def test_malformed_code_verifier_is_refused(flow: Flow, verifier: str) -> None:
    response = await flow.exchange(await flow.code(), code_verifier=verifier)
    assert_refused(response, "invalid_grant")


async def test_code_is_spent_by_a_failed_exchange(flow: Flow) -> None:
    code = await flow.code()
    await flow.exchange(code, code_verifier=new_verifier())
    assert_refused(await flow.exchange(code), "invalid_grant")


async def test_redirect_uri_must_match_the_authorized_one(flow: Flow) -> None:
    response = await flow.exchange(await flow.code(), redirect_uri="http://127.0.0.1:1/other")
    assert_refused(response, "invalid_grant")


async def test_wrong_resource_is_refused_with_invalid_target(flow: Flow) -> None:
    response = await flow.exchange(await flow.code(), resource="http://127.0.0.1:8790/mcp")
    assert_refused(response, "invalid_target")


async def test_unknown_client_is_refused_with_invalid_client(flow: Flow) -> None:
    response = await flow.exchange(await flow.code(), client_id="someone-else")
    assert_refused(response, "invalid_client")


@pytest.mark.parametrize("missing", ["client_id", "code", "redirect_uri", "code_verifier"])
async def test_a_missing_parameter_is_refused_with_invalid_request(
    flow: Flow, missing: str
) -> None:
    response = await flow.exchange(await flow.code(), **{missing: None})
    assert_refused(response, "invalid_request")


async def test_a_request_missing_a_parameter_does_not_spend_the_code(flow: Flow) -> None:
    code = await flow.code()
    await flow.exchange(code, code_verifier=None)
    assert (await flow.exchange(code)).status_code == 200


async def test_unknown_code_is_refused(flow: Flow) -> None:
    assert_refused(await flow.exchange("A" * 43), "invalid_grant")


async def test_code_replay_is_refused_and_revokes_the_tokens_issued_from_it(
    flow: Flow, server: OAuthServer
) -> None:
    code = await flow.code()
    first = (await flow.exchange(code)).json()
    assert server.verify_access_token(first["access_token"]) is not None
    assert_refused(await flow.exchange(code), "invalid_grant")
    assert server.verify_access_token(first["access_token"]) is None
    assert_refused(await flow.refresh(first["refresh_token"]), "invalid_grant")


async def test_code_replay_also_revokes_tokens_rotated_from_it(
    flow: Flow, server: OAuthServer
) -> None:
    code = await flow.code()
    first = (await flow.exchange(code)).json()
    rotated = (await flow.refresh(first["refresh_token"])).json()
    await flow.exchange(code)
    assert server.verify_access_token(rotated["access_token"]) is None
    assert_refused(await flow.refresh(rotated["refresh_token"]), "invalid_grant")


async def test_code_replay_leaves_other_sessions_alone(flow: Flow, server: OAuthServer) -> None:
    other = await flow.tokens()
    code = await flow.code()
    await flow.exchange(code)
    await flow.exchange(code)
    assert server.verify_access_token(other["access_token"]) is not None
    assert (await flow.refresh(other["refresh_token"])).status_code == 200


async def test_code_expires_after_its_lifetime(flow: Flow, clock: SteppedClock) -> None:
    code = await flow.code()
    clock.advance(timedelta(minutes=1))
    assert_refused(await flow.exchange(code), "invalid_grant")


async def test_code_is_usable_just_before_it_expires(flow: Flow, clock: SteppedClock) -> None:
    code = await flow.code()
    clock.advance(timedelta(seconds=59))
    assert (await flow.exchange(code)).status_code == 200


# -- refresh_token --------------------------------------------------------------------


async def test_refresh_rotates_and_the_old_refresh_token_is_refused_afterwards(
    flow: Flow, server: OAuthServer
) -> None:
    first = await flow.tokens()
    response = await flow.refresh(first["refresh_token"])
    assert response.status_code == 200
    second = response.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    assert server.verify_access_token(second["access_token"]) is not None
    assert_refused(await flow.refresh(first["refresh_token"]), "invalid_grant")
    third = await flow.refresh(second["refresh_token"])
    assert third.status_code == 200


async def test_refresh_works_after_the_access_token_expired(
    flow: Flow, server: OAuthServer, clock: SteppedClock
) -> None:
    first = await flow.tokens()
    clock.advance(timedelta(days=10))
    assert server.verify_access_token(first["access_token"]) is None
    second = (await flow.refresh(first["refresh_token"])).json()
    assert server.verify_access_token(second["access_token"]) is not None


async def test_expired_refresh_token_is_refused(flow: Flow, clock: SteppedClock) -> None:
    first = await flow.tokens()
    clock.advance(timedelta(days=90))
    assert_refused(await flow.refresh(first["refresh_token"]), "invalid_grant")


async def test_unknown_refresh_token_is_refused(flow: Flow) -> None:
    assert_refused(await flow.refresh("A" * 43), "invalid_grant")


async def test_refresh_by_an_unknown_client_is_refused_and_does_not_spend_it(
    flow: Flow,
) -> None:
    first = await flow.tokens()
    assert_refused(await flow.refresh(first["refresh_token"], client_id="x"), "invalid_client")
    assert (await flow.refresh(first["refresh_token"])).status_code == 200


@pytest.mark.parametrize(("scope", "status"), [("internal", 200), ("internal admin", 400)])
async def test_refresh_may_not_widen_the_scope(flow: Flow, scope: str, status: int) -> None:
    first = await flow.tokens()
    response = await flow.refresh(first["refresh_token"], scope=scope)
    assert response.status_code == status
    if status == 400:
        assert response.json()["error"] == "invalid_scope"


async def test_refresh_checks_the_resource_when_sent(flow: Flow) -> None:
    first = await flow.tokens()
    refused = await flow.refresh(first["refresh_token"], resource="https://elsewhere.example/")
    assert_refused(refused, "invalid_target")
    accepted = await flow.refresh(first["refresh_token"], resource=flow.server.resource)
    assert accepted.status_code == 200


async def test_refresh_without_a_refresh_token_is_invalid_request(flow: Flow) -> None:
    assert_refused(await flow.refresh("", client_id=SHARED_CLIENT_ID), "invalid_request")


# -- the endpoint itself ------------------------------------------------------------------


@pytest.mark.parametrize("grant_type", ["client_credentials", "password", "implicit"])
async def test_unsupported_grant_type_is_refused(
    client: httpx2.AsyncClient, grant_type: str
) -> None:
    response = await client.post(
        TOKEN, data={"grant_type": grant_type, "client_id": SHARED_CLIENT_ID}
    )
    assert_refused(response, "unsupported_grant_type")


async def test_missing_grant_type_is_invalid_request(client: httpx2.AsyncClient) -> None:
    assert_refused(await client.post(TOKEN, data={}), "invalid_request")


async def test_a_json_body_is_not_a_token_request(client: httpx2.AsyncClient) -> None:
    response = await client.post(TOKEN, json={"grant_type": "refresh_token"})
    assert_refused(response, "invalid_request")


async def test_a_repeated_parameter_is_invalid_request(flow: Flow) -> None:
    code = await flow.code()
    body = (
        f"grant_type=authorization_code&code={code}&code={code}&client_id={SHARED_CLIENT_ID}"
        f"&redirect_uri={REDIRECT_URI}&code_verifier={flow.verifier}"
    )
    response = await flow.client.post(
        TOKEN, content=body, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert_refused(response, "invalid_request")


async def test_a_file_upload_in_place_of_a_parameter_is_invalid_request(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.post(
        TOKEN, data={"client_id": SHARED_CLIENT_ID}, files={"grant_type": b"refresh_token"}
    )
    assert_refused(response, "invalid_request")


async def test_token_endpoint_is_post_only(client: httpx2.AsyncClient) -> None:
    assert (await client.get(TOKEN)).status_code == 405


async def test_too_many_fields_is_invalid_request(client: httpx2.AsyncClient) -> None:
    fields = {f"f{i}": "x" for i in range(40)}
    response = await client.post(TOKEN, data={"grant_type": "refresh_token", **fields})
    assert_refused(response, "invalid_request")


async def test_an_oversized_body_is_refused_with_413(client: httpx2.AsyncClient) -> None:
    response = await client.post(TOKEN, data={"grant_type": "x" * (70 * 1024)})
    assert response.status_code == 413


async def test_a_bad_form_is_invalid_request_even_in_a_bare_router(server: OAuthServer) -> None:
    transport = httpx2.ASGITransport(app=Router(routes=server.routes()))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8790") as http:
        response = await http.post(TOKEN, files={"grant_type": b"refresh_token"})
    assert_refused(response, "invalid_request")
