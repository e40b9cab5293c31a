"""MCP sessions are bound to the principal that opened them (issue 12 §4.5): another
connection can neither use nor end one, and is answered exactly as for an unknown session."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest
from mcp_gateway_kit import OTHER_TOKEN, TOKEN, Gateway, gateway

pytestmark = pytest.mark.anyio

PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
HELLO = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "session-test", "version": "1"},
        },
    }
).encode()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _open(gw: Gateway, token: str) -> str:
    opened = await gw.post(HELLO, token=token)
    assert opened.status_code == 200, opened.text
    session: str = opened.headers["mcp-session-id"]
    return session


async def _delete(gw: Gateway, token: str, session: str) -> httpx2.Response:
    return await gw.http.delete(
        gw.url, headers={"authorization": f"Bearer {token}", "mcp-session-id": session}
    )


@pytest.mark.req("gateway.bypass.session-binding")
async def test_another_connection_cannot_use_a_session_and_hears_it_does_not_exist(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        session = await _open(gw, TOKEN)
        theirs = await gw.post(PING, token=OTHER_TOKEN, **{"mcp-session-id": session})
        unknown = await gw.post(PING, token=OTHER_TOKEN, **{"mcp-session-id": "0" * 32})
        mine = await gw.post(PING, token=TOKEN, **{"mcp-session-id": session})
    assert theirs.status_code == 404
    assert theirs.content == unknown.content  # nothing tells a foreign session from none
    assert "mcp-session-id" not in theirs.headers
    assert mine.status_code == 200


@pytest.mark.req("gateway.bypass.session-binding")
async def test_another_connection_cannot_end_a_session(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        session = await _open(gw, TOKEN)
        theirs = await _delete(gw, OTHER_TOKEN, session)
        unknown = await _delete(gw, OTHER_TOKEN, "0" * 32)
        still = await gw.post(PING, token=TOKEN, **{"mcp-session-id": session})
        mine = await _delete(gw, TOKEN, session)
        after = await gw.post(PING, token=TOKEN, **{"mcp-session-id": session})
    assert theirs.status_code == 404
    assert theirs.content == unknown.content
    assert still.status_code == 200
    assert mine.status_code == 200
    assert after.status_code == 404
