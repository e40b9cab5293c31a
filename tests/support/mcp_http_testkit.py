"""An MCP session at a server over plain JSON-RPC POSTs with one bearer token, as an agent
that does not use the SDK would hold it: the handshake, then ``tools/list`` and ``tools/call``."""

from __future__ import annotations

import json
from typing import Any

import httpx2

PROTOCOL = "2025-06-18"
BOUND_S = 30


class McpSession:
    """``McpSession(base_url, token)``: ``handshake`` is the ``initialize`` answer (any status,
    so a refusal can be checked); the session headers are kept once it succeeds."""

    def __init__(self, base_url: str, token: str, headers: dict[str, str] | None = None) -> None:
        self.http = httpx2.Client(timeout=BOUND_S)
        self.url = base_url + "/mcp"
        self.headers = {
            "authorization": f"Bearer {token}",
            "accept": "application/json, text/event-stream",
            **(headers or {}),
        }
        self.handshake = self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-http-test", "version": "0"},
                },
            }
        )
        if self.handshake.status_code == 200:
            self.headers["mcp-session-id"] = self.handshake.headers["mcp-session-id"]
            self.headers["mcp-protocol-version"] = PROTOCOL
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, message: dict[str, Any]) -> httpx2.Response:
        return self.http.post(self.url, json=message, headers=self.headers)

    def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = self.post({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert "result" in body, body
        result: dict[str, Any] = body["result"]
        return result

    def tools(self) -> set[str]:
        return {str(tool["name"]) for tool in self.result("tools/list", {})["tools"]}

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The whole ``tools/call`` result (its text and structured content agree)."""
        result = self.result("tools/call", {"name": name, "arguments": arguments or {}})
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        return result

    def tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The structured content of a ``tools/call``."""
        structured: dict[str, Any] = self.call(name, arguments)["structuredContent"]
        return structured

    def close(self) -> None:
        self.http.close()


def agentic_account(session: McpSession) -> str:
    """The number of the first account the venue lets agents trade, read through ``session``."""
    accounts = session.tool("get_accounts", {})["data"]["accounts"]
    return str(next(row for row in accounts if row["agentic_allowed"])["account_number"])


def nearest_calls(session: McpSession, symbol: str = "AAPL") -> list[dict[str, Any]]:
    """``symbol``'s calls of the nearest expiry as the venue lists them, read through
    ``session``."""
    chain = session.tool("get_option_chains", {"underlying_symbol": symbol})["data"]
    day = chain["chains"][0]["expiration_dates"][0]
    listed: list[dict[str, Any]] = session.tool(
        "get_option_instruments",
        {"chain_symbol": symbol, "expiration_dates": day, "type": "call"},
    )["data"]["instruments"]
    return listed


def ask_exercise(
    base_url: str, token: str, quantity: int = 1
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An agent holding ``token`` asks the server at ``base_url`` to exercise ``quantity`` of
    the first AAPL call it lists of the nearest expiry: the answer's data and the contract."""
    session = McpSession(base_url, token)
    try:
        contract = nearest_calls(session)[0]
        asked = {
            "account_number": agentic_account(session),
            "option_id": contract["id"],
            "quantity": quantity,
        }
        data: dict[str, Any] = session.tool("exercise_option", asked)["data"]
    finally:
        session.close()
    return data, contract
