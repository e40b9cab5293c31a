"""The gateway speaks MCP 2025-03-26, 2025-06-18 and 2025-11-25 (issue 13 §3), over loopback.

A client asks for a version in ``initialize`` and gets it when the gateway speaks it (else
the newest). Afterwards its ``MCP-Protocol-Version`` header is checked against the version
its session negotiated: none (a 2025-03-26 client sends none) or the session's own or an
older one the gateway speaks is served; one newer than the session's, or one the gateway
does not speak, is 400 naming what it speaks. The sandbox venue keeps the live venue's two.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import pytest
from attack_kit import Attacked, attacked_gateway

from ordergate.mcpserve import MCP_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS, Session
from ordergate.mcpserve._versions import version_problem

ACCEPT = "application/json, text/event-stream"


def _initialize(gw: Attacked, token: str, version: str) -> tuple[str, dict[str, Any]]:
    response = gw.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "versions-test", "version": "1"},
            },
        },
        headers={"authorization": f"Bearer {token}", "accept": ACCEPT},
    )
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"], response.json()["result"]


def _list(gw: Attacked, token: str, session_id: str | None, version: str | None) -> httpx2.Response:
    headers = {"authorization": f"Bearer {token}", "accept": ACCEPT}
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    if version is not None:
        headers["mcp-protocol-version"] = version
    return gw.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
    )


@pytest.mark.req("mcp.versions.negotiated")
def test_each_of_the_three_versions_is_negotiated_and_an_unknown_one_gets_the_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with attacked_gateway(tmp_path, monkeypatch) as gw:
        token = gw.access_token()
        answered = {
            asked: _initialize(gw, token, asked)[1]["protocolVersion"]
            for asked in ("2025-03-26", "2025-06-18", "2025-11-25", "2024-11-05")
        }
    assert answered == {
        "2025-03-26": "2025-03-26",
        "2025-06-18": "2025-06-18",
        "2025-11-25": "2025-11-25",
        "2024-11-05": "2025-11-25",
    }
    assert MCP_PROTOCOL_VERSIONS == ("2025-11-25", "2025-06-18", "2025-03-26")


@pytest.mark.req("mcp.versions.negotiated")
def test_a_2025_03_26_client_without_the_header_lists_tools_on_its_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with attacked_gateway(tmp_path, monkeypatch) as gw:
        token = gw.access_token()
        session_id, result = _initialize(gw, token, "2025-03-26")
        assert result["capabilities"]["tools"] == {"listChanged": False}
        listed = _list(gw, token, session_id, None)
        stateless = _list(gw, token, None, "2025-03-26")
    assert listed.status_code == 200
    assert "gate_how" in {tool["name"] for tool in listed.json()["result"]["tools"]}
    assert stateless.status_code == 200


@pytest.mark.req("mcp.versions.negotiated")
def test_the_header_is_checked_against_the_sessions_negotiated_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with attacked_gateway(tmp_path, monkeypatch) as gw:
        token = gw.access_token()
        newest, _ = _initialize(gw, token, "2025-11-25")
        oldest, _ = _initialize(gw, token, "2025-03-26")
        # The conformance suite's SSE scenarios: 2025-03-26 on a 2025-11-25 session.
        older = _list(gw, token, newest, "2025-03-26")
        own = _list(gw, token, oldest, "2025-03-26")
        newer = _list(gw, token, oldest, "2025-11-25")
        unknown = _list(gw, token, newest, "1999-01-01")
        malformed = _list(gw, token, None, "x" * 40)
    assert (older.status_code, own.status_code) == (200, 200)
    assert newer.status_code == 400
    assert newer.json()["error"]["message"] == (
        "MCP-Protocol-Version 2025-11-25 is newer than this session's negotiated 2025-03-26"
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"]["message"] == (
        "Unsupported protocol version: 1999-01-01 "
        "(this server speaks 2025-11-25, 2025-06-18, 2025-03-26)"
    )
    assert malformed.status_code == 400
    assert "(malformed)" in malformed.json()["error"]["message"]


def test_the_venue_keeps_the_live_venues_two_versions() -> None:
    session = Session("s", "2025-06-18", "client", datetime(2026, 12, 1, tzinfo=UTC))
    assert SUPPORTED_PROTOCOL_VERSIONS == ("2025-11-25", "2025-06-18")
    refused = version_problem(b"2025-03-26", session=session, versions=SUPPORTED_PROTOCOL_VERSIONS)
    assert refused == (
        "Unsupported protocol version: 2025-03-26 (this server speaks 2025-11-25, 2025-06-18)"
    )
    assert version_problem(None, session=session, versions=SUPPORTED_PROTOCOL_VERSIONS) is None


def _batch(gw: Attacked, token: str, session_id: str | None, batch: Any) -> httpx2.Response:
    headers = {"authorization": f"Bearer {token}", "accept": ACCEPT}
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    return gw.post("/mcp", json=batch, headers=headers)


@pytest.mark.req("mcp.versions.negotiated")
def test_a_2025_03_26_session_receives_json_rpc_batches_answered_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with attacked_gateway(tmp_path, monkeypatch) as gw:
        token = gw.access_token()
        session_id, _ = _initialize(gw, token, "2025-03-26")
        answered = _batch(
            gw,
            token,
            session_id,
            [
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": "a", "method": "ping"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}},
                {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
                "not a message",
                {"jsonrpc": "2.0", "id": 5, "result": {}},
                {
                    "jsonrpc": "2.0",
                    "id": 6,
                    "method": "tools/call",
                    "params": {"name": "get_equity_quotes", "arguments": {"symbols": ["AAPL"]}},
                },
            ],
        )
        quiet = _batch(
            gw, token, session_id, [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
        )
    assert answered.status_code == 200, answered.text
    assert answered.headers["mcp-session-id"] == session_id
    ping, listed, initialize, unknown, malformed, forwarded = answered.json()
    assert ping == {"jsonrpc": "2.0", "id": "a", "result": {}}
    assert listed["id"] == 2 and "gate_how" in {t["name"] for t in listed["result"]["tools"]}
    assert initialize["error"]["message"] == "initialize cannot be part of a batch"
    assert (unknown["id"], unknown["error"]["code"]) == (4, -32601)
    assert malformed["id"] is None and malformed["error"]["code"] == -32600
    # A forwarded read's result is written once by the gateway and put in the batch as it is.
    assert forwarded["id"] == 6 and forwarded["result"]["isError"] is False
    structured = forwarded["result"]["structuredContent"]
    assert structured["data"]["results"][0]["quote"]["symbol"] == "AAPL"
    assert json.loads(forwarded["result"]["content"][0]["text"]) == structured
    assert quiet.status_code == 202


@pytest.mark.req("mcp.versions.negotiated")
def test_a_batch_anywhere_else_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    with attacked_gateway(tmp_path, monkeypatch) as gw:
        token = gw.access_token()
        newest, _ = _initialize(gw, token, "2025-11-25")
        oldest, _ = _initialize(gw, token, "2025-03-26")
        on_newest = _batch(gw, token, newest, [ping])
        stateless = _batch(gw, token, None, [ping])
        empty = _batch(gw, token, oldest, [])
        unknown = _batch(gw, token, "0" * 32, [ping])
        newer_header = gw.post(
            "/mcp",
            json=[ping],
            headers={
                "authorization": f"Bearer {token}",
                "accept": ACCEPT,
                "mcp-session-id": oldest,
                "mcp-protocol-version": "2025-06-18",
            },
        )
    for refused in (on_newest, stateless, empty, newer_header):
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == -32600
    assert unknown.status_code == 404
