"""Two processes sharing one token file refresh it exactly once between them.

Robinhood rotates refresh tokens, so a second refresh with the same token would be refused
and sign its process out. The venue runs in this process (so its token endpoint can be
counted); the two clients are separate Python processes over loopback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from client_testkit import wrapped_venue, write_minted
from venue_testkit import VenueClient

from ordergate.client import read_token_file
from ordergate.client._lock import token_file_lock
from ordergate.core import RealtimeClock

pytestmark = pytest.mark.anyio

BOUND_S = 60

# Connects, says so, waits for "go" on stdin, calls a tool, says what it got.
WORKER = """
import sys
from pathlib import Path

import anyio

from ordergate.client import Config, connect


async def main() -> None:
    config = Config(url=sys.argv[1], token_file=Path(sys.argv[2]))
    print("starting", flush=True)
    async with connect(config) as rh:
        await rh.accounts.agentic()
        print("connected", flush=True)
        await anyio.to_thread.run_sync(sys.stdin.readline)
        account = await rh.accounts.agentic()
        print("done", account.account_number, flush=True)


anyio.run(main)
"""


class RefreshCounter:
    """ASGI wrapper counting refresh grants that reach the token endpoint."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.refreshes = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/oauth2/token/":
            await self.app(scope, receive, send)
            return

        async def counting_receive() -> Any:
            message = await receive()
            if b"grant_type=refresh_token" in message.get("body", b""):
                self.refreshes += 1
            return message

        await self.app(scope, counting_receive, send)


class Worker:
    def __init__(self, process: Process) -> None:
        self.process = process
        assert process.stdout is not None
        self._lines = BufferedByteReceiveStream(process.stdout)

    async def line(self) -> str:
        return (await self._lines.receive_until(b"\n", 4096)).decode().strip()

    async def go(self) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(b"go\n")

    async def stderr(self) -> str:
        assert self.process.stderr is not None
        chunks = [chunk async for chunk in self.process.stderr]
        return b"".join(chunks).decode(errors="replace")


async def start_worker(venue: VenueClient, token_file: Path) -> Worker:
    process = await anyio.open_process(
        [sys.executable, "-c", WORKER, venue.mcp_url, str(token_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    return Worker(process)


async def kill_running(workers: list[Worker]) -> None:
    """Kill the workers a failed test left running, so none outlives it."""
    for worker in workers:
        if worker.process.returncode is None:
            worker.process.kill()
            await worker.process.wait()


async def finish(worker: Worker) -> str:
    line = await worker.line()
    code = await worker.process.wait()
    assert code == 0, await worker.stderr()
    return line


@pytest.mark.req("oauth.refresh.rotation")
@pytest.mark.req("client.tokens.single-flight-refresh")
async def test_two_processes_that_meet_a_401_at_once_refresh_exactly_once(
    tmp_path: Path,
) -> None:
    token_file = tmp_path / "tokens.json"
    with wrapped_venue(RefreshCounter) as (venue, counter):
        before = write_minted(venue, token_file, expires_at=None)
        agentic = venue.agentic_account()["account_number"]
        with anyio.fail_after(BOUND_S):
            workers = [await start_worker(venue, token_file) for _ in range(2)]
            try:
                for worker in workers:
                    assert await worker.line() == "starting"
                    assert await worker.line() == "connected"
                # Both hold the same access token in memory; the venue now refuses it.
                assert venue.admin("tokens", {"expire_access_tokens": True})["expired"] >= 2
                for worker in workers:
                    await worker.go()
                results = [await finish(worker) for worker in workers]
            finally:
                await kill_running(workers)
        assert counter.refreshes == 1
        after = read_token_file(token_file)
        # The file's new token works; the spent refresh token is dead.
        venue.token = after.access_token.reveal()
        assert venue.agentic_account()["account_number"] == agentic
    assert results == [f"done {agentic}", f"done {agentic}"]
    assert after.refresh_token != before.refresh_token


@pytest.mark.req("client.tokens.single-flight-refresh")
async def test_two_processes_starting_with_expired_tokens_refresh_exactly_once(
    tmp_path: Path,
) -> None:
    token_file = tmp_path / "tokens.json"
    expired = RealtimeClock().now() - timedelta(minutes=5)
    with wrapped_venue(RefreshCounter) as (venue, counter):
        before = write_minted(venue, token_file, expires_at=expired)
        agentic = venue.agentic_account()["account_number"]
        with anyio.fail_after(BOUND_S):
            # Hold the lock while both start, so both find the expired set and queue for it.
            async with token_file_lock(token_file):
                workers = [await start_worker(venue, token_file) for _ in range(2)]
                for worker in workers:
                    assert await worker.line() == "starting"
            try:
                for worker in workers:
                    assert await worker.line() == "connected"
                    await worker.go()
                results = [await finish(worker) for worker in workers]
            finally:
                await kill_running(workers)
        assert counter.refreshes == 1
        after = read_token_file(token_file)
    assert results == [f"done {agentic}", f"done {agentic}"]
    assert after.refresh_token != before.refresh_token
    assert after.expires_at is not None and after.expires_at > RealtimeClock().now()
