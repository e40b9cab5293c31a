"""The gateway's ``/mcp`` endpoint as HTTP: tokens, body cap, Host and Origin, sessions, and an
off-the-shelf MCP client (the official SDK's) over real loopback sockets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from jsonschema import Draft202012Validator
from mcp.client import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_gateway_kit import BOUND_S, TOKEN, gateway

from ordergate.gateway.mcp import MAX_BODY

pytestmark = pytest.mark.anyio

PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _padded_ping(size: int) -> bytes:
    """A ping of exactly ``size`` bytes."""
    head = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
    tail = b'"}}'
    return head + b"x" * (size - len(head) - len(tail)) + tail


async def test_a_request_without_a_token_gets_401_with_the_verifiers_challenge(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        missing = await gw.post(PING, token=None)
        foreign = await gw.post(PING, token=gw.venue.token)
        assert gw.venue.token is not None
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == gw.verifier.www_authenticate()
    assert missing.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{gw.public_url}/.well-known/oauth-protected-resource/mcp"'
    )
    # A token the gateway did not mint (here the venue's own) is refused as invalid.
    assert foreign.status_code == 401
    assert foreign.headers["www-authenticate"] == gw.verifier.www_authenticate(
        error="invalid_token"
    )
    assert gw.venue.token not in foreign.text
    assert gw.backend.forwarded == []


@pytest.mark.req("gateway.threat.oversize-body")
async def test_a_body_over_8_kb_is_refused_with_413_and_one_at_the_cap_is_served(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        at_cap = await gw.post(_padded_ping(MAX_BODY))
        over = await gw.post(_padded_ping(MAX_BODY + 1))

        async def chunks() -> Any:  # no Content-Length: the cap holds on what is read
            for _ in range(9):
                yield b" " * 1024

        streamed = await gw.http.post(
            gw.url,
            content=chunks(),
            headers={
                "authorization": f"Bearer {TOKEN}",
                "accept": "application/json",
                "content-type": "application/json",
            },
        )
    assert MAX_BODY == 8192
    assert at_cap.status_code == 200
    assert at_cap.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert over.status_code == 413
    assert streamed.status_code == 413


@pytest.mark.req("gateway.threat.host-origin")
async def test_a_foreign_host_or_origin_is_refused_before_anything_else(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        port = urlsplit(gw.public_url).port
        foreign_host = await gw.post(PING, host="evil.example.com")
        foreign_port = await gw.post(PING, host="evil.example.com:443")
        foreign_origin = await gw.post(PING, origin="http://evil.example.com")
        own_origin = await gw.post(PING, origin=gw.public_url)
        loopback_name = await gw.post(PING, host=f"localhost:{port}")
        loopback_origin = await gw.post(PING, origin="http://localhost:6274")
        unauthenticated_foreign = await gw.post(PING, token=None, host="evil.example.com")
    assert foreign_host.status_code == foreign_port.status_code == 421
    assert foreign_host.text == (
        "Host not allowed: the gateway answers its own host and loopback names only"
    )
    assert foreign_origin.status_code == 403
    assert unauthenticated_foreign.status_code == 421
    for allowed in (own_origin, loopback_name, loopback_origin):
        assert allowed.status_code == 200, allowed.text


async def test_initialize_opens_a_session_that_delete_ends(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        hello = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "gateway-test", "version": "1"},
            },
        }
        opened = await gw.post(json.dumps(hello).encode())
        session = opened.headers["mcp-session-id"]
        inside = await gw.post(PING, **{"mcp-session-id": session})
        ended = await gw.http.delete(
            gw.url, headers={"authorization": f"Bearer {TOKEN}", "mcp-session-id": session}
        )
        after = await gw.post(PING, **{"mcp-session-id": session})
    result = opened.json()["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"]["name"] == "ordergate-gateway"
    assert "gate_how" in result["instructions"]
    assert inside.status_code == 200
    assert inside.headers["mcp-session-id"] == session
    assert ended.status_code == 200
    assert after.status_code == 404


async def test_protocol_errors_are_fixed_sentences(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        unknown = await gw.rpc("resources/list")
        cursor = await gw.rpc("tools/list", {"cursor": "abc"})
        get = await gw.http.get(gw.url, headers={"authorization": f"Bearer {TOKEN}"})
        no_arguments = await gw.rpc("tools/call", {"name": "gate_record"})
    assert no_arguments["result"]["isError"] is False
    assert unknown["error"] == {"code": -32601, "message": "Method not found"}
    assert cursor["error"] == {"code": -32602, "message": "invalid cursor"}
    assert get.status_code == 405


async def test_a_principal_without_a_connection_is_served_nothing(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        gw.verifier.connection = ""
        answer = await gw.rpc("tools/list")
    assert answer["error"]["code"] == -32603
    assert gw.backend.list_reads == 0


async def test_the_mcp_sdk_client_lists_reads_and_places_a_paper_order_through_the_gateway(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        with anyio.fail_after(BOUND_S):
            async with (
                httpx2.AsyncClient(
                    headers={"authorization": f"Bearer {TOKEN}"}, timeout=BOUND_S
                ) as http,
                streamable_http_client(gw.url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                init = await session.initialize()
                listed = await session.list_tools()
                # The SDK checks each result against the tool's listed output schema.
                quote = await session.call_tool("get_equity_quotes", {"symbols": ["SPY"]})
                order = await session.call_tool(
                    "place_equity_order",
                    {
                        "account_number": gw.account,
                        "symbol": "SPY",
                        "side": "buy",
                        "type": "market",
                        "quantity": "1",
                    },
                )
                refused = await session.call_tool("place_crypto_order", {})
        await gw.settle()
    assert init.server_info.name == "ordergate-gateway"
    names = [tool.name for tool in listed.tools]
    assert names[-3:] == ["gate_how", "gate_record", "gate_disconnect"]
    assert listed.next_cursor is None
    assert quote.is_error is False
    schema = next(t.output_schema for t in listed.tools if t.name == "get_equity_quotes")
    assert schema is not None
    Draft202012Validator(schema).validate(quote.structured_content)
    assert order.is_error is False
    assert order.structured_content is not None
    data = order.structured_content["data"]
    assert data["status"] == "submitted"  # placed; filled once settled
    assert gw.ledger.filing(data["filing_id"]).status.value == "filled"
    assert refused.is_error is True


async def test_a_forwarded_read_is_answered_under_the_id_it_was_asked_with(
    tmp_path: Path,
) -> None:
    # A forwarded read's result is written once and the message put around it: the id goes
    # back as the JSON value it came as (an integer, a string, a number with a fraction).
    params = {"name": "get_equity_quotes", "arguments": {"symbols": ["AAPL"]}}
    async with gateway(tmp_path) as gw:
        answers = [
            await gw.post(
                json.dumps(
                    {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
                ).encode()
            )
            for rid in (7, "read-7", 1.5)
        ]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert [answer.json()["id"] for answer in answers] == [7, "read-7", 1.5]
    assert b'"id":1.5,' in answers[2].content
    for answer in answers:
        result = answer.json()["result"]
        assert result["isError"] is False
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        assert result["structuredContent"]["data"]["results"][0]["quote"]["symbol"] == "AAPL"
