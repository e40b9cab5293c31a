from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from oauth_testkit import REDIRECT_URI, RESOURCE, Flow, parse_form, redirect_params

from ordergate.core import SteppedClock
from ordergate.sandbox.oauth import SHARED_CLIENT_ID

pytestmark = pytest.mark.anyio


def assert_shown_not_redirected(response: httpx2.Response) -> None:
    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")


# -- the consent page ----------------------------------------------------------------


async def test_valid_request_shows_a_sandbox_consent_page_that_posts_back_with_a_nonce(
    flow: Flow,
) -> None:
    page = await flow.consent_page()
    assert page.status_code == 200
    assert "Sandbox venue — no real account" in page.text
    form = parse_form(page.text)
    assert form.forms == [{"method": "post", "action": "/oauth"}]
    assert ("decision", "approve") in form.buttons
    assert ("decision", "deny") in form.buttons
    hidden = form.hidden
    assert hidden["client_id"] == SHARED_CLIENT_ID
    assert hidden["redirect_uri"] == REDIRECT_URI
    assert hidden["state"] == "state-123"
    assert hidden["resource"] == RESOURCE
    assert hidden["code_challenge_method"] == "S256"
    assert len(hidden["nonce"]) >= 43


async def test_consent_page_cannot_be_framed_or_cached(flow: Flow) -> None:
    page = await flow.consent_page()
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "no-store"


async def test_consent_page_escapes_every_request_value(flow: Flow) -> None:
    hostile = '"><script>alert(1)</script>'
    page = await flow.consent_page(state=hostile)
    assert "<script>" not in page.text
    assert parse_form(page.text).hidden["state"] == hostile


async def test_each_consent_page_gets_its_own_nonce(flow: Flow) -> None:
    first = await flow.consent_form()
    second = await flow.consent_form()
    assert first["nonce"] != second["nonce"]


@pytest.mark.parametrize("scope", [None, "internal"])
async def test_scope_may_be_absent_or_internal(flow: Flow, scope: str | None) -> None:
    page = await flow.consent_page(scope=scope)
    assert page.status_code == 200


async def test_resource_may_be_absent(flow: Flow) -> None:
    code = await flow.code(resource=None)
    response = await flow.exchange(code, resource=None)
    assert response.status_code == 200


# -- errors shown on a page, never redirected ------------------------------------------


@pytest.mark.parametrize(
    "redirect_uri",
    [
        None,
        "http://example.com/callback",
        "http://127.0.0.1.evil.example/callback",
        "http://localhost@evil.example/callback",
        "http://user:pw@127.0.0.1/callback",
        "javascript:alert(1)",
        "data:text/html,hi",
        "ftp://127.0.0.1/cb",
        "https:///no-host",
        "https://app.example/cb#fragment",
        "http://127.0.0.1:99999/cb",
        "http://[::1/cb",
        "http://127.0.0.1/c b",
        "http://127.0.0.1\\@evil.example/",
        "/relative/callback",
        "https://app.example/" + "a" * 2100,
    ],
)
async def test_bad_redirect_uri_is_shown_on_a_page_and_never_redirected(
    flow: Flow, redirect_uri: str | None
) -> None:
    response = await flow.consent_page(redirect_uri=redirect_uri)
    assert_shown_not_redirected(response)
    assert 'id="problem"' in response.text


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://127.0.0.1:33418/callback",
        "http://127.0.0.1/",
        "http://localhost:8080/oauth/cb?x=1",
        "http://[::1]:9000/cb",
        "https://app.example/callback",
    ],
)
async def test_loopback_and_https_redirect_uris_are_accepted(flow: Flow, redirect_uri: str) -> None:
    response = await flow.consent_page(redirect_uri=redirect_uri)
    assert response.status_code == 200


@pytest.mark.parametrize("client_id", [None, "someone-else"])
async def test_unknown_or_missing_client_id_is_shown_and_never_redirected(
    flow: Flow, client_id: str | None
) -> None:
    response = await flow.consent_page(client_id=client_id)
    assert_shown_not_redirected(response)


async def test_repeated_redirect_uri_is_shown_and_never_redirected(
    client: httpx2.AsyncClient, flow: Flow
) -> None:
    params = (*flow.authorize_params().items(), ("redirect_uri", "https://evil.example/"))
    response = await client.get("/oauth", params=params)
    assert_shown_not_redirected(response)


# -- errors redirected to the client -----------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge_method": None}, "invalid_request"),
        ({"code_challenge": None}, "invalid_request"),
        ({"code_challenge": "too-short"}, "invalid_request"),
        ({"code_challenge": "=" * 43}, "invalid_request"),
        ({"response_type": None}, "invalid_request"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": "internal trade"}, "invalid_scope"),
        ({"scope": "admin"}, "invalid_scope"),
        ({"resource": "http://127.0.0.1:8790/mcp/other"}, "invalid_target"),
        ({"resource": "https://agent.robinhood.com/mcp/trading"}, "invalid_target"),
    ],
)
async def test_invalid_request_is_redirected_with_its_error_code_and_state(
    flow: Flow, overrides: dict[str, str | None], error: str
) -> None:
    response = await flow.consent_page(**overrides)
    params = redirect_params(response)
    assert params["error"] == error
    assert params["state"] == "state-123"
    assert params["error_description"]
    assert "code" not in params
    assert response.headers["location"].startswith(REDIRECT_URI + "?")


async def test_repeated_state_is_refused_without_echoing_either_value(
    client: httpx2.AsyncClient, flow: Flow
) -> None:
    params = (*flow.authorize_params().items(), ("state", "other"))
    response = await client.get("/oauth", params=params)
    params_back = redirect_params(response)
    assert params_back["error"] == "invalid_request"
    assert "state" not in params_back


async def test_repeated_parameter_is_refused_with_invalid_request(
    client: httpx2.AsyncClient, flow: Flow
) -> None:
    params = (*flow.authorize_params().items(), ("scope", "internal"))
    response = await client.get("/oauth", params=params)
    assert redirect_params(response)["error"] == "invalid_request"


# -- the decision -------------------------------------------------------------------------


async def test_approve_redirects_with_a_code_and_the_state(flow: Flow) -> None:
    response = await flow.decide(await flow.consent_form(state="xyz ä/?&="))
    params = redirect_params(response)
    assert params["state"] == "xyz ä/?&="
    assert len(params["code"]) >= 43
    assert set(params) == {"code", "state"}


async def test_approve_without_state_redirects_without_state(flow: Flow) -> None:
    response = await flow.decide(await flow.consent_form(state=None))
    assert set(redirect_params(response)) == {"code"}


async def test_deny_redirects_with_access_denied_and_the_state(flow: Flow) -> None:
    response = await flow.decide(await flow.consent_form(), decision="deny")
    params = redirect_params(response)
    assert params["error"] == "access_denied"
    assert params["state"] == "state-123"
    assert "code" not in params


async def test_redirect_keeps_the_query_of_the_redirect_uri(flow: Flow) -> None:
    uri = "http://localhost:7000/cb?session=abc"
    response = await flow.decide(await flow.consent_form(redirect_uri=uri))
    location = urlsplit(response.headers["location"])
    assert location.netloc == "localhost:7000"
    query = parse_qs(location.query)
    assert query["session"] == ["abc"]
    assert "code" in query


async def test_consent_nonce_cannot_be_replayed(flow: Flow) -> None:
    form = await flow.consent_form()
    first = await flow.decide(form)
    assert "code" in redirect_params(first)
    replay = await flow.decide(form)
    assert_shown_not_redirected(replay)


async def test_denied_consent_nonce_cannot_then_approve(flow: Flow) -> None:
    form = await flow.consent_form()
    await flow.decide(form, decision="deny")
    assert_shown_not_redirected(await flow.decide(form))


async def test_consent_nonce_expires_after_five_code_lifetimes(
    flow: Flow, clock: SteppedClock
) -> None:
    form = await flow.consent_form()
    clock.advance(timedelta(minutes=5))
    assert_shown_not_redirected(await flow.decide(form))


async def test_consent_nonce_is_usable_within_its_lifetime(flow: Flow, clock: SteppedClock) -> None:
    form = await flow.consent_form()
    clock.advance(timedelta(minutes=4, seconds=59))
    assert "code" in redirect_params(await flow.decide(form))


async def test_forged_nonce_is_refused(flow: Flow) -> None:
    form = await flow.consent_form()
    response = await flow.decide({**form, "nonce": "A" * 43})
    assert_shown_not_redirected(response)


async def test_missing_nonce_is_refused(flow: Flow) -> None:
    form = await flow.consent_form()
    del form["nonce"]
    assert_shown_not_redirected(await flow.decide(form))


@pytest.mark.parametrize(
    "field",
    ["redirect_uri", "code_challenge", "state", "resource"],
)
async def test_editing_a_hidden_field_invalidates_the_nonce(flow: Flow, field: str) -> None:
    form = await flow.consent_form()
    edited = {
        "redirect_uri": "http://127.0.0.1:4444/elsewhere",
        "code_challenge": "B" * 43,
        "state": "changed",
        "resource": None,
    }[field]
    changed = {key: value for key, value in form.items() if key != field}
    if edited is not None:
        changed[field] = edited
    assert_shown_not_redirected(await flow.decide(changed))


async def test_the_post_revalidates_its_parameters(flow: Flow) -> None:
    form = await flow.consent_form()
    response = await flow.decide({**form, "code_challenge_method": "plain"})
    assert redirect_params(response)["error"] == "invalid_request"


async def test_the_post_refuses_a_bad_redirect_uri_without_redirecting(flow: Flow) -> None:
    form = await flow.consent_form()
    response = await flow.decide({**form, "redirect_uri": "http://evil.example/cb"})
    assert_shown_not_redirected(response)


@pytest.mark.parametrize("decision", ["maybe", ""])
async def test_a_decision_other_than_approve_or_deny_is_refused(flow: Flow, decision: str) -> None:
    form = await flow.consent_form()
    assert_shown_not_redirected(await flow.decide(form, decision=decision))
    # The nonce was not spent by a malformed decision.
    assert "code" in redirect_params(await flow.decide(form))


async def test_a_repeated_decision_is_refused(client: httpx2.AsyncClient, flow: Flow) -> None:
    form = await flow.consent_form()
    fields = [*form.items(), ("decision", "deny"), ("decision", "approve")]
    response = await client.post(
        "/oauth",
        content=urlencode(fields),
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert_shown_not_redirected(response)
    assert "code" in redirect_params(await flow.decide(form))


async def test_a_form_with_a_file_is_shown_as_an_error(flow: Flow) -> None:
    form = await flow.consent_form()
    response = await flow.client.post("/oauth", data=form, files={"decision": b"approve"})
    assert_shown_not_redirected(response)
