"""``connect`` against the venue over loopback: one MCP session, both framings, the fallback
without a session, and the token refreshes (before expiry, after a 401, refused)."""

from __future__ import annotations

import importlib
import json
import logging
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from client_testkit import wrapped_venue, write_minted
from venue_testkit import START, VenueClient, running_venue

from ordergate.client import (
    BusinessError,
    Config,
    LoginRequired,
    ResponseParseError,
    Robinhood,
    TokenSet,
    connect,
    read_token_file,
    write_token_file,
)
from ordergate.client._auth import TokenAuth
from ordergate.core import Secret, SteppedClock
from ordergate.sandbox.oauth import SHARED_CLIENT_ID

pytestmark = pytest.mark.anyio

BOUND_S = 30
MCP_PATH = "/mcp/trading"


class Recorder:
    """ASGI wrapper that keeps every request's method, path and body."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.requests: list[tuple[str, str, bytes]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # Read the whole body first, so requests the venue refuses unread are recorded too.
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(chunks)
        self.requests.append((scope["method"], scope["path"], body))
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def mcp_methods(self) -> list[str]:
        return [
            json.loads(body).get("method", "")
            for method, path, body in self.requests
            if method == "POST" and path == MCP_PATH and body
        ]

    def deletes(self) -> int:
        return sum(1 for method, path, _ in self.requests if (method, path) == ("DELETE", MCP_PATH))


def refresh_is_refused(venue: VenueClient, refresh_token: Secret) -> bool:
    response = venue.http.post(
        venue.base_url + "/oauth2/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": refresh_token.reveal(),
            "client_id": SHARED_CLIENT_ID,
        },
    )
    return response.status_code == 400


@pytest.fixture
def config(sandbox: VenueClient, tmp_path: Path) -> Config:
    """The shared venue's address, with a token file of this test's own."""
    return Config(url=sandbox.mcp_url, token_file=tmp_path / "t.json")


# -- the session ----------------------------------------------------------------------------


@pytest.mark.parametrize("framing", ["json", "sse"])
@pytest.mark.req("client.transport.both-framings")
async def test_connect_opens_one_session_calls_over_it_and_ends_it(
    framing: str, tmp_path: Path
) -> None:
    with wrapped_venue(Recorder, framing=framing) as (venue, recorder):
        config = Config(
            url=venue.mcp_url, token_file=tmp_path / "t.json", name="my-agent", version="9.9"
        )
        write_minted(venue, config.token_file, expires_at=None)
        with anyio.fail_after(BOUND_S):
            async with connect(config) as rh:
                assert rh.session_id is not None
                assert rh.protocol_version == "2025-11-25"
                assert repr(rh) == "Robinhood(session=True)"
                agentic = await rh.accounts.agentic()
                quotes = await rh.call("get_equity_quotes", {"symbols": ["AAPL"]})
                typed = await rh.market.quotes(["AAPL"])
                session_id = rh.session_id
        methods = recorder.mcp_methods()
        # The session is over: the venue no longer knows it.
        venue.session_id = session_id
        gone = venue.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert gone.status_code == 404
        venue.session_id = None
        assert agentic.account_number == venue.agentic_account()["account_number"]

    assert quotes["results"][0]["quote"]["symbol"] == "AAPL"
    assert typed is not None
    assert methods.count("initialize") == 1
    assert "notifications/initialized" in methods
    assert methods.count("tools/call") == 3
    assert recorder.deletes() == 1
    initialize = next(
        json.loads(body)
        for _, path, body in recorder.requests
        if path == MCP_PATH and body and json.loads(body).get("method") == "initialize"
    )
    assert initialize["params"]["clientInfo"] == {"name": "my-agent", "version": "9.9"}


FAMILIES = {
    "accounts": "AccountsClient",
    "equity": "EquityClient",
    "options": "OptionsClient",
    "crypto": "CryptoClient",
    "watchlists": "WatchlistsClient",
    "market": "MarketClient",
    "research": "ResearchClient",
    "scanner": "ScannerClient",
    "alerts": "AlertsClient",
    "advanced": "AdvancedClient",
}


async def test_every_tool_family_is_a_typed_subclient_of_the_one_session(
    sandbox: VenueClient, config: Config
) -> None:
    write_minted(sandbox, config.token_file, expires_at=None)
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            for family, class_name in FAMILIES.items():
                module = importlib.import_module(f"ordergate.client.{family}")
                subclient = getattr(rh, family)
                assert isinstance(subclient, getattr(module, class_name))
                assert getattr(rh, family) is subclient  # built once
            assert (await rh.market.quotes(["AAPL"])) is not None


async def test_the_escape_hatch_calls_any_tool_by_name_without_arguments(
    sandbox: VenueClient, config: Config
) -> None:
    write_minted(sandbox, config.token_file, expires_at=None)
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            accounts = await rh.call("get_accounts")
    assert any(a["agentic_allowed"] for a in accounts["accounts"])


@pytest.mark.req("client.errors.business-failures-raise")
async def test_a_business_refusal_is_raised_never_returned(
    sandbox: VenueClient, config: Config
) -> None:
    write_minted(sandbox, config.token_file, expires_at=None)
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            with pytest.raises(BusinessError) as raised:
                await rh.accounts.portfolio("000000000")
    assert raised.value.code == "NOT_FOUND"


@pytest.mark.req("client.transport.fallback")
async def test_when_the_handshake_is_refused_calls_fall_back_to_plain_json_rpc(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with wrapped_venue(Recorder) as (venue, recorder):
        config = Config(url=venue.mcp_url, token_file=tmp_path / "t.json")
        write_minted(venue, config.token_file, expires_at=None)
        venue.faults(http_errors=1)  # the initialize POST gets a 503
        with anyio.fail_after(BOUND_S), caplog.at_level(logging.WARNING):
            async with connect(config) as rh:
                assert rh.session_id is None
                assert rh.protocol_version is None
                assert repr(rh) == "Robinhood(session=False)"
                agentic = await rh.accounts.agentic()
    assert agentic.agentic_allowed
    assert "no MCP session" in caplog.text
    assert "MCPError" in caplog.text
    assert recorder.mcp_methods().count("initialize") == 1
    assert recorder.deletes() == 0  # no session, nothing to end


@pytest.mark.req("client.transport.fallback")
async def test_a_handshake_that_never_finishes_falls_back_within_its_bound(
    sandbox: VenueClient, config: Config
) -> None:
    write_minted(sandbox, config.token_file, expires_at=None)
    sandbox.faults(latency_ms=300)
    try:
        with anyio.fail_after(BOUND_S):
            async with connect(config, handshake_timeout_s=0.1) as rh:
                assert rh.session_id is None
                sandbox.faults(latency_ms=0)
                assert (await rh.accounts.agentic()).agentic_allowed
    finally:
        sandbox.faults(latency_ms=0)


async def test_without_a_token_file_connect_fails_closed_saying_to_log_in(tmp_path: Path) -> None:
    config = Config(url="http://127.0.0.1:9/mcp/trading", token_file=tmp_path / "none.json")
    with pytest.raises(LoginRequired) as raised:
        async with connect(config):
            pass  # pragma: no cover
    assert "ordergate login" in str(raised.value)


async def test_leaving_connect_after_the_venue_went_away_does_not_raise(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND_S):
        with running_venue() as venue:
            config = Config(url=venue.mcp_url, token_file=tmp_path / "t.json")
            write_minted(venue, config.token_file, expires_at=None)
            stack = connect(config)
            rh = await stack.__aenter__()
            assert rh.session_id is not None
        await stack.__aexit__(None, None, None)  # the DELETE finds nobody; that is fine


# -- refreshing -----------------------------------------------------------------------------


async def test_tokens_about_to_expire_are_refreshed_before_the_first_request(
    sandbox: VenueClient, config: Config
) -> None:
    clock = SteppedClock(start=START)
    before = write_minted(sandbox, config.token_file, expires_at=START + timedelta(seconds=30))
    with anyio.fail_after(BOUND_S):
        async with connect(config, clock=clock) as rh:
            await rh.accounts.agentic()
    after = read_token_file(config.token_file)
    assert after.refresh_token != before.refresh_token
    assert after.access_token != before.access_token
    assert after.expires_at == START + timedelta(days=9)  # expires_in by our clock
    assert after.client_id == SHARED_CLIENT_ID
    assert refresh_is_refused(sandbox, before.refresh_token or Secret(""))


async def test_tokens_are_refreshed_during_a_session_when_the_clock_reaches_the_margin(
    sandbox: VenueClient, config: Config
) -> None:
    clock = SteppedClock(start=START)
    before = write_minted(sandbox, config.token_file, expires_at=START + timedelta(hours=1))
    with anyio.fail_after(BOUND_S):
        async with connect(config, clock=clock) as rh:
            await rh.accounts.agentic()
            assert read_token_file(config.token_file) == before  # not yet
            clock.advance(timedelta(minutes=59, seconds=1))
            await rh.accounts.agentic()
    assert read_token_file(config.token_file).refresh_token != before.refresh_token


async def test_a_401_refreshes_once_and_the_call_is_retried(
    sandbox: VenueClient, config: Config
) -> None:
    before = write_minted(sandbox, config.token_file, expires_at=None)
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            await rh.accounts.agentic()
            assert sandbox.admin("tokens", {"expire_access_tokens": True})["expired"] >= 1
            agentic = await rh.accounts.agentic()
    assert agentic.agentic_allowed
    after = read_token_file(config.token_file)
    assert after.access_token != before.access_token
    assert refresh_is_refused(sandbox, before.refresh_token or Secret(""))


async def test_a_refused_refresh_token_fails_closed_at_connect(
    sandbox: VenueClient, config: Config
) -> None:
    clock = SteppedClock(start=START)
    write_minted(sandbox, config.token_file, expires_at=START, refresh="spent-or-forged")
    with anyio.fail_after(BOUND_S), pytest.raises(LoginRequired) as raised:
        async with connect(config, clock=clock):
            pass  # pragma: no cover
    assert "invalid_grant" in str(raised.value)


async def test_a_refused_refresh_after_a_401_during_the_handshake_fails_closed(
    sandbox: VenueClient, config: Config
) -> None:
    write_minted(sandbox, config.token_file, expires_at=None, refresh="spent-or-forged")
    sandbox.admin("tokens", {"expire_access_tokens": True})
    with anyio.fail_after(BOUND_S), pytest.raises(LoginRequired) as raised:
        async with connect(config):
            pass  # pragma: no cover
    assert "ordergate login" in str(raised.value)


async def test_a_refused_refresh_after_a_401_during_a_session_is_login_required(
    sandbox: VenueClient, config: Config
) -> None:
    write_minted(sandbox, config.token_file, expires_at=None, refresh="spent-or-forged")
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            sandbox.admin("tokens", {"expire_access_tokens": True})
            with pytest.raises(LoginRequired):
                await rh.accounts.agentic()


async def test_a_401_without_a_refresh_token_is_login_required(
    sandbox: VenueClient, config: Config
) -> None:
    assert sandbox.token is not None
    write_token_file(
        config.token_file,
        TokenSet(
            access_token=Secret(sandbox.admin("tokens", {})["access_token"]), server=config.url
        ),
    )
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            sandbox.admin("tokens", {"expire_access_tokens": True})
            with pytest.raises(LoginRequired) as raised:
                await rh.accounts.agentic()
    assert "no refresh token" in str(raised.value)


async def test_a_token_file_that_cannot_say_where_to_refresh_is_login_required(
    sandbox: VenueClient, config: Config
) -> None:
    minted = sandbox.admin("tokens", {})
    write_token_file(
        config.token_file,
        TokenSet(
            access_token=Secret(minted["access_token"]),
            refresh_token=Secret(minted["refresh_token"]),
            expires_at=START,
            server=config.url,
        ),
    )
    with anyio.fail_after(BOUND_S), pytest.raises(LoginRequired) as raised:
        async with connect(config, clock=SteppedClock(start=START)):
            pass  # pragma: no cover
    assert "where to refresh" in str(raised.value)


async def test_tokens_another_process_wrote_are_used_and_refused_ones_fail_closed(
    sandbox: VenueClient, config: Config
) -> None:
    ours = write_minted(sandbox, config.token_file, expires_at=None)
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            # Another process "rotated" the file, to tokens the venue does not know.
            write_token_file(
                config.token_file,
                ours.rotated(
                    access_token=Secret("not-a-token"),
                    refresh_token=Secret("not-a-refresh-token"),
                    expires_at=None,
                ),
            )
            sandbox.admin("tokens", {"expire_access_tokens": True})
            with pytest.raises(LoginRequired) as raised:
                await rh.accounts.agentic()
    assert "refreshed access token" in str(raised.value)
    # Nothing was spent: the file's refresh token was taken as the other process's.
    assert read_token_file(config.token_file).refresh_token == Secret("not-a-refresh-token")


async def test_tasks_of_one_client_share_one_refresh(tmp_path: Path) -> None:
    clock = SteppedClock(start=START)
    with wrapped_venue(Recorder) as (venue, recorder):
        config = Config(url=venue.mcp_url, token_file=tmp_path / "t.json")
        write_minted(venue, config.token_file, expires_at=START + timedelta(hours=1))
        with anyio.fail_after(BOUND_S):
            async with connect(config, clock=clock) as rh:
                clock.advance(timedelta(hours=2))
                async with anyio.create_task_group() as group:
                    for _ in range(5):
                        group.start_soon(rh.accounts.agentic)
    assert refresh_posts(recorder) == 1


@pytest.mark.req("client.tokens.single-flight-refresh")
async def test_tasks_that_meet_a_401_together_share_one_refresh(tmp_path: Path) -> None:
    with wrapped_venue(Recorder) as (venue, recorder):
        config = Config(url=venue.mcp_url, token_file=tmp_path / "t.json")
        write_minted(venue, config.token_file, expires_at=None)
        with anyio.fail_after(BOUND_S):
            async with connect(config) as rh:
                venue.admin("tokens", {"expire_access_tokens": True})
                async with anyio.create_task_group() as group:
                    for _ in range(5):
                        group.start_soon(rh.accounts.agentic)
    assert refresh_posts(recorder) == 1


async def test_a_token_set_without_a_resource_refreshes_without_one(tmp_path: Path) -> None:
    clock = SteppedClock(start=START)
    with wrapped_venue(Recorder) as (venue, recorder):
        config = Config(url=venue.mcp_url, token_file=tmp_path / "t.json")
        minted = write_minted(venue, config.token_file, expires_at=START)
        write_token_file(config.token_file, replace(minted, resource=None))
        with anyio.fail_after(BOUND_S):
            async with connect(config, clock=clock) as rh:
                await rh.accounts.agentic()
    (grant,) = [body for method, path, body in recorder.requests if path == "/oauth2/token/"]
    assert b"resource=" not in grant
    assert read_token_file(config.token_file).resource is None


def refresh_posts(recorder: Recorder) -> int:
    return sum(
        1
        for method, path, body in recorder.requests
        if (method, path) == ("POST", "/oauth2/token/") and b"grant_type=refresh_token" in body
    )


def test_token_auth_refuses_a_synchronous_client() -> None:
    async def never(tokens: TokenSet) -> TokenSet:
        raise AssertionError("not reached")  # pragma: no cover

    auth = TokenAuth(
        TokenSet(access_token=Secret("x")), refresh=never, clock=SteppedClock(start=START)
    )
    assert "x" not in repr(auth)
    with httpx2.Client(auth=auth) as client, pytest.raises(TypeError):
        client.get("http://127.0.0.1:9/")


# -- listing tools ---------------------------------------------------------------------------


async def test_list_tools_drains_every_page_and_names_the_server(
    sandbox: VenueClient, config: Config
) -> None:
    write_minted(sandbox, config.token_file, expires_at=None)
    with anyio.fail_after(BOUND_S):
        async with connect(config) as rh:
            tools = await rh.list_tools()
            assert rh.server is not None
            assert (rh.server.name, rh.server.version) == ("robinhood-trading", "1.7.0")
    names = [tool["name"] for tool in tools]
    assert len(names) == len(set(names)) == 82


async def test_list_tools_works_without_a_session_too(tmp_path: Path) -> None:
    with wrapped_venue(Recorder) as (venue, _recorder):
        config = Config(url=venue.mcp_url, token_file=tmp_path / "t.json")
        write_minted(venue, config.token_file, expires_at=None)
        venue.faults(http_errors=1)
        with anyio.fail_after(BOUND_S):
            async with connect(config) as rh:
                assert rh.server is None
                assert len(await rh.list_tools()) == 82


class _Pages:
    """A caller whose ``tools/list`` answers are scripted."""

    def __init__(self, *pages: object) -> None:
        self._pages = list(pages)

    async def call(self, name: str, arguments: Any) -> Any:
        raise AssertionError("not used")

    async def request(self, method: str, params: Any = None) -> Any:
        return self._pages.pop(0) if self._pages else {"tools": [], "nextCursor": "again"}


@pytest.mark.parametrize(
    "pages",
    [
        ({"tools": "nope"},),
        ({"tools": [{"name": "a"}], "nextCursor": "c1"}, {"tools": [], "nextCursor": "c1"}),
        ({"tools": [], "nextCursor": 5},),
    ],
    ids=["malformed-page", "repeated-cursor", "bad-cursor"],
)
async def test_a_listing_that_misbehaves_is_a_parse_error(pages: tuple[object, ...]) -> None:
    with pytest.raises(ResponseParseError):
        await Robinhood(_Pages(*pages)).list_tools()


async def test_a_listing_that_never_ends_stops_at_its_bound() -> None:
    counter = iter(range(1000))

    class Endless(_Pages):
        async def request(self, method: str, params: Any = None) -> Any:
            return {"tools": [], "nextCursor": f"c{next(counter)}"}

    with pytest.raises(ResponseParseError):
        await Robinhood(Endless()).list_tools()


async def test_a_caller_without_request_cannot_list_tools() -> None:
    class CallOnly:
        async def call(self, name: str, arguments: Any) -> Any:
            return {}

    with pytest.raises(TypeError):
        await Robinhood(CallOnly()).list_tools()
