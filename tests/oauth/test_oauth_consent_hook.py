"""The consent hook and the profile choice, on the shared server with a consent path of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from oauth_testkit import challenge_of, new_verifier, parse_form, redirect_params
from starlette.applications import Starlette

from ordergate.core import ConfigError, SteppedClock
from ordergate.oauth import (
    Authorization,
    AuthorizationServer,
    ConsentField,
    ConsentPrompt,
    ConsentRefusal,
    MultiParams,
    Paths,
    ProfileChoice,
    SharedClient,
    single_param,
)
from ordergate.sandbox.oauth._grants import GrantStore
from ordergate.sandbox.oauth._pages import VenuePages

pytestmark = pytest.mark.anyio

ISSUER = "http://127.0.0.1:8790"
RESOURCE = ISSUER + "/mcp"
CLIENT = "the-client"
REDIRECT = "http://127.0.0.1:33418/callback"
CODE = "314159"
PATHS = Paths(authorization="/authorize", consent="/consent", token="/token", registration="/r")
PROFILES = ProfileChoice(
    options=(("trader", "places orders"), ("monitor", "reads only")), default="monitor"
)


@dataclass
class Asked:
    profile: str | None
    authorization: Authorization
    owner_code: str | None
    nonce_left: Authorization | None


@dataclass
class OwnerCode:
    """A consent hook shaped like the owner code: a password field, a notice, one right code."""

    store: GrantStore
    asked: list[Asked] = field(default_factory=list)

    async def prompt(self) -> ConsentPrompt:
        field = ConsentField(name="owner_code", label="Owner code", autocomplete="one-time-code")
        return ConsentPrompt(fields=(field,), notice="Enrol first: ordergate owner init.")

    async def check(
        self, *, form: MultiParams, profile: str | None, authorization: Authorization
    ) -> ConsentRefusal | None:
        pending, nonce = single_param(form, "pending"), single_param(form, "nonce")
        assert pending is not None and nonce is not None
        typed = single_param(form, "owner_code")
        left = await self.store.take_consent(pending, nonce)
        self.asked.append(Asked(profile, authorization, typed, left))
        if typed == CODE:
            return None
        return ConsentRefusal(status_code=401, problem="the owner code is not right")


@dataclass
class Served:
    http: httpx2.AsyncClient
    store: GrantStore
    hook: OwnerCode
    verifier: str = field(default_factory=new_verifier)

    async def form(self) -> dict[str, str]:
        params = {
            "response_type": "code",
            "client_id": CLIENT,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge_of(self.verifier),
            "code_challenge_method": "S256",
            "state": "s",
        }
        page = await self.http.get("/authorize", params=params)
        assert page.status_code == 200, page.text
        return parse_form(page.text).hidden

    async def decide(self, form: dict[str, str], **fields: str) -> httpx2.Response:
        return await self.http.post("/consent", data={"decision": "approve", **form, **fields})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    clock = SteppedClock(start=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))
    minute = timedelta(minutes=1)
    store = GrantStore(
        clock=clock,
        client_id=CLIENT,
        access_token_ttl=minute,
        refresh_token_ttl=minute,
        code_ttl=minute,
        consent_ttl=minute,
    )
    hook = OwnerCode(store)
    server = AuthorizationServer(
        issuer=ISSUER,
        resource=RESOURCE,
        scopes=("internal",),
        paths=PATHS,
        store=store,
        registrar=SharedClient(CLIENT),
        pages=VenuePages(),
        max_body_bytes=8192,
        profiles=PROFILES,
        consent_check=hook,
    )
    transport = httpx2.ASGITransport(app=Starlette(routes=server.routes()))
    async with httpx2.AsyncClient(transport=transport, base_url=ISSUER) as http:
        yield Served(http, store, hook)


async def test_the_hooks_fields_and_notice_are_in_the_consent_form_with_the_profile_choice(
    served: Served,
) -> None:
    page = await served.http.get(
        "/authorize",
        params={
            "response_type": "code",
            "client_id": CLIENT,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge_of(served.verifier),
            "code_challenge_method": "S256",
        },
    )
    text = page.text
    assert '<p class="notice" id="consent-notice">Enrol first: ordergate owner init.</p>' in text
    assert (
        '<input type="password" name="owner_code" id="owner_code" '
        'autocomplete="one-time-code" required>' in text
    )
    assert '<option value="monitor" selected>' in text
    assert text.index('value="monitor"') < text.index('value="trader"')
    assert set(parse_form(text).hidden) == {"pending", "nonce"}
    assert served.hook.asked == []


@pytest.mark.req("oauth.consent.hook")
async def test_the_hook_is_asked_on_approve_after_the_nonce_is_spent_and_the_profile_read(
    served: Served,
) -> None:
    denied = await served.decide(await served.form(), decision="deny")
    assert redirect_params(denied)["error"] == "access_denied"
    assert served.hook.asked == []

    approved = await served.decide(await served.form(), owner_code=CODE, profile="trader")
    assert "code" in redirect_params(approved)
    (asked,) = served.hook.asked
    assert asked.nonce_left is None  # already spent when the hook ran
    assert asked.profile == asked.authorization.profile == "trader"
    assert (asked.authorization.client_id, asked.owner_code) == (CLIENT, CODE)

    chosen_by_default = await served.decide(await served.form(), owner_code=CODE)
    assert "code" in redirect_params(chosen_by_default)
    assert served.hook.asked[-1].profile == "monitor"


@pytest.mark.req("oauth.consent.hook")
async def test_a_refusal_of_the_hook_is_shown_with_its_status_and_approves_nothing(
    served: Served,
) -> None:
    form = await served.form()
    refused = await served.decide(form, owner_code="000000")
    assert refused.status_code == 401
    assert "location" not in refused.headers
    assert "the owner code is not right" in refused.text
    assert "000000" not in refused.text
    assert served.store._codes == {}
    # The attempt spent the page: the right code on it now gets nothing either.
    again = await served.decide(form, owner_code=CODE)
    assert again.status_code == 400 and "expired or was already used" in again.text
    assert served.store._codes == {}


async def test_a_profile_not_offered_is_refused_before_the_hook_is_asked(served: Served) -> None:
    refused = await served.decide(await served.form(), owner_code=CODE, profile="root")
    assert refused.status_code == 400
    assert "profile is not one this server offers" in refused.text
    assert served.hook.asked == []
    assert served.store._codes == {}


async def test_a_hook_field_given_twice_is_a_400_page_that_approves_nothing(
    served: Served,
) -> None:
    form = await served.form()
    response = await served.http.post(
        "/consent",
        data={**form, "decision": "approve", "owner_code": [CODE, CODE]},
    )
    assert response.status_code == 400 and "owner_code" in response.text
    assert served.store._codes == {}


def test_a_refusal_must_carry_an_http_error_status() -> None:
    for status in (200, 302, 399, 600):
        with pytest.raises(ValueError, match="error status"):
            ConsentRefusal(status_code=status, problem="no")
    assert ConsentRefusal(status_code=503, problem="later").status_code == 503


def test_the_default_profile_must_be_offered_and_is_shown_first() -> None:
    with pytest.raises(ValueError, match="default"):
        ProfileChoice(options=(("trader", "places"),), default="monitor")
    assert [name for name, _ in PROFILES.options] == ["monitor", "trader"]
    assert "trader" in PROFILES and "root" not in PROFILES


def test_a_revocation_path_needs_a_revoker() -> None:
    store = GrantStore(
        clock=SteppedClock(start=datetime(2026, 12, 1, tzinfo=UTC)),
        client_id=CLIENT,
        access_token_ttl=timedelta(hours=1),
        refresh_token_ttl=timedelta(hours=1),
        code_ttl=timedelta(minutes=1),
        consent_ttl=timedelta(minutes=1),
    )
    with pytest.raises(ConfigError) as raised:
        AuthorizationServer(
            issuer=ISSUER,
            resource=RESOURCE,
            scopes=("internal",),
            paths=Paths(authorization="/a", token="/t", registration="/r", revocation="/x"),
            store=store,
            registrar=SharedClient(CLIENT),
            pages=VenuePages(),
            max_body_bytes=8192,
        )
    assert raised.value.key == "revocation"
