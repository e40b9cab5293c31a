"""Streamable-HTTP transport for the venue's MCP endpoint (``/mcp/trading``), as a raw ASGI app.

POST only (GET answers 405; DELETE ends a session). Each POST carries one JSON-RPC message and
gets one answer, as a JSON body or a one-shot SSE stream. Requests need a bearer token from the
venue's authorization server; without one the answer is 401 with the RFC 9728 challenge.

Written directly on ASGI rather than on the SDK's server: this is the benchmarked hot path
(``ordergate bench sandbox``), and the SDK's server stack measured 3.3× a bare Starlette
endpoint where this one is asked to stay under 2.5×.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from decimal import Decimal
from typing import Any, Protocol

import anyio

from ordergate.sandbox.mcp._framing import Framing, choose_framing, encode_body
from ordergate.sandbox.mcp._jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    RpcError,
    error_response,
    result_response,
)
from ordergate.sandbox.mcp._methods import SUPPORTED_PROTOCOL_VERSIONS, Methods
from ordergate.sandbox.mcp._rebinding import host_allowed, origin_allowed

__all__ = ["McpEndpoint", "TokenVerifier"]

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_BODY = 1_000_000


class TokenVerifier(Protocol):
    def verify_access_token(self, token: str) -> object | None: ...

    def www_authenticate(self, *, error: str | None = None) -> str: ...


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {k.lower(): v for k, v in scope["headers"]}


class McpEndpoint:
    def __init__(self, *, methods: Methods, verifier: TokenVerifier, framing: Framing) -> None:
        self.methods = methods
        self.verifier = verifier
        self.framing = framing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        headers = _headers(scope)
        if not host_allowed(headers.get(b"host")):
            await _plain(send, 421, b"Host not allowed: the venue answers loopback names only")
            return
        if not origin_allowed(headers.get(b"origin")):
            await _plain(send, 403, b"Origin not allowed: the venue answers loopback origins only")
            return
        if method == "POST":
            await self._post(headers, receive, send)
        elif method == "DELETE":
            await self._delete(headers, send)
        else:
            await _plain(send, 405, b"Method Not Allowed", [(b"allow", b"POST, DELETE")])

    async def _authorized(self, headers: dict[bytes, bytes], send: Send) -> bool:
        auth = headers.get(b"authorization", b"")
        scheme, _, token = auth.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            challenge = self.verifier.www_authenticate()
        elif self.verifier.verify_access_token(token.strip()) is None:
            challenge = self.verifier.www_authenticate(error="invalid_token")
        else:
            return True
        body = b'{"error":"invalid_token","error_description":"authentication required"}'
        await _respond(
            send, 401, b"application/json", body, [(b"www-authenticate", challenge.encode())]
        )
        return False

    async def _delete(self, headers: dict[bytes, bytes], send: Send) -> None:
        if not await self._authorized(headers, send):
            return
        session_id = headers.get(b"mcp-session-id", b"").decode("latin-1")
        closed = bool(session_id) and self.methods.sessions.close(session_id)
        await _plain(send, 200 if closed else 404, b"" if closed else b"Session not found")

    async def _post(self, headers: dict[bytes, bytes], receive: Receive, send: Send) -> None:
        faults = self.methods.venue.faults
        if faults.latency_ms:
            await anyio.sleep(faults.latency_ms / 1000)
        fire, faults.drop_before = faults.take(faults.drop_before)
        if fire:
            await _drop(send)
            return
        fire, faults.http_errors = faults.take(faults.http_errors)
        if fire:
            await _plain(send, faults.http_error_status, b"Simulated upstream error")
            return
        if not await self._authorized(headers, send):
            return
        framing = choose_framing(headers.get(b"accept", b""), self.framing)
        if framing is None:
            await _plain(send, 406, b"Accept must include application/json or text/event-stream")
            return
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if content_type != b"application/json":
            await _plain(send, 415, b"Content-Type must be application/json")
            return
        body = await _read_body(receive)
        if body is None:
            await _plain(send, 413, b"Request body too large")
            return
        await self._message(headers, body, framing, send)

    async def _message(
        self, headers: dict[bytes, bytes], body: bytes, framing: Framing, send: Send
    ) -> None:
        try:
            message = json.loads(body, parse_float=Decimal)
        except ValueError:
            await self._reply(
                send, 400, framing, error_response(None, RpcError(PARSE_ERROR, "Parse error"))
            )
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            error = RpcError(INVALID_REQUEST, "expected one JSON-RPC 2.0 message object")
            await self._reply(send, 400, framing, error_response(None, error))
            return
        if "method" not in message:
            await _plain(send, 202, b"")  # a response or error from the client: nothing to answer
            return
        method = message["method"]
        request_id = message.get("id")
        params = message.get("params") or {}
        extra: list[tuple[bytes, bytes]] = []
        session_id = headers.get(b"mcp-session-id", b"").decode("latin-1")
        if method == "initialize":
            if not isinstance(params, dict):
                params = {}
            result, session = self.methods.initialize(params)
            extra.append((b"mcp-session-id", session.session_id.encode()))
            await self._reply(send, 200, framing, result_response(request_id, result), extra)
            return
        if session_id:
            if self.methods.sessions.get(session_id) is None:
                error = RpcError(INVALID_REQUEST, "Session not found")
                await self._reply(send, 404, framing, error_response(request_id, error))
                return
            extra.append((b"mcp-session-id", session_id.encode()))
        version = headers.get(b"mcp-protocol-version")
        if version is not None and version.decode("latin-1") not in SUPPORTED_PROTOCOL_VERSIONS:
            error = RpcError(
                INVALID_REQUEST, f"Unsupported protocol version: {version.decode('latin-1')}"
            )
            await self._reply(send, 400, framing, error_response(request_id, error))
            return
        if request_id is None:
            await _plain(send, 202, b"", extra)  # a notification
            return
        if not isinstance(method, str) or not isinstance(params, dict):
            error = RpcError(
                INVALID_PARAMS if isinstance(method, str) else INVALID_REQUEST, "bad request"
            )
            await self._reply(send, 200, framing, error_response(request_id, error), extra)
            return
        try:
            response = result_response(request_id, self.methods.call(method, params))
        except RpcError as error:
            response = error_response(request_id, error)
        faults = self.methods.venue.faults
        fire, faults.drop_after = faults.take(faults.drop_after)
        if fire:
            await _drop(send)  # processed, answer lost: the "unanswered" case
            return
        await self._reply(send, 200, framing, response, extra)

    async def _reply(
        self,
        send: Send,
        status: int,
        framing: Framing,
        message: dict[str, Any],
        extra: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        payload = json.dumps(message, separators=(",", ":"), default=_encode_default).encode()
        faults = self.methods.venue.faults
        malformed = False
        if framing is Framing.SSE:
            malformed, faults.malformed_sse = faults.take(faults.malformed_sse)
        content_type, body = encode_body(payload, framing, malformed=malformed)
        await _respond(send, status, content_type, body, extra or [])


def _encode_default(value: object) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _respond(
    send: Send, status: int, content_type: bytes, body: bytes, extra: list[tuple[bytes, bytes]]
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _plain(
    send: Send, status: int, text: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    await _respond(send, status, b"text/plain; charset=utf-8", text, extra or [])


async def _drop(send: Send) -> None:
    """Start an answer and abandon it: the server closes the connection mid-response."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"64")],
        }
    )
    await send({"type": "http.response.body", "body": b'{"jsonrpc"', "more_body": True})
