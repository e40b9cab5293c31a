"""The token set names its server, and the client sends the token there and nowhere else."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import httpx2
import pytest
from capture_testkit import capture_server, unused_port
from client_testkit import write_minted
from venue_testkit import START, VenueClient

from ordergate.client import (
    Config,
    LoginRequired,
    TokenSet,
    TransportError,
    connect,
    connect_with,
    read_token_file,
    write_token_file,
)
from ordergate.client._auth import TokenAuth
from ordergate.client._refresh import Refresher
from ordergate.client._servers import WrongServer, canonical_url, origin_of, shown_url
from ordergate.core import Secret, SteppedClock

BOUND_S = 30
NOW = datetime(2026, 12, 1, 15, tzinfo=UTC)


async def never(tokens: TokenSet) -> TokenSet:
    raise AssertionError("refreshed")  # pragma: no cover


@pytest.mark.parametrize(
    ("url", "canonical", "origin"),
    [
        (
            "HTTPS://Agent.Robinhood.com:443/mcp/trading/",
            "https://agent.robinhood.com/mcp/trading",
            "https://agent.robinhood.com",
        ),
        ("http://127.0.0.1:8790/mcp", "http://127.0.0.1:8790/mcp", "http://127.0.0.1:8790"),
        ("http://user:pw@[::1]:80/mcp?x=1#f", "http://[::1]/mcp", "http://[::1]"),
        ("https://example.com", "https://example.com/", "https://example.com"),
    ],
)
def test_a_server_is_recorded_in_one_canonical_spelling(
    url: str, canonical: str, origin: str
) -> None:
    assert canonical_url(url) == canonical
    assert origin_of(url) == origin
    assert TokenSet(access_token=Secret("a"), server=url).server == canonical


def test_an_error_shows_a_url_without_credentials_or_query() -> None:
    assert shown_url("https://u:secret@h.example:443/mcp?token=t#x") == "https://h.example:443/mcp"


def test_the_server_survives_the_round_trip_with_its_origin(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    write_token_file(path, TokenSet(access_token=Secret("a"), server="http://127.0.0.1:9/mcp"))
    document = json.loads(path.read_text())
    assert document["server"] == {
        "mcp_url": "http://127.0.0.1:9/mcp",
        "origin": "http://127.0.0.1:9",
    }
    assert read_token_file(path).server == "http://127.0.0.1:9/mcp"


@pytest.mark.parametrize(
    ("server", "named"),
    [
        ("http://127.0.0.1:9/mcp", "server is not an object"),
        ({"mcp_url": "ftp://x/mcp", "origin": "ftp://x"}, "server.mcp_url"),
        ({"mcp_url": "http://a.example/mcp", "origin": "http://b.example"}, "server.origin"),
    ],
)
def test_a_damaged_server_record_makes_the_file_damaged(
    tmp_path: Path, server: object, named: str
) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"access_token": "a", "server": server}))
    with pytest.raises(LoginRequired) as raised:
        read_token_file(path)
    assert "is damaged" in str(raised.value) and named in str(raised.value)


@pytest.mark.anyio
@pytest.mark.req("client.token.bound-to-server")
async def test_the_token_is_never_attached_to_a_request_for_another_origin() -> None:
    tokens = TokenSet(access_token=Secret("a-token"), server="http://127.0.0.1:9/mcp/trading")
    auth = TokenAuth(tokens, refresh=never, clock=SteppedClock(start=NOW))
    with capture_server() as capture:
        async with httpx2.AsyncClient(auth=auth, timeout=BOUND_S) as http:
            with pytest.raises(WrongServer) as raised:
                await http.post(capture.mcp_url, content=b"{}")
    assert capture.requests == []
    assert raised.value.asked == capture.mcp_url
    assert "a-token" not in str(raised.value)


@pytest.mark.anyio
@pytest.mark.req("client.token.bound-to-server")
async def test_tokens_held_by_the_caller_are_refused_for_another_server() -> None:
    tokens = TokenSet(access_token=Secret("a-token"), server="http://127.0.0.1:9/mcp/trading")
    with capture_server() as capture:
        config = Config(url=capture.mcp_url)
        with anyio.fail_after(BOUND_S), pytest.raises(WrongServer):
            async with connect_with(
                config, tokens=tokens, refresh=never, clock=SteppedClock(start=NOW)
            ):
                pass  # pragma: no cover
    assert capture.requests == []


@pytest.mark.anyio
@pytest.mark.req("client.token.bound-to-server")
async def test_a_token_file_rewritten_for_another_server_is_not_used_for_this_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tokens.json"
    ours = TokenSet(
        access_token=Secret("ours"),
        refresh_token=Secret("r"),
        token_endpoint="http://127.0.0.1:9/oauth2/token/",
        client_id="c",
        server="http://127.0.0.1:9/mcp/trading",
    )
    write_token_file(path, TokenSet(access_token=Secret("theirs"), server="http://b.example/mcp"))
    async with httpx2.AsyncClient(timeout=BOUND_S) as http:
        refresher = Refresher(token_file=path, http=http, clock=SteppedClock(start=NOW))
        with pytest.raises(LoginRequired) as raised:
            await refresher(ours)
    assert "now holds a sign-in to http://b.example/mcp" in str(raised.value)


@pytest.mark.anyio
@pytest.mark.req("client.token.default-is-logged-in")
async def test_connect_without_a_config_reaches_the_server_logged_in_to(
    sandbox: VenueClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    write_minted(sandbox, tmp_path / "robinhood-tokens.json", expires_at=None)
    assert Config.signed_in().url == sandbox.mcp_url
    with anyio.fail_after(BOUND_S):
        async with connect(clock=SteppedClock(start=START)) as rh:
            account = await rh.accounts.agentic()
    assert account.account_number == sandbox.agentic_account()["account_number"]


@pytest.mark.anyio
@pytest.mark.req("client.errors.name-url")
async def test_no_answer_from_the_token_endpoint_names_it(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    path = tmp_path / "tokens.json"
    minted = write_minted(sandbox, path, expires_at=START - timedelta(hours=1))
    dead = f"http://127.0.0.1:{unused_port()}/oauth2/token/"
    write_token_file(
        path,
        TokenSet(
            access_token=minted.access_token,
            refresh_token=minted.refresh_token,
            expires_at=minted.expires_at,
            token_endpoint=dead,
            client_id=minted.client_id,
            server=sandbox.mcp_url,
        ),
    )
    with anyio.fail_after(BOUND_S), pytest.raises(TransportError) as raised:
        async with connect(
            Config(url=sandbox.mcp_url, token_file=path), clock=SteppedClock(start=START)
        ):
            pass  # pragma: no cover
    assert f"no answer from the token endpoint at {dead}" in str(raised.value)
