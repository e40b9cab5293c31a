from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx2
import pytest
from oauth_testkit import ISSUER, RESOURCE, Flow
from starlette.applications import Starlette

from ordergate.core import SteppedClock
from ordergate.sandbox.oauth import OAuthServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=datetime(2026, 9, 21, 14, 0, tzinfo=UTC))


@pytest.fixture
def server(clock: SteppedClock) -> OAuthServer:
    return OAuthServer(issuer=ISSUER, resource=RESOURCE, clock=clock)


@pytest.fixture
async def client(server: OAuthServer) -> AsyncIterator[httpx2.AsyncClient]:
    app = Starlette(routes=server.routes())
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url=ISSUER) as http:
        yield http


@pytest.fixture
def flow(client: httpx2.AsyncClient, server: OAuthServer) -> Flow:
    return Flow(client, server)
