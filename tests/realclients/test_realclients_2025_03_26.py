"""A client that speaks only MCP 2025-03-26 connects to ``ordergate serve --sandbox``.

It does what that revision's authorization section (2025-03-26, "Authorization") asks and
nothing later revisions added: metadata from RFC 8414 at the MCP server's origin (no RFC
9728 protected-resource metadata, no RFC 8707 ``resource``), dynamic registration, the
code flow with PKCE S256; then ``initialize`` asking for ``2025-03-26``, which it accepts
only back, and every later request on the session. The ``MCP-Protocol-Version`` header came
in 2025-06-18 (which says a server seeing none should assume 2025-03-26): one run sends it
naming 2025-03-26, the other sends none, as a client of that revision would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from consent_kit import approve
from gateway_testkit import sandbox_gateway
from owner_testkit import enrol

VERSION = "2025-03-26"
REDIRECT = "http://127.0.0.1:51238/callback"
BOUND_S = 30.0


class Client20250326:
    def __init__(self, http: httpx2.Client, mcp_url: str, *, header: bool) -> None:
        self.http = http
        self.mcp_url = mcp_url
        self.header = header
        self.token: str | None = None
        self.session: str | None = None
        self._id = 0

    def sign_in(self, owner_code: str) -> dict[str, Any]:
        """Discovery at the origin, registration, consent, the exchange; the token answer."""
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(self.mcp_url))
        metadata = self.http.get(
            origin + "/.well-known/oauth-authorization-server",
            headers={"MCP-Protocol-Version": VERSION},
        )
        assert metadata.status_code == 200, metadata.text
        endpoints = metadata.json()
        registered = self.http.post(
            endpoints["registration_endpoint"],
            json={
                "client_name": "mcp-2025-03-26-client",
                "redirect_uris": [REDIRECT],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            },
        )
        assert registered.status_code == 201, registered.text
        client_id = registered.json()["client_id"]
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        state = secrets.token_urlsafe(16)
        query = urlencode(
            {
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge.rstrip(b"=").decode(),
                "code_challenge_method": "S256",
                "state": state,
            }
        )
        location = approve(
            f"{endpoints['authorization_endpoint']}?{query}", owner_code, follow=False
        )
        back = {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}
        assert back["state"] == state
        tokens = self.http.post(
            endpoints["token_endpoint"],
            data={
                "grant_type": "authorization_code",
                "code": back["code"],
                "redirect_uri": REDIRECT,
                "client_id": client_id,
                "code_verifier": verifier,
            },
        )
        assert tokens.status_code == 200, tokens.text
        answer: dict[str, Any] = tokens.json()
        self.token = answer["access_token"]
        return answer

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream"}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        if self.session is not None:
            headers["Mcp-Session-Id"] = self.session
            if self.header:
                headers["MCP-Protocol-Version"] = VERSION
        return headers

    def post(self, message: dict[str, Any]) -> httpx2.Response:
        return self.http.post(self.mcp_url, json=message, headers=self._headers())

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._id += 1
        response = self.post(
            {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params or {}}
        )
        assert response.status_code == 200, (method, response.status_code, response.text)
        if method == "initialize":
            self.session = response.headers.get("mcp-session-id")
        return _answer(response, self._id)

    def notify(self, method: str) -> int:
        return self.post({"jsonrpc": "2.0", "method": method}).status_code


def _answer(response: httpx2.Response, ident: int) -> dict[str, Any]:
    """The JSON-RPC answer with ``ident``, from a JSON body or an SSE stream."""
    if response.headers["content-type"].startswith("application/json"):
        body: dict[str, Any] = response.json()
        return body
    for line in response.text.splitlines():
        if line.startswith("data:"):
            message: dict[str, Any] = json.loads(line[5:])
            if message.get("id") == ident:
                return message
    raise AssertionError(f"no answer {ident} in the stream: {response.text[:2000]}")


@pytest.mark.req("clients.real.mcp-2025-03-26")
@pytest.mark.parametrize("header", [True, False], ids=["version-header", "no-version-header"])
def test_a_client_speaking_only_2025_03_26_signs_in_and_lists_and_calls_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: bool
) -> None:
    server = sandbox_gateway(tmp_path, monkeypatch)
    codes = enrol(tmp_path / "home")
    with server as url, httpx2.Client(timeout=BOUND_S) as http:
        client = Client20250326(http, url + "/mcp", header=header)
        challenge = client.post({"jsonrpc": "2.0", "id": 0, "method": "ping"})
        assert challenge.status_code == 401
        tokens = client.sign_in(codes.next())
        init = client.request(
            "initialize",
            {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcp-2025-03-26-client", "version": "1"},
            },
        )
        assert init.get("result", {}).get("protocolVersion") == VERSION, init
        assert client.session is not None
        assert client.notify("notifications/initialized") == 202
        listing = client.request("tools/list")
        quote = client.request(
            "tools/call", {"name": "get_equity_quotes", "arguments": {"symbols": ["SPY"]}}
        )

    assert tokens["token_type"].lower() == "bearer"
    names = {tool["name"] for tool in listing["result"]["tools"]}
    assert {"get_equity_quotes", "gate_how"} <= names, listing
    result = quote["result"]
    assert result["isError"] is False, result
    assert result["structuredContent"]["data"]["results"][0]["quote"]["symbol"] == "SPY"
