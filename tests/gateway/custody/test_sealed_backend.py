"""``SealedBackend``: one session and guard per connection, opened on first use and closed
when the connection ends, so an ended connection's upstream tokens leave memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from client_testkit import write_minted
from venue_testkit import START, VenueClient

from ordergate.client import Config, LoginRequired, Robinhood, connect
from ordergate.core import SteppedClock
from ordergate.gateway.custody import SealedBackend
from ordergate.ledger import open_ledger
from ordergate.policy import PolicyConfig
from ordergate.sandbox import SandboxConfig, SandboxServer

pytestmark = pytest.mark.anyio
BOUND_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Sessions:
    """A session source over one venue token file, counting what is open."""

    def __init__(self, url: str, token_file: Path, clock: SteppedClock) -> None:
        self.url, self.token_file, self.clock = url, token_file, clock
        self.open: set[str] = set()
        self.opened = 0

    @asynccontextmanager
    async def session(self, connection_id: str) -> AsyncIterator[Robinhood]:
        if connection_id == "dead":
            raise LoginRequired("this connection's upstream session has ended")
        config = Config(url=self.url, token_file=self.token_file)
        async with connect(config, clock=self.clock) as rh:
            self.open.add(connection_id)
            self.opened += 1
            try:
                yield rh
            finally:
                self.open.discard(connection_id)


Opened = tuple[SealedBackend, Sessions, list[str]]


@asynccontextmanager
async def backend(
    tmp_path: Path, *, max_open: int = 8
) -> AsyncIterator[tuple[SealedBackend, Sessions, list[str]]]:
    clock = SteppedClock(start=START)
    erased: list[str] = []

    async def erase(connection_id: str) -> None:
        erased.append(connection_id)

    with (
        SandboxServer(SandboxConfig(port=0, seed=7), clock=clock) as sandbox,
        VenueClient(sandbox.base_url) as client,
        open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=clock) as ledger,
    ):
        client.sign_in()
        token_file = tmp_path / "venue-tokens.json"
        write_minted(client, token_file, expires_at=None)
        sessions = Sessions(client.mcp_url, token_file, clock)
        with anyio.fail_after(BOUND_S):
            async with SealedBackend.running(
                vault=sessions,
                policy=PolicyConfig(),
                ledger=ledger,
                clock=clock,
                erase=erase,
                max_open=max_open,
            ) as opened:
                yield opened, sessions, erased
        assert sessions.open == set()  # every session closed with the backend


async def test_a_connections_session_is_opened_once_and_kept(tmp_path: Path) -> None:
    async with backend(tmp_path) as (sealed, sessions, _):
        await sealed.upstream_tools("a")
        await sealed.forward("a", "get_equity_quotes", {"symbols": ["SPY"]})
        guard = await sealed.guard("a")
        assert sessions.opened == 1
        assert guard.paper
        assert sealed.identity("a") == sealed.identity("a") != sealed.identity("b")


async def test_close_ended_closes_only_the_sessions_of_connections_no_longer_live(
    tmp_path: Path,
) -> None:
    async with backend(tmp_path) as (sealed, sessions, _):
        await sealed.upstream_tools("a")
        await sealed.upstream_tools("b")
        assert sessions.open == {"a", "b"}
        assert await sealed.close_ended(lambda ids: {"a"} & set(ids)) == 1
        assert sessions.open == {"a"}
        assert await sealed.close_ended(lambda ids: set(ids)) == 0


async def test_the_least_recently_used_session_is_closed_past_the_cap(tmp_path: Path) -> None:
    async with backend(tmp_path, max_open=2) as (sealed, sessions, _):
        for connection_id in ("a", "b", "a", "c"):
            await sealed.upstream_tools(connection_id)
        with anyio.fail_after(BOUND_S):
            while "b" in sessions.open:  # bounded: closing is asynchronous
                await anyio.sleep(0)
        assert sessions.open == {"a", "c"}


async def test_a_session_that_cannot_open_fails_the_call_and_is_not_kept(tmp_path: Path) -> None:
    async with backend(tmp_path) as (sealed, sessions, _):
        with pytest.raises(LoginRequired):
            await sealed.upstream_tools("dead")
        with pytest.raises(LoginRequired):
            await sealed.guard("dead")
        assert sessions.open == set()


async def test_disconnect_closes_the_session_and_erases_the_connection(tmp_path: Path) -> None:
    async with backend(tmp_path) as (sealed, sessions, erased):
        await sealed.upstream_tools("a")
        await sealed.disconnect("a")
        assert sessions.open == set()
        assert erased == ["a"]
