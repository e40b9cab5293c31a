"""The sandbox venue stays in the handshake era, as the live venue is, without breaking a
client of MCP 2026-07-28: such a client probes ``server/discover`` first, and the venue's
answer (the handshake era's 400, never -32022 naming only stateless versions) makes it fall
back to ``initialize``, as the specification has a dual-era client do."""

from __future__ import annotations

import anyio
import httpx2
from venue_testkit import running_venue

STATELESS = "2026-07-28"


def test_a_stateless_probe_gets_the_handshake_eras_400_and_no_32022() -> None:
    with running_venue() as venue:
        probe = venue.post(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "server/discover",
                "params": {
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": STATELESS,
                        "io.modelcontextprotocol/clientCapabilities": {},
                    }
                },
            },
            **{"mcp-protocol-version": STATELESS, "mcp-method": "server/discover"},
        )
    assert probe.status_code == 400
    assert probe.json()["error"]["code"] != -32022


def test_the_python_sdk_in_its_default_mode_falls_back_and_reads_a_quote() -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    with running_venue() as venue:
        token = venue.token
        assert token is not None

        async def main() -> tuple[bool, bool, str]:
            headers = {"authorization": f"Bearer {token}"}
            with anyio.fail_after(60):
                return await session(headers)

        async def session(headers: dict[str, str]) -> tuple[bool, bool, str]:
            async with (
                httpx2.AsyncClient(headers=headers, timeout=30) as http,
                Client(streamable_http_client(venue.mcp_url, http_client=http)) as client,
            ):
                tools = await client.list_tools()
                quote = await client.call_tool("get_equity_quotes", {"symbols": ["AAPL"]})
                assert isinstance(quote.structured_content, dict)
                symbol = quote.structured_content["data"]["results"][0]["quote"]["symbol"]
                shook_hands = client.session.initialize_result is not None
                return shook_hands, bool(tools.tools), str(symbol)

        assert anyio.run(main) == (True, True, "AAPL")
