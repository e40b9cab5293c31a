"""``login`` against the venue over loopback: environment tokens, and the browser flow driven
by a fake browser that reads the consent page, presses a button and follows the redirect."""

from __future__ import annotations

import json
import socket
import stat
import webbrowser
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import anyio
import httpx2
import pytest
from oauth_testkit import parse_form
from venue_testkit import VenueClient

from ordergate.client import Config, LoginRequired, connect, login, read_token_file
from ordergate.client._browser import open_in_browser
from ordergate.client._catcher import catch_redirect
from ordergate.client._discovery import AuthorizationServer, discover
from ordergate.client._errors import TransportError
from ordergate.client._login import _authorization_url, _code_from
from ordergate.client._registration import register
from ordergate.client._rfc6749 import request_tokens
from ordergate.core import Secret
from ordergate.sandbox.oauth import SHARED_CLIENT_ID

pytestmark = pytest.mark.anyio

BOUND_S = 30
NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def config_for(venue: VenueClient, tmp_path: Path, name: str = "ordergate-test") -> Config:
    return Config(url=venue.mcp_url, token_file=tmp_path / "home" / "tokens.json", name=name)


async def no_browser(url: str) -> None:
    raise AssertionError(f"a browser was opened: {url}")


class FakeBrowser:
    """The person at the consent page. ``decision`` is the button pressed; ``tamper`` edits
    the redirect's query before it is followed (a forged answer)."""

    def __init__(self, decision: str = "approve", tamper: dict[str, str] | None = None) -> None:
        self.decision = decision
        self.tamper = tamper or {}
        self.visited: list[str] = []
        self.catcher_status: int | None = None
        self.catcher_page = ""

    async def __call__(self, url: str) -> None:
        self.visited.append(url)
        async with httpx2.AsyncClient(timeout=BOUND_S) as browser:
            page = await browser.get(url)
            assert page.status_code == 200, page.text
            form = parse_form(page.text)
            (form_tag,) = form.forms
            action = page.url.join(form_tag["action"] or "")
            answer = await browser.post(action, data={**form.hidden, "decision": self.decision})
            assert answer.status_code == 302, answer.text
            location = urlsplit(answer.headers["location"])
            query = {k: v[0] for k, v in parse_qs(location.query).items()} | self.tamper
            redirect = urlunsplit(location._replace(query=urlencode(query)))
            landed = await browser.get(redirect)
        self.catcher_status, self.catcher_page = landed.status_code, landed.text

    @property
    def params(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.visited[0]).query).items()}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- environment tokens ----------------------------------------------------------------------


async def test_an_environment_token_is_written_and_no_browser_is_opened(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    config = config_for(sandbox, tmp_path)
    assert sandbox.token is not None
    with anyio.fail_after(BOUND_S):
        account = await login(
            config, open_url=no_browser, environ={"ROBINHOOD_ACCESS_TOKEN": sandbox.token}
        )
    assert account == sandbox.agentic_account()["account_number"]
    tokens = read_token_file(config.token_file)
    assert tokens.access_token.reveal() == sandbox.token
    assert tokens.refresh_token is None
    assert mode(config.token_file) == 0o600
    assert mode(config.token_file.parent) == 0o700


async def test_an_environment_refresh_token_is_kept_with_where_to_spend_it(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    minted = sandbox.admin("tokens", {})
    config = config_for(sandbox, tmp_path)
    environ = {
        "ROBINHOOD_ACCESS_TOKEN": minted["access_token"],
        "ROBINHOOD_REFRESH_TOKEN": minted["refresh_token"],
    }
    with anyio.fail_after(BOUND_S):
        await login(config, open_url=no_browser, environ=environ)
    tokens = read_token_file(config.token_file)
    assert tokens.refresh_token == Secret(minted["refresh_token"])
    assert tokens.token_endpoint == sandbox.base_url + "/oauth2/token/"
    assert tokens.client_id == SHARED_CLIENT_ID
    assert tokens.resource == sandbox.mcp_url
    assert tokens.scope == "internal"


# -- the browser flow ------------------------------------------------------------------------


async def test_the_browser_flow_signs_in_and_returns_the_agentic_account(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    config = config_for(sandbox, tmp_path)
    browser = FakeBrowser()
    with anyio.fail_after(BOUND_S):
        account = await login(config, open_url=browser, environ={})
    assert account == sandbox.agentic_account()["account_number"]
    assert browser.catcher_status == 200
    assert "ordergate-test is signed in" in browser.catcher_page

    params = browser.params
    assert browser.visited[0].startswith(sandbox.base_url + "/oauth?")
    assert params["code_challenge_method"] == "S256"
    assert len(params["code_challenge"]) == 43
    assert params["resource"] == sandbox.mcp_url
    assert params["client_id"] == SHARED_CLIENT_ID
    assert params["scope"] == "internal"
    assert len(params["state"]) >= 43
    redirect = urlsplit(params["redirect_uri"])
    assert (redirect.scheme, redirect.hostname, redirect.path) == ("http", "127.0.0.1", "/callback")

    tokens = read_token_file(config.token_file)
    assert mode(config.token_file) == 0o600
    assert tokens.refresh_token is not None
    assert tokens.expires_at is not None
    assert tokens.token_endpoint == sandbox.base_url + "/oauth2/token/"
    assert tokens.client_id == SHARED_CLIENT_ID
    assert tokens.resource == sandbox.mcp_url
    async with connect(config) as robinhood:
        assert (await robinhood.accounts.agentic()).account_number == account

    # The catcher took its one request and closed: nothing listens there any more.
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", redirect.port or 0), 5):
        pass  # pragma: no cover


@pytest.mark.req("client.oauth.state-checked")
async def test_each_sign_in_uses_a_fresh_state_and_a_fresh_port(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    first, second = FakeBrowser(), FakeBrowser()
    with anyio.fail_after(BOUND_S):
        await login(config_for(sandbox, tmp_path / "a"), open_url=first, environ={})
        await login(config_for(sandbox, tmp_path / "b"), open_url=second, environ={})
    assert first.params["state"] != second.params["state"]
    assert first.params["code_challenge"] != second.params["code_challenge"]


@pytest.mark.req("client.oauth.state-checked")
async def test_an_answer_with_a_forged_state_is_refused_and_nothing_is_written(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    config = config_for(sandbox, tmp_path)
    with anyio.fail_after(BOUND_S), pytest.raises(LoginRequired) as raised:
        await login(config, open_url=FakeBrowser(tamper={"state": "forged"}), environ={})
    assert "state" in str(raised.value)
    assert not config.token_file.exists()


async def test_a_denied_consent_is_login_required_and_nothing_is_written(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    config = config_for(sandbox, tmp_path)
    browser = FakeBrowser(decision="deny")
    with anyio.fail_after(BOUND_S), pytest.raises(LoginRequired) as raised:
        await login(config, open_url=browser, environ={})
    assert "access_denied" in str(raised.value)
    assert browser.catcher_status == 400
    assert not config.token_file.exists()


async def test_a_sign_in_nobody_completes_times_out_as_login_required(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    opened: list[str] = []

    async def walk_away(url: str) -> None:
        opened.append(url)

    config = config_for(sandbox, tmp_path)
    with anyio.fail_after(BOUND_S), pytest.raises(LoginRequired) as raised:
        await login(config, open_url=walk_away, timeout_s=0.2, environ={})
    assert "0.2 s" in str(raised.value)
    assert len(opened) == 1
    assert not config.token_file.exists()


async def test_login_refuses_an_address_that_does_not_ask_for_sign_in(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    config = Config(url=sandbox.base_url + "/nowhere", token_file=tmp_path / "t.json")
    with anyio.fail_after(BOUND_S), pytest.raises(LoginRequired) as raised:
        await login(config, open_url=no_browser, environ={})
    assert "did not ask for sign-in" in str(raised.value)


async def test_login_at_an_address_with_nobody_listening_is_a_transport_error(
    tmp_path: Path,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = Config(url=f"http://127.0.0.1:{port}/mcp/trading", token_file=tmp_path / "t.json")
    with anyio.fail_after(BOUND_S), pytest.raises(TransportError):
        await login(config, open_url=no_browser, environ={})


@pytest.mark.req("oauth.flow.public-client")
async def test_registration_sends_the_configured_client_name(sandbox: VenueClient) -> None:
    sent: list[dict[str, Any]] = []

    async def record(request: httpx2.Request) -> None:
        if request.url.path.endswith("/register"):
            sent.append(json.loads(request.content))

    async with httpx2.AsyncClient(timeout=BOUND_S, event_hooks={"request": [record]}) as http:
        server = await discover(http, sandbox.mcp_url)
        client_id = await register(
            http, server, name="my-agent", redirect_uri="http://127.0.0.1:5/callback"
        )
    assert client_id == SHARED_CLIENT_ID
    assert sent[0]["client_name"] == "my-agent"
    assert sent[0]["token_endpoint_auth_method"] == "none"
    assert sent[0]["redirect_uris"] == ["http://127.0.0.1:5/callback"]


# -- the browser opener -----------------------------------------------------------------------


async def test_the_url_is_printed_when_no_browser_can_be_opened(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(webbrowser, "open", lambda url, new=0: False)
    await open_in_browser("http://127.0.0.1:1/oauth?x=1")
    assert "http://127.0.0.1:1/oauth?x=1" in capsys.readouterr().err


async def test_the_url_is_printed_when_the_browser_module_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(url: str, new: int = 0) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", broken)
    await open_in_browser("http://127.0.0.1:1/oauth?y=2")
    assert "http://127.0.0.1:1/oauth?y=2" in capsys.readouterr().err


async def test_nothing_is_printed_when_the_browser_opens(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[str] = []

    def record(url: str, new: int = 0) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", record)
    await open_in_browser("http://127.0.0.1:1/oauth?z=3")
    assert opened == ["http://127.0.0.1:1/oauth?z=3"]
    assert capsys.readouterr().err == ""


# -- the loopback catcher ---------------------------------------------------------------------


async def test_the_catcher_answers_other_paths_404_and_ignores_silent_connections() -> None:
    statuses: list[int] = []

    async def browser(url: str) -> None:
        port = urlsplit(url).port or 0
        silent = await anyio.connect_tcp("127.0.0.1", port)  # connects, never asks
        cut = await anyio.connect_tcp("127.0.0.1", port)  # starts asking, hangs up
        await cut.send(b"GET /callback?code=cut")
        await cut.aclose()
        async with silent, httpx2.AsyncClient() as client:
            statuses.append((await client.get(f"http://127.0.0.1:{port}/favicon.ico")).status_code)
            statuses.append((await client.post(url + "?code=x&state=y")).status_code)
            statuses.append((await client.get(url + "?code=c&state=s")).status_code)

    with anyio.fail_after(BOUND_S):
        async with catch_redirect(name="n") as catcher:
            answer = await catcher.redirect(browser, catcher.redirect_uri, timeout_s=BOUND_S)
    assert answer == {"code": "c", "state": "s"}
    assert statuses == [404, 404, 200]
    assert repr(catcher) == f"Catcher({catcher.redirect_uri!r})"


async def test_the_catcher_still_counts_an_answer_whose_browser_hung_up() -> None:
    async def hang_up(url: str) -> None:
        stream = await anyio.connect_tcp("127.0.0.1", urlsplit(url).port or 0)
        await stream.send(b"GET /callback?code=c&state=s HTTP/1.1\r\nHost: x\r\n\r\n")
        await stream.aclose()

    with anyio.fail_after(BOUND_S):
        async with catch_redirect(name="n") as catcher:
            answer = await catcher.redirect(hang_up, catcher.redirect_uri, timeout_s=BOUND_S)
    assert answer == {"code": "c", "state": "s"}


async def test_the_catcher_ignores_a_request_that_never_ends_its_head() -> None:
    async def flood_then_answer(url: str) -> None:
        stream = await anyio.connect_tcp("127.0.0.1", urlsplit(url).port or 0)
        await stream.send(b"GET /callback?code=bad HTTP/1.1\r\n" + b"X: y\r\n" * 3000)
        await stream.aclose()
        async with httpx2.AsyncClient() as client:
            assert (await client.get(url + "?code=c&state=s")).status_code == 200

    with anyio.fail_after(BOUND_S):
        async with catch_redirect(name="n") as catcher:
            answer = await catcher.redirect(
                flood_then_answer, catcher.redirect_uri, timeout_s=BOUND_S
            )
    assert answer == {"code": "c", "state": "s"}


async def test_a_browser_opener_that_fails_fails_the_sign_in_with_its_own_error() -> None:
    async def broken(url: str) -> None:
        raise RuntimeError("no display")

    with anyio.fail_after(BOUND_S), pytest.raises(RuntimeError, match="no display"):
        async with catch_redirect(name="n") as catcher:
            await catcher.redirect(broken, catcher.redirect_uri, timeout_s=BOUND_S)


# -- answers that are not trusted -------------------------------------------------------------


def server_at(issuer: str) -> AuthorizationServer:
    from mcp.shared.auth import OAuthMetadata

    metadata = OAuthMetadata.model_validate(
        {
            "issuer": issuer,
            "authorization_endpoint": issuer + "/oauth",
            "token_endpoint": issuer + "/oauth2/token/",
        }
    )
    return AuthorizationServer(resource=issuer + "/mcp", metadata=metadata, scope=None)


def test_an_answer_from_another_issuer_is_refused() -> None:
    server = server_at("http://127.0.0.1:9")
    with pytest.raises(LoginRequired):
        _code_from({"state": "s", "code": "c", "iss": "http://evil.example"}, "s", server)
    assert _code_from({"state": "s", "code": "c", "iss": "http://127.0.0.1:9"}, "s", server) == "c"


def test_an_answer_without_a_code_is_refused() -> None:
    with pytest.raises(LoginRequired):
        _code_from({"state": "s"}, "s", server_at("http://127.0.0.1:9"))


def test_the_authorization_url_carries_a_scope_only_when_there_is_one() -> None:
    server = server_at("http://127.0.0.1:9")
    url = _authorization_url(server, "client", "http://127.0.0.1:5/callback", "c" * 43, "s")
    params = parse_qs(urlsplit(url).query)
    assert "scope" not in params
    assert params["resource"] == ["http://127.0.0.1:9/mcp"]


def test_an_error_code_that_is_not_plain_is_not_repeated() -> None:
    with pytest.raises(LoginRequired) as raised:
        _code_from({"state": "s", "error": "<script>"}, "s", server_at("http://127.0.0.1:9"))
    assert "<script>" not in str(raised.value)


# -- discovery and the token endpoint against servers that misbehave ---------------------------


def mock_client(routes: dict[str, httpx2.Response]) -> httpx2.AsyncClient:
    def handle(request: httpx2.Request) -> httpx2.Response:
        return routes.get(str(request.url), httpx2.Response(404))

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handle))


MCP = "http://venue.test/mcp"
PRM_URL = "http://venue.test/.well-known/oauth-protected-resource/mcp"
ASM_URL = "http://venue.test/.well-known/oauth-authorization-server"
CHALLENGE = httpx2.Response(
    401, headers={"www-authenticate": f'Bearer resource_metadata="{PRM_URL}"'}
)


def prm(resource: str = MCP) -> httpx2.Response:
    return httpx2.Response(
        200, json={"resource": resource, "authorization_servers": ["http://venue.test"]}
    )


def asm(issuer: str = "http://venue.test") -> httpx2.Response:
    return httpx2.Response(
        200,
        json={
            "issuer": issuer,
            "authorization_endpoint": issuer + "/oauth",
            "token_endpoint": issuer + "/token",
            "registration_endpoint": issuer + "/register",
            "response_types_supported": ["code"],
        },
    )


@pytest.mark.parametrize(
    ("routes", "reason"),
    [
        ({MCP: CHALLENGE}, "no protected-resource metadata"),
        ({MCP: CHALLENGE, PRM_URL: prm("http://other.test/mcp")}, "not http://venue.test/mcp"),
        ({MCP: CHALLENGE, PRM_URL: prm()}, "no authorization server metadata"),
        ({MCP: CHALLENGE, PRM_URL: prm(), ASM_URL: httpx2.Response(500)}, "no authorization"),
        ({MCP: CHALLENGE, PRM_URL: prm(), ASM_URL: asm("http://evil.test")}, "names issuer"),
    ],
)
async def test_discovery_refuses_metadata_it_cannot_trust(
    routes: dict[str, httpx2.Response], reason: str
) -> None:
    async with mock_client(routes) as http:
        with pytest.raises(LoginRequired) as raised:
            await discover(http, MCP)
    assert reason in str(raised.value)


async def test_registration_that_is_refused_or_confidential_is_login_required() -> None:
    routes = {MCP: CHALLENGE, PRM_URL: prm(), ASM_URL: asm()}
    async with mock_client(routes) as http:
        server = await discover(http, MCP)
    for answer, reason in (
        (httpx2.Response(400, json={"error": "invalid_client_metadata"}), "HTTP 400"),
        (
            httpx2.Response(
                201,
                json={
                    "client_id": "c",
                    "client_secret": "s",
                    "token_endpoint_auth_method": "client_secret_post",
                },
            ),
            "confidential",
        ),
    ):
        async with mock_client({"http://venue.test/register": answer}) as http:
            with pytest.raises(LoginRequired) as raised:
                await register(http, server, name="n", redirect_uri="http://127.0.0.1/cb")
        assert reason in str(raised.value)


async def test_registration_with_nobody_listening_is_a_transport_error() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(refuse)) as http:
        with pytest.raises(TransportError):
            await register(
                http, server_at("http://venue.test"), name="n", redirect_uri="http://127.0.0.1/c"
            )


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (httpx2.Response(400, json={"error": "invalid_grant"}), "invalid_grant"),
        (httpx2.Response(400, json={"error": 'Bad "thing"'}), "no reason"),
        (httpx2.Response(503, text="down"), "HTTP 503"),
        (httpx2.Response(200, text="not json"), "not a token set"),
        (httpx2.Response(200, json={"token_type": "Bearer"}), "without an access_token"),
        (httpx2.Response(200, json={"access_token": "a", "token_type": "mac"}), "not a bearer"),
        (
            httpx2.Response(
                200, json={"access_token": "a", "token_type": "Bearer", "refresh_token": 5}
            ),
            "malformed refresh_token",
        ),
        (
            httpx2.Response(
                200, json={"access_token": "a", "token_type": "Bearer", "expires_in": True}
            ),
            "malformed expires_in",
        ),
        (
            httpx2.Response(
                200, json={"access_token": "a", "token_type": "Bearer", "expires_in": -5}
            ),
            "malformed expires_in",
        ),
    ],
)
async def test_a_token_endpoint_answer_that_is_not_a_grant_is_login_required(
    answer: httpx2.Response, reason: str
) -> None:
    async with mock_client({"http://venue.test/token": answer}) as http:
        with pytest.raises(LoginRequired) as raised:
            await request_tokens(
                http,
                "http://venue.test/token",
                {"grant_type": "refresh_token"},
                now=NOW,
            )
    assert reason in str(raised.value)


async def test_a_grant_without_expiry_or_refresh_token_is_accepted() -> None:
    answer = httpx2.Response(200, json={"access_token": "a", "token_type": "bearer"})
    async with mock_client({"http://venue.test/token": answer}) as http:
        granted = await request_tokens(
            http, "http://venue.test/token", {"grant_type": "refresh_token"}, now=NOW
        )
    assert (granted.refresh_token, granted.expires_at, granted.scope) == (None, None, None)


async def test_a_token_endpoint_that_does_not_answer_is_a_transport_error() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(refuse)) as http:
        with pytest.raises(TransportError):
            await request_tokens(http, "http://venue.test/token", {}, now=NOW)
