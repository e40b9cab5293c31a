"""The gateway's whole ASGI app driven in its own event loop, as ASGI messages, for tests
that compare what two ways in answer (the fast read path and the general one; the stateless
era and the handshake era): one gateway with a stepped clock (the venue's quotes stand still,
the rate limits' windows too), its tokens, its sessions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from gateway_testkit import OPEN, sandbox_gateway

from ordergate.callers import CallerKey
from ordergate.core import Secret, SteppedClock
from ordergate.gateway._config import GatewayConfig, RateLimits
from ordergate.gateway._fast_reads import ForwardedReads
from ordergate.gateway._minting import mint_owner_tokens
from ordergate.gateway._serve import GatewayServer
from ordergate.ledger import Ledger

BOUND_S = 30
MASTER = "fast-reads-master-secret-" + "f" * 24
ACCEPT = b"application/json, text/event-stream"
QUOTE = {"name": "get_equity_quotes", "arguments": {"symbols": ["AAPL"]}}
POLICY = """
approval = "never"
[symbols]
allow = ["SPY"]
"""
LIVE_POLICY = 'mode = "live"\nreal_money = true\n' + POLICY
"""Live: every read forwarded, quotes too."""
SLIPPED_POLICY = POLICY + "[paper]\nslippage_bps = 25\n"
"""Paper with slippage: the venue's engine's caller answers the quotes (the paper market's)."""
SETTLE = timedelta(seconds=2)

Headers = list[tuple[bytes, bytes]]


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Headers
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Gate:
    server: GatewayServer
    url: str
    key: CallerKey
    host: bytes
    clock: SteppedClock
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def fast(self) -> ForwardedReads:
        app = self.server.app
        assert isinstance(app, ForwardedReads)
        return app

    def settle(self) -> Ledger:
        """Let what the venue placed fill as the venue fills it: the clock past its 1 s
        confirmation delay, then one pass of the guard's reconciler; the guard's ledger."""
        running = self.server.running
        assert running is not None
        self.clock.advance(SETTLE)
        self.server.run_in_loop(running.guard.reconcile(), BOUND_S)
        return running.guard.ledger

    def token(self, profile: str = "trader") -> str:
        if profile not in self.tokens:
            assert self.server.auth is not None
            pair = mint_owner_tokens(
                self.server.auth.store, client_name="fast", resource=self.url + "/mcp",
                profile=profile,
            )  # fmt: skip
            self.tokens[profile] = pair.access_token
        return self.tokens[profile]

    def headers(
        self, token: str | None, session: str | None = None, version: bytes = b"2025-11-25"
    ) -> Headers:
        headers = [
            (b"host", self.host),
            (b"accept", ACCEPT),
            (b"content-type", b"application/json"),
        ]
        if token is not None:
            headers.append((b"authorization", b"Bearer " + token.encode()))
        if session is not None:
            headers += [(b"mcp-session-id", session.encode()), (b"mcp-protocol-version", version)]
        return headers

    def exchange(
        self,
        app: Any,
        headers: Headers,
        body: bytes | list[bytes],
        *,
        method: str = "POST",
        path: str = "/mcp",
    ) -> Answer:
        chunks = [body] if isinstance(body, bytes) else body
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8787),
        }  # fmt: skip
        messages = [
            {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
            for i, chunk in enumerate(chunks)
        ]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop(0)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        self.server.run_in_loop(app(scope, receive, send), BOUND_S)
        start = sent[0]
        body_out = b"".join(m.get("body", b"") for m in sent[1:])
        return Answer(start["status"], list(start["headers"]), body_out)

    def both(self, headers: Headers, body: bytes | list[bytes], **kwargs: Any) -> Answer:
        """The fast path's answer, checked equal to the general path's; the fast path's
        counters must say it handed the request over."""
        served, passed = self.fast.served, self.fast.passed
        fast = self.exchange(self.fast, headers, body, **kwargs)
        general = self.exchange(self.fast.general, headers, body, **kwargs)
        assert fast == general
        assert (self.fast.served, self.fast.passed) == (served, passed + 1)
        return fast

    def session(self, token: str, version: str = "2025-11-25") -> str:
        answer = self.exchange(self.fast, self.headers(token), initialize(version))
        assert answer.status == 200, answer
        return dict(answer.headers)[b"mcp-session-id"].decode()


def rpc(method: str, params: Any = None, request_id: Any = 7) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if request_id is not None:
        message["id"] = request_id
    return json.dumps(message).encode()


def initialize(version: str) -> bytes:
    return rpc(
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
        request_id=0,
    )


QUOTE_CALL = rpc("tools/call", QUOTE)


def asgi_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str = POLICY, **limits: int
) -> Iterator[Gate]:
    key = CallerKey.derive(Secret(MASTER))
    config = GatewayConfig(port=0, caller_key=key, limits=RateLimits(**limits))
    clock = SteppedClock(start=OPEN)
    server = sandbox_gateway(tmp_path, monkeypatch, policy=policy, config=config, clock=clock)
    with server as url:
        host = url.removeprefix("http://").encode()
        yield Gate(server=server, url=url, key=key, host=host, clock=clock)


def with_header(headers: Headers, name: bytes, value: bytes | None) -> Headers:
    """``headers`` with ``name`` set to ``value`` (``None``: without it)."""
    kept = [(n, v) for n, v in headers if n != name]
    return kept if value is None else [*kept, (name, value)]
