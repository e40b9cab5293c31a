"""Fixtures the execution tests share: a running venue, a ``Robinhood`` connected to it over
loopback, and the venue's agentic account number.

A test changes the venue's settings by parametrizing ``venue_settings`` (``{"page_size": 1}``);
each test gets a fresh venue on a stepped clock, so faults and orders never leak between
tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from client_testkit import account_number, venue, write_minted
from venue_testkit import VenueClient

from ordergate.client import Config, Robinhood, connect

BOUND_S = 30


@asynccontextmanager
async def connected(client: VenueClient, tmp_path: Path) -> AsyncIterator[Robinhood]:
    """A ``Robinhood`` signed in to ``client``'s venue with freshly minted tokens."""
    token_file = tmp_path / "tokens.json"
    write_minted(client, token_file, expires_at=None)
    async with AsyncExitStack() as stack:
        with anyio.fail_after(BOUND_S):
            rh = await stack.enter_async_context(
                connect(Config(url=client.mcp_url, token_file=token_file))
            )
        yield rh


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def venue_settings() -> dict[str, Any]:
    """Overrides for the venue's ``SandboxConfig`` (parametrize to change them)."""
    return {}


@pytest.fixture
def sandbox(venue_settings: dict[str, Any]) -> Iterator[VenueClient]:
    """A fresh venue (stepped clock) with a signed-in admin client."""
    with venue(**venue_settings) as client:
        yield client


@pytest.fixture
def account(sandbox: VenueClient) -> str:
    """The venue's agentic brokerage account number."""
    return account_number(sandbox)


@pytest.fixture
def connect_to(tmp_path: Path) -> Callable[[VenueClient], AbstractAsyncContextManager[Robinhood]]:
    """Connects a ``Robinhood`` to any venue (one a test started itself)."""
    return lambda client: connected(client, tmp_path)


@pytest.fixture
async def rh(sandbox: VenueClient, tmp_path: Path) -> AsyncIterator[Robinhood]:
    """A ``Robinhood`` connected to ``sandbox`` over loopback."""
    async with connected(sandbox, tmp_path) as client:
        yield client
