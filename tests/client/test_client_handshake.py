"""The plain JSON-RPC ``initialize`` handshake: what it sends, and every answer it refuses."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ordergate.client._handshake import HANDSHAKE_VERSIONS, MCPError, handshake

pytestmark = pytest.mark.anyio

URL = "http://venue.test/mcp"
GOOD = {"protocolVersion": "2025-06-18", "serverInfo": {"name": "venue", "version": "1.2"}}


def _venue(result: Any, *, received: list[dict[str, Any]], sse: bool = False) -> Starlette:
    async def mcp(request: Request) -> Response:
        message = json.loads(await request.body())
        received.append({"message": message, "headers": dict(request.headers)})
        if "id" not in message:
            return Response(status_code=202)
        answer = {"jsonrpc": "2.0", "id": message["id"], **result}
        if sse:
            body = f"event: message\ndata: {json.dumps(answer)}\n\n"
            return Response(body, media_type="text/event-stream")
        return JSONResponse(answer, headers={"mcp-session-id": "s-1"})

    return Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])


async def _shake(app: Starlette) -> Any:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as http:
        return await handshake(http, URL, name="agent", version="9")


async def test_the_handshake_offers_the_newest_revision_and_adopts_the_answered_one() -> None:
    received: list[dict[str, Any]] = []
    session = await _shake(_venue({"result": GOOD}, received=received))
    assert (session.session_id, session.protocol_version) == ("s-1", "2025-06-18")
    assert (session.server_name, session.server_version) == ("venue", "1.2")
    initialize, initialized = received
    assert initialize["message"]["params"] == {
        "protocolVersion": HANDSHAKE_VERSIONS[-1],
        "capabilities": {},
        "clientInfo": {"name": "agent", "version": "9"},
    }
    assert initialized["message"] == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert initialized["headers"]["mcp-session-id"] == "s-1"
    assert initialized["headers"]["mcp-protocol-version"] == "2025-06-18"


async def test_an_sse_answer_without_a_session_id_is_a_session_without_an_id() -> None:
    received: list[dict[str, Any]] = []
    session = await _shake(_venue({"result": GOOD}, received=received, sse=True))
    assert session.session_id is None
    assert "mcp-session-id" not in received[1]["headers"]


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ({"error": {"code": -32600, "message": "no thanks"}}, "no thanks"),
        ({"error": "broken"}, "refused initialize"),
        ({"result": []}, "has no result"),
        ({"result": {**GOOD, "protocolVersion": "2099-01-01"}}, "unsupported protocol"),
        ({"result": {**GOOD, "protocolVersion": 7}}, "no protocolVersion"),
        ({"result": {"protocolVersion": "2025-11-25"}}, "no serverInfo"),
        ({"result": {**GOOD, "serverInfo": {"name": "venue"}}}, "no serverInfo.version"),
    ],
)
async def test_an_answer_that_is_not_an_initialize_result_is_no_session(
    answer: dict[str, Any], says: str
) -> None:
    received: list[dict[str, Any]] = []
    with pytest.raises(MCPError, match=says):
        await _shake(_venue(answer, received=received))
    assert len(received) == 1  # nothing announced as initialized


async def test_an_http_error_to_initialize_is_an_mcp_error_naming_the_status() -> None:
    async def refuse(request: Request) -> Response:
        return Response(status_code=503)

    app = Starlette(routes=[Route("/mcp", refuse, methods=["POST"])])
    with pytest.raises(MCPError, match="HTTP 503 to initialize"):
        await _shake(app)
