"""Helpers for the OAuth server tests: drive the browser half of the flow in-process."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pyotp
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from ordergate.sandbox.oauth import SHARED_CLIENT_ID, OAuthServer

ISSUER = "http://127.0.0.1:8790"
RESOURCE = ISSUER + "/mcp/trading"
REDIRECT_URI = "http://127.0.0.1:33418/callback"


def new_verifier() -> str:
    return secrets.token_urlsafe(64)[:96]


def challenge_of(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hidden: dict[str, str] = {}
        self.buttons: list[tuple[str, str]] = []
        self.forms: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self.forms.append(attributes)
        elif tag == "input" and attributes.get("type") == "hidden":
            self.hidden[attributes["name"] or ""] = attributes["value"] or ""
        elif tag == "button":
            self.buttons.append((attributes["name"] or "", attributes["value"] or ""))


def parse_form(html: str) -> _Inputs:
    parser = _Inputs()
    parser.feed(html)
    return parser


def redirect_params(response: httpx2.Response) -> dict[str, str]:
    """The single-valued query parameters of a 302's Location."""
    assert response.status_code == 302, response.text
    query = parse_qs(urlsplit(response.headers["location"]).query)
    return {key: values[0] for key, values in query.items()}


class Flow:
    """The authorization-code flow against an in-process server, step by step."""

    def __init__(self, client: httpx2.AsyncClient, server: OAuthServer) -> None:
        self.client = client
        self.server = server
        self.verifier = new_verifier()

    def authorize_params(self, **overrides: str | None) -> dict[str, str]:
        params: dict[str, str | None] = {
            "response_type": "code",
            "client_id": SHARED_CLIENT_ID,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": challenge_of(self.verifier),
            "code_challenge_method": "S256",
            "state": "state-123",
            "scope": "internal",
            "resource": RESOURCE,
        }
        params.update(overrides)
        return {key: value for key, value in params.items() if value is not None}

    async def consent_page(self, **overrides: str | None) -> httpx2.Response:
        return await self.client.get("/oauth", params=self.authorize_params(**overrides))

    async def consent_form(self, **overrides: str | None) -> dict[str, str]:
        page = await self.consent_page(**overrides)
        assert page.status_code == 200, page.text
        return parse_form(page.text).hidden

    async def decide(self, form: dict[str, str], decision: str = "approve") -> httpx2.Response:
        return await self.client.post("/oauth", data={**form, "decision": decision})

    async def code(self, **overrides: str | None) -> str:
        response = await self.decide(await self.consent_form(**overrides))
        return redirect_params(response)["code"]

    async def exchange(self, code: str | None, /, **overrides: str | None) -> httpx2.Response:
        data: dict[str, str | None] = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT_URI,
            "client_id": SHARED_CLIENT_ID,
            "code_verifier": self.verifier,
            "resource": RESOURCE,
        }
        data.update(overrides)
        return await self.client.post(
            "/oauth2/token/", data={k: v for k, v in data.items() if v is not None}
        )

    async def tokens(self) -> dict[str, Any]:
        response = await self.exchange(await self.code())
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    async def refresh(self, refresh_token: str, /, **overrides: str | None) -> httpx2.Response:
        data: dict[str, str | None] = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": SHARED_CLIENT_ID,
        }
        data.update(overrides)
        return await self.client.post(
            "/oauth2/token/", data={k: v for k, v in data.items() if v is not None}
        )


class MemoryTokenStorage:
    """The MCP SDK's ``TokenStorage`` kept in memory, for ``OAuthClientProvider`` in tests."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


_MAX_HOPS = 8
_OTPAUTH = re.compile(r'<code id="otpauth">([^<]+)</code>')


def person_enrolment(page_text: str, at: datetime) -> tuple[dict[str, str], str]:
    """A hosted rail's enrolment page (after the upstream sign-in), answered: the form to
    post back to the callback path with the person's first code at ``at``, and the secret
    the page showed (the person's authenticator keeps it)."""
    found = _OTPAUTH.search(page_text)
    assert found is not None, page_text
    uri = html.unescape(found.group(1))
    secret = parse_qs(urlsplit(uri).query)["secret"][0]
    form = {**parse_form(page_text).hidden, "person_code": pyotp.TOTP(secret).at(at)}
    return form, secret


class ConsentBrowser:
    """The person at a consent page, for an SDK ``OAuthClientProvider``'s redirect and
    callback handlers: opens the authorization URL, reads the page, presses Approve (a POST of
    the form, as a browser would), and hands the code (and ``iss``) back to the client."""

    def __init__(
        self,
        *,
        timeout_s: float = 30.0,
        profile: str | None = None,
        owner_code: Callable[[], str] | None = None,
        person_now: Callable[[], datetime] | None = None,
    ) -> None:
        self.timeout_s = timeout_s
        self.person_now = person_now or (lambda: datetime.now().astimezone())
        self.person_secrets: list[str] = []
        self.profile = profile
        self.owner_code = owner_code
        self.visited: list[str] = []
        self.pages: list[str] = []
        self.result: Any = None

    async def open(self, url: str) -> None:
        """Approve at ``url``; where the approval sends the browser on to sign in at an
        upstream first (a gateway in sealed custody), approve there too and follow the
        redirects back, carrying cookies, until one carries the code (bounded)."""
        from mcp.shared.auth import AuthorizationCodeResult

        self.visited.append(url)
        home = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        async with httpx2.AsyncClient(timeout=self.timeout_s) as browser:
            answer = await self._approve(browser, await browser.get(url), self.profile)
            for _ in range(_MAX_HOPS):
                assert answer.status_code == 302, answer.text
                location = answer.headers["location"]
                if location.startswith(home):
                    break
                self.visited.append(location)
                answer = await browser.get(location)
                if answer.status_code == 200 and 'name="person_code"' in answer.text:
                    form, secret = person_enrolment(answer.text, self.person_now())
                    self.person_secrets.append(secret)
                    answer = await browser.post(answer.url.copy_with(query=None), data=form)
                elif answer.status_code == 200:
                    answer = await self._approve(browser, answer, None)
        params = redirect_params(answer)
        self.result = AuthorizationCodeResult(
            code=params["code"], state=params.get("state"), iss=params.get("iss")
        )

    async def _approve(
        self, browser: httpx2.AsyncClient, page: httpx2.Response, profile: str | None
    ) -> httpx2.Response:
        assert page.status_code == 200, page.text
        self.pages.append(page.text)
        form = parse_form(page.text)
        assert ("decision", "approve") in form.buttons
        (form_tag,) = form.forms
        assert form_tag["method"] == "post"
        action = page.url.join(form_tag["action"] or "")
        chosen = {"profile": profile} if profile is not None else {}
        if self.owner_code is not None and 'name="owner_code"' in page.text:
            chosen["owner_code"] = self.owner_code()  # the owner types it, as asked
        return await browser.post(action, data={**form.hidden, **chosen, "decision": "approve"})

    async def callback(self) -> Any:
        assert self.result is not None, "the redirect handler never ran"
        return self.result


def sdk_provider(
    mcp_url: str,
    browser: ConsentBrowser,
    *,
    client_name: str,
    redirect: str,
    storage: MemoryTokenStorage | None = None,
) -> Any:
    """The MCP Python SDK's own OAuth client for the gateway's ``mcp_url``, signing in
    through its consent page (``browser`` approves)."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata
    from pydantic import AnyUrl

    return OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[AnyUrl(redirect)],
            client_name=client_name,
            token_endpoint_auth_method="none",
        ),
        storage=storage if storage is not None else MemoryTokenStorage(),
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )


@asynccontextmanager
async def sdk_session(
    url: str,
    browser: ConsentBrowser,
    *,
    client_name: str,
    redirect: str,
    bound_s: float,
    storage: MemoryTokenStorage | None = None,
) -> AsyncIterator[Any]:
    """The MCP Python SDK's ``ClientSession`` on the gateway at ``url``, signed in through
    its consent page by the SDK's own OAuth client (``browser`` approves), not yet
    initialised."""
    from mcp.client import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    mcp_url = url + "/mcp"
    provider = sdk_provider(
        mcp_url, browser, client_name=client_name, redirect=redirect, storage=storage
    )
    async with (
        httpx2.AsyncClient(auth=provider, timeout=bound_s) as http,
        streamable_http_client(mcp_url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        yield session
