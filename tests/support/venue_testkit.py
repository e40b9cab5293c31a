"""Drive a running sandbox venue over real loopback HTTP, the way an outside client would."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import httpx2

from ordergate.core import SteppedClock
from ordergate.sandbox import SandboxConfig, SandboxServer

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
ACCEPT_BOTH = "application/json, text/event-stream"


@contextmanager
def running_venue(**overrides: Any) -> Iterator[VenueClient]:
    """A venue on a free loopback port with a stepped clock, and a client signed in to it."""
    settings: dict[str, Any] = {"port": 0, "seed": 7}
    settings.update(overrides)
    clock = SteppedClock(start=settings.pop("start", START))
    config = SandboxConfig(**settings)
    with SandboxServer(config, clock=clock) as sandbox, VenueClient(sandbox.base_url) as client:
        client.sign_in()
        yield client


def parse_sse(body: str) -> dict[str, Any]:
    """The JSON-RPC message carried by a one-shot SSE body."""
    data = [line[len("data:") :].strip() for line in body.splitlines() if line.startswith("data:")]
    assert data, f"no data line in SSE body: {body[:200]!r}"
    message: dict[str, Any] = json.loads("".join(data))
    return message


class VenueClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.mcp_url = base_url + "/mcp/trading"
        self.http = httpx2.Client(timeout=30.0)
        self.token: str | None = None
        self.session_id: str | None = None
        self._next_id = 0

    def __enter__(self) -> VenueClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    # -- admin knobs -------------------------------------------------------------------
    def admin(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if body is None:
            response = self.http.get(f"{self.base_url}/_sandbox/{path}")
        else:
            response = self.http.post(f"{self.base_url}/_sandbox/{path}", json=body)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    def step(self, seconds: int | str) -> str:
        now: str = self.admin("clock", {"advance_seconds": seconds})["now"]
        return now

    def faults(self, **knobs: Any) -> dict[str, Any]:
        return self.admin("faults", knobs)

    def sign_in(self) -> None:
        self.token = self.admin("tokens", {})["access_token"]

    # -- MCP ------------------------------------------------------------------------------
    def headers(self, accept: str = ACCEPT_BOTH) -> dict[str, str]:
        headers = {"accept": accept, "content-type": "application/json"}
        if self.token is not None:
            headers["authorization"] = f"Bearer {self.token}"
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        return headers

    def post(self, message: Any, *, accept: str = ACCEPT_BOTH, **headers: str) -> httpx2.Response:
        merged = {**self.headers(accept), **headers}
        return self.http.post(self.mcp_url, content=json.dumps(message), headers=merged)

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One JSON-RPC request; the decoded response message (either framing)."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        response = self.post(message)
        assert response.status_code == 200, (response.status_code, response.text)
        return decode(response)

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        response = self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "venue-testkit", "version": "1"},
                },
            }
        )
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        result: dict[str, Any] = decode(response)["result"]
        return result

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """A ``tools/call`` result (``structuredContent``, ``isError`` …)."""
        message = self.rpc("tools/call", {"name": name, "arguments": arguments or {}})
        assert "result" in message, message
        result: dict[str, Any] = message["result"]
        return result

    def data(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """The ``data`` of a successful call; fails the test on ``isError``."""
        result = self.call(name, arguments)
        assert result["isError"] is False, result
        return result["structuredContent"]["data"]

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The error payload of a call that must fail as a business error."""
        result = self.call(name, arguments)
        assert result["isError"] is True, result
        error: dict[str, Any] = result["structuredContent"]["error"]
        return error

    def agentic_account(self) -> dict[str, Any]:
        accounts = self.data("get_accounts")["accounts"]
        agentic = [a for a in accounts if a["agentic_allowed"]]
        assert len(agentic) == 1
        return dict(agentic[0])


def decode(response: httpx2.Response) -> dict[str, Any]:
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("text/event-stream"):
        return parse_sse(response.text)
    message: dict[str, Any] = response.json()
    return message
