"""RFC 9207: the gateway names itself (``iss``) in every authorization response it redirects
— a code, a denial and every error sent back to the client — and says so in its metadata."""

from __future__ import annotations

import httpx2
import pytest
from gateway_oauth_kit import REDIRECT, Gateway, location_params

pytestmark = pytest.mark.req("oauth.iss.every-response")


def _redirected_with_iss(gateway: Gateway, response: httpx2.Response) -> dict[str, str]:
    params = location_params(response)
    assert response.headers["location"].startswith(REDIRECT + "?")
    assert params["iss"] == gateway.url
    return params


def test_the_metadata_says_iss_is_sent(gateway: Gateway) -> None:
    document = gateway.http.get("/.well-known/oauth-authorization-server").json()
    assert document["authorization_response_iss_parameter_supported"] is True
    assert document["issuer"] == gateway.url


def test_a_code_and_a_denial_carry_iss(gateway: Gateway) -> None:
    flow = gateway.flow()
    approved = _redirected_with_iss(gateway, flow.decide(flow.form()))
    assert "code" in approved
    denied = _redirected_with_iss(gateway, flow.decide(flow.form(), decision="deny"))
    assert denied["error"] == "access_denied"


@pytest.mark.parametrize(
    "overrides",
    [
        {"response_type": "token"},
        {"response_type": None},
        {"scope": "admin"},
        {"code_challenge": None},
        {"code_challenge_method": "plain"},
        {"code_challenge": "short"},
        {"resource": "https://elsewhere.example/mcp"},
    ],
)
def test_every_error_sent_back_to_the_client_carries_iss(
    gateway: Gateway, overrides: dict[str, str | None]
) -> None:
    params = _redirected_with_iss(gateway, gateway.flow().page(**overrides))
    assert params["error"]


def test_an_error_for_a_state_given_twice_carries_iss_without_a_state(gateway: Gateway) -> None:
    params = list(gateway.flow().params().items())
    response = gateway.http.get("/oauth/authorize", params=[*params, ("state", "x")])
    answer = _redirected_with_iss(gateway, response)
    assert answer["error"] == "invalid_request" and "state" not in answer
