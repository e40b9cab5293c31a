"""Streamable-HTTP transport for an MCP endpoint, as a raw ASGI app.

POST only (GET answers 405; DELETE ends a session). Each POST carries one JSON-RPC message and
gets one answer, as a JSON body or a one-shot SSE stream. Checks run in this order, each
answering before anything later is read:

1. ``Host`` and ``Origin`` (DNS rebinding, ``HostPolicy``): 421 / 403 — here, or by a
   ``HostCheck`` around the app the endpoint is mounted in;
2. the method: 405;
3. injected faults, when a simulator supplies them (``TransportFaults``);
4. the bearer token, through the server's verifier: 401 with the server's challenge;
5. ``Accept`` (406), ``Content-Type`` (415), the body size (``max_body``: 413);
6. the JSON-RPC message (unparseable, or nested past ``MAX_JSON_DEPTH``: 400 with a parse
   error); a request's admission (``admit``, a server's rate limit: 429 with ``Retry-After``
   and a JSON-RPC error whose ``data`` carries ``retry_after``); the session and the
   protocol version (``_versions``); then the server's methods.

Each server names the protocol versions it speaks (``versions``, newest first): the venue
the live venue's, the gateway every version a client people use may ask for. A server that
speaks 2025-03-26 also receives JSON-RPC batches on a session negotiated at it, as that
version requires (``_batch``); anything else sent as an array is the 400 above.

Each server (the sandbox venue, the gateway) supplies its own ``ServerMethods`` and its own
token verifier — async, so a verifier that reads a database does not stall the loop
(``async_verifier`` wraps one that never blocks); the principal it returns is handed to
``ServerMethods.call``. With ``session_owner`` a session is bound to the principal that opened
it: another principal naming it, to use or to ``DELETE`` it, gets the same 404 as for a
session that does not exist.

Written directly on ASGI rather than on the SDK's server: this is the benchmarked hot path
(``ordergate bench sandbox``), and the SDK's server stack measured 3.3× a bare Starlette
endpoint where this one is asked to stay under 2.5×.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Generic, Protocol, TypeVar

from ordergate.mcpserve._framing import Framing, choose_framing, encode_body
from ordergate.mcpserve._json import dumps_decimal_strings, loads_json
from ordergate.mcpserve._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    RpcError,
    error_response,
    result_response,
)
from ordergate.mcpserve._methods import (
    DROP,
    LEGACY_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    ServerMethods,
    TransportFaults,
)
from ordergate.mcpserve._rebinding import HostPolicy
from ordergate.mcpserve._results import Asking, EncodedResult, Result
from ordergate.mcpserve._sessions import Session
from ordergate.mcpserve._stateless import (
    Peer,
    envelope,
    http_status,
    is_stateless,
    shaped,
)
from ordergate.mcpserve._versions import version_problem

__all__ = [
    "DEFAULT_MAX_BODY",
    "RATE_LIMITED",
    "Admit",
    "Challenge",
    "McpEndpoint",
    "async_verifier",
]

logger = logging.getLogger(__name__)

Reply = dict[str, Any] | bytes
"""One response: a JSON-RPC message, or one already encoded (around an ``EncodedResult``)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

DEFAULT_MAX_BODY = 1_000_000

RATE_LIMITED = -32029
"""The JSON-RPC error code of a request refused by a server's rate limit (in the range
JSON-RPC leaves to servers; MCP defines none). Its ``data``: ``{"code": "RATE_LIMITED",
"retry_after": SECONDS}``, the seconds also in the 429's ``Retry-After``."""

P = TypeVar("P")
P_contra = TypeVar("P_contra", contravariant=True)


class Admit(Protocol[P_contra]):
    async def __call__(
        self, principal: P_contra, method: str | None = None, params: object = None
    ) -> float | None:
        """Count one request of ``principal`` (its JSON-RPC ``method`` and ``params`` when
        known, so a server may count what it answers itself apart from what it forwards):
        ``None`` to serve it, else how many seconds until it would be (the request is
        refused)."""
        ...


class Challenge(Protocol):
    def __call__(self, *, error: str | None = None) -> str:
        """The ``WWW-Authenticate`` value of a 401 (``error="invalid_token"`` for a bad one)."""
        ...


def async_verifier(verify: Callable[[str], P | None]) -> Callable[[str], Awaitable[P | None]]:
    """A verifier that never blocks (an in-memory lookup), as the endpoint calls one."""

    async def verified(token: str) -> P | None:
        return verify(token)

    return verified


def _headers(scope: Scope) -> dict[bytes, bytes]:
    # ASGI servers give header names lowercased (the spec requires it); a repeated header's
    # last value counts.
    return dict(scope["headers"])


class McpEndpoint(Generic[P]):
    """The ASGI app. ``verify`` maps a bearer token to the server's principal (``None``: not
    a token this server accepts); ``challenge`` builds the 401's ``WWW-Authenticate``;
    ``session_owner`` the key a principal's sessions are bound to (``None``: unbound).
    ``check_hosts=False`` leaves ``Host`` and ``Origin`` to a ``HostCheck`` around the whole
    app, so the hot path does not check them twice."""

    def __init__(
        self,
        *,
        methods: ServerMethods[P],
        verify: Callable[[str], Awaitable[P | None]],
        challenge: Challenge,
        framing: Framing,
        hosts: HostPolicy | None = None,
        check_hosts: bool = True,
        session_owner: Callable[[P], str] | None = None,
        max_body: int = DEFAULT_MAX_BODY,
        faults: TransportFaults | None = None,
        dumps: Callable[[Any], bytes] = dumps_decimal_strings,
        versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS,
        stateless_versions: tuple[str, ...] = (),
        listing_ttl_ms: int = 0,
        admit: Admit[P] | None = None,
    ) -> None:
        if max_body < 1:
            raise ValueError("max_body must be at least one byte")
        self.methods = methods
        self.verify = verify
        self.challenge = challenge
        self.framing = framing
        self.hosts = hosts or HostPolicy()
        self.check_hosts = check_hosts
        self.session_owner = session_owner
        self.max_body = max_body
        self.faults = faults
        self.dumps = dumps
        self.versions = versions
        self.stateless_versions = stateless_versions
        self.every_version = (*stateless_versions, *versions)
        self.listing_ttl_ms = listing_ttl_ms
        self.admit = admit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        if self.check_hosts:
            refused = self.hosts.refusal(scope["headers"])
            if refused is not None:
                await _plain(send, *refused)
                return
        headers = _headers(scope)
        if method == "POST":
            await self._post(headers, scope["headers"], receive, send)
        elif method == "DELETE":
            await self._delete(headers, send)
        else:
            await _plain(send, 405, b"Method Not Allowed", [(b"allow", b"POST, DELETE")])

    async def _authorized(self, headers: dict[bytes, bytes], send: Send) -> P | None:
        """The request's principal, or ``None`` once a 401 has been sent."""
        auth = headers.get(b"authorization", b"")
        scheme, _, token = auth.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            challenge = self.challenge()
        else:
            principal = await self.verify(token.strip())
            if principal is not None:
                return principal
            challenge = self.challenge(error="invalid_token")
        body = b'{"error":"invalid_token","error_description":"authentication required"}'
        await _respond(
            send, 401, b"application/json", body, [(b"www-authenticate", challenge.encode())]
        )
        return None

    def _owner(self, principal: P) -> str | None:
        return None if self.session_owner is None else self.session_owner(principal)

    async def _delete(self, headers: dict[bytes, bytes], send: Send) -> None:
        principal = await self._authorized(headers, send)
        if principal is None:
            return
        session_id = headers.get(b"mcp-session-id", b"").decode("latin-1")
        owner = self._owner(principal)
        closed = bool(session_id) and self.methods.sessions.close(session_id, owner)
        await _plain(send, 200 if closed else 404, b"" if closed else b"Session not found")

    async def _post(
        self,
        headers: dict[bytes, bytes],
        raw_headers: list[tuple[bytes, bytes]],
        receive: Receive,
        send: Send,
    ) -> None:
        if self.faults is not None:
            action = await self.faults.before()
            if action == DROP:
                await _drop(send)
                return
            if action is not None:
                await _plain(send, action, b"Simulated upstream error")
                return
        principal = await self._authorized(headers, send)
        if principal is None:
            return
        framing = choose_framing(headers.get(b"accept", b""), self.framing)
        if framing is None:
            await _plain(send, 406, b"Accept must include application/json or text/event-stream")
            return
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if content_type != b"application/json":
            await _plain(send, 415, b"Content-Type must be application/json")
            return
        body = await _read_body(receive, headers.get(b"content-length"), self.max_body)
        if body is None:
            await _plain(send, 413, b"Request body too large")
            return
        await self._message(headers, raw_headers, body, framing, send, principal)

    async def _message(
        self,
        headers: dict[bytes, bytes],
        raw_headers: list[tuple[bytes, bytes]],
        body: bytes,
        framing: Framing,
        send: Send,
        principal: P,
    ) -> None:
        try:
            message = loads_json(body)
        except ValueError:
            await self.reply(
                send, 400, framing, error_response(None, RpcError(PARSE_ERROR, "Parse error"))
            )
            return
        if isinstance(message, list) and LEGACY_PROTOCOL_VERSION in self.versions:
            await self._batch(headers, message, framing, send, principal)
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            error = RpcError(INVALID_REQUEST, "expected one JSON-RPC 2.0 message object")
            await self.reply(send, 400, framing, error_response(None, error))
            return
        if "method" not in message:
            await _plain(send, 202, b"")  # a response or error from the client: nothing to answer
            return
        method = message["method"]
        request_id = message.get("id")
        if is_stateless(
            headers.get(b"mcp-protocol-version"), message, speaks=self.stateless_versions
        ):
            await self._stateless(headers, raw_headers, message, framing, send, principal)
            return
        if request_id is not None and self.admit is not None:
            wait = await self.admit(principal, method, message.get("params"))
            if wait is not None:
                await self.limited(send, framing, request_id, wait)
                return
        params = message.get("params") or {}
        extra: list[tuple[bytes, bytes]] = []
        session_id = headers.get(b"mcp-session-id", b"").decode("latin-1")
        if method == "initialize":
            if not isinstance(params, dict):
                params = {}
            result, session = await self.methods.initialize(params, principal)
            owner = self._owner(principal)
            if owner is not None:
                self.methods.sessions.bind(session.session_id, owner)
            extra.append((b"mcp-session-id", session.session_id.encode()))
            await self.reply(send, 200, framing, result_response(request_id, result), extra)
            return
        current: Session | None = None
        if session_id:
            current = self.methods.sessions.get(session_id, self._owner(principal))
            if current is None:
                error = RpcError(INVALID_REQUEST, "Session not found")
                await self.reply(send, 404, framing, error_response(request_id, error))
                return
            extra.append((b"mcp-session-id", session_id.encode()))
        problem = version_problem(
            headers.get(b"mcp-protocol-version"), session=current, versions=self.versions
        )
        if problem is not None:
            error = RpcError(INVALID_REQUEST, problem)
            await self.reply(send, 400, framing, error_response(request_id, error))
            return
        if request_id is None:
            await _plain(send, 202, b"", extra)  # a notification
            return
        peer = _handshake_peer(current, headers.get(b"mcp-protocol-version"))
        asked: list[dict[str, Any]] = []
        response = await self._answer(request_id, method, params, principal, peer, asked)
        if self.faults is not None and self.faults.drop_answer():
            await _drop(send)  # processed, answer lost: the "unanswered" case
            return
        if asked and b"text/event-stream" in headers.get(b"accept", b"").lower():
            # What the server asks the client, on the answer's stream before the answer.
            body = b"".join(encode_body(self.dumps(request), Framing.SSE)[1] for request in asked)
            last = response if isinstance(response, bytes) else self.dumps(response)
            body += encode_body(last, Framing.SSE)[1]
            await _respond(send, 200, b"text/event-stream", body, extra)
            return
        await self.reply(send, 200, framing, response, extra)

    async def _answer(
        self,
        request_id: Any,
        method: Any,
        params: Any,
        principal: P,
        peer: Peer,
        asked: list[dict[str, Any]] | None = None,
    ) -> Reply:
        """The response to one request (not ``initialize``), a result or an error; what the
        result asks the client first (``Asking``) goes in ``asked``, each with an id."""
        if not isinstance(method, str) or not isinstance(params, dict):
            error = RpcError(
                INVALID_PARAMS if isinstance(method, str) else INVALID_REQUEST, "bad request"
            )
            return error_response(request_id, error)
        call = self.methods.call(method, params, principal, peer)
        return await self.respond(
            request_id,
            call if asked is None else _asking(call, asked),
            method if peer.stateless else None,
        )

    async def _stateless(
        self,
        headers: dict[bytes, bytes],
        raw_headers: list[tuple[bytes, bytes]],
        message: dict[str, Any],
        framing: Framing,
        send: Send,
        principal: P,
    ) -> None:
        """A request of the stateless era (``_stateless``): admitted as any other, its
        envelope checked, then answered without a session, its result shaped for the era
        and its error with the status the specification gives its code."""
        method = message["method"]
        request_id = message.get("id")
        if request_id is not None and self.admit is not None:
            wait = await self.admit(principal, method, message.get("params"))
            if wait is not None:
                await self.limited(send, framing, request_id, wait)
                return
        try:
            peer = envelope(
                message,
                raw_headers,
                speaks=self.stateless_versions,
                every_version=self.every_version,
            )
        except RpcError as error:
            if request_id is None:  # a notification the client sends at a version not spoken
                await _plain(send, http_status(error.code), b"")
                return
            await self.reply(
                send, http_status(error.code), framing, error_response(request_id, error)
            )
            return
        if request_id is None:
            await _plain(send, 202, b"")  # a notification: nothing acts on one statelessly
            return
        if method == "subscriptions/listen":
            await self._listen(headers, request_id, send)
            return
        response = await self._answer(request_id, method, message["params"], principal, peer)
        status = 200
        if isinstance(response, dict) and "error" in response:
            status = http_status(response["error"]["code"])
        await self.reply(send, status, framing, response)

    async def _listen(self, headers: dict[bytes, bytes], request_id: Any, send: Send) -> None:
        """``subscriptions/listen``: a server that sends no notifications (its lists do not
        change while a client is connected) acknowledges none of those asked for and ends
        the subscription at once, gracefully, as the specification lets it."""
        if b"text/event-stream" not in headers.get(b"accept", b"").lower():
            await _plain(send, 406, b"subscriptions/listen answers as text/event-stream")
            return
        acknowledged = {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "notifications": {},
                "_meta": {"io.modelcontextprotocol/subscriptionId": request_id},
            },
        }
        ended = result_response(
            request_id,
            {
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/subscriptionId": request_id},
            },
        )
        body = b"".join(
            encode_body(self.dumps(item), Framing.SSE)[1] for item in (acknowledged, ended)
        )
        await _respond(send, 200, b"text/event-stream", body, [])

    async def respond(
        self, request_id: Any, call: Awaitable[Result], stateless: str | None = None
    ) -> Reply:
        """The response to request ``request_id`` whose answer ``call`` gives: its result, or
        the error it raised (``RpcError`` as it is; anything else, a server's bug, as an
        internal error, logged by its type only). ``stateless``: the method of a request of
        the stateless era, whose result is shaped for it (``_stateless.shaped``)."""
        try:
            result = await call
            if stateless is not None:
                result = shaped(stateless, result, ttl_ms=self.listing_ttl_ms)
            if isinstance(result, EncodedResult):
                # An integer id (what clients send) is its digits; anything else as JSON.
                shown = b"%d" % request_id if type(request_id) is int else self.dumps(request_id)
                return b'{"jsonrpc":"2.0","id":%b,"result":%b}' % (shown, result.json)
            return result_response(request_id, result)
        except RpcError as error:
            return error_response(request_id, error)
        except Exception as error:  # a server's bug is a protocol error, never a success
            logger.error("a request failed inside the server: %s", type(error).__name__)
            return error_response(request_id, RpcError(INTERNAL_ERROR, "Internal error"))

    async def _batch(
        self,
        headers: dict[bytes, bytes],
        batch: list[Any],
        framing: Framing,
        send: Send,
        principal: P,
    ) -> None:
        """A JSON-RPC batch, which MCP 2025-03-26 servers must receive (and later versions
        dropped): only on a session negotiated at 2025-03-26, never with ``initialize``. Each
        request in it is answered in one array, in order, each spending its admission;
        notifications and the client's responses get nothing (all of them: 202)."""
        session_id = headers.get(b"mcp-session-id", b"").decode("latin-1")
        current = (
            self.methods.sessions.get(session_id, self._owner(principal)) if session_id else None
        )
        if session_id and current is None:
            error = RpcError(INVALID_REQUEST, "Session not found")
            await self.reply(send, 404, framing, error_response(None, error))
            return
        if current is None or current.protocol_version != LEGACY_PROTOCOL_VERSION or not batch:
            error = RpcError(
                INVALID_REQUEST,
                "a JSON-RPC batch needs a session negotiated at MCP 2025-03-26 and one message",
            )
            await self.reply(send, 400, framing, error_response(None, error))
            return
        problem = version_problem(
            headers.get(b"mcp-protocol-version"), session=current, versions=self.versions
        )
        if problem is not None:
            await self.reply(
                send, 400, framing, error_response(None, RpcError(INVALID_REQUEST, problem))
            )
            return
        responses: list[Reply] = []
        for item in batch:
            if not isinstance(item, dict) or item.get("jsonrpc") != "2.0":
                error = RpcError(INVALID_REQUEST, "expected a JSON-RPC 2.0 message object")
                responses.append(error_response(None, error))
                continue
            request_id = item.get("id")
            if "method" not in item or request_id is None:
                continue  # a response from the client, or a notification
            if item["method"] == "initialize":
                error = RpcError(INVALID_REQUEST, "initialize cannot be part of a batch")
                responses.append(error_response(request_id, error))
                continue
            wait = None
            if self.admit is not None:
                wait = await self.admit(principal, item["method"], item.get("params"))
            if wait is not None:
                responses.append(error_response(request_id, _limit_error(wait)))
                continue
            params = item.get("params") or {}
            responses.append(
                await self._answer(
                    request_id, item["method"], params, principal, Peer(current.protocol_version)
                )
            )
        extra = [(b"mcp-session-id", session_id.encode())]
        if not responses:
            await _plain(send, 202, b"", extra)
            return
        await self.reply(send, 200, framing, responses, extra)

    async def limited(self, send: Send, framing: Framing, request_id: Any, wait: float) -> None:
        """429 for a request over its rate limit: ``Retry-After`` whole seconds, and the
        JSON-RPC error the client's SDK surfaces to the agent."""
        error = _limit_error(wait)
        retry = [(b"retry-after", str(error.data["retry_after"]).encode())]
        await self.reply(send, 429, framing, error_response(request_id, error), retry)

    async def reply(
        self,
        send: Send,
        status: int,
        framing: Framing,
        message: Reply | list[Reply],
        extra: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """Send one JSON-RPC answer (or a batch's) with ``status``, framed as ``framing``
        asks, with the ``extra`` headers."""
        if isinstance(message, bytes):
            payload = message
        elif isinstance(message, list):
            payload = b"[%b]" % b",".join(
                item if isinstance(item, bytes) else self.dumps(item) for item in message
            )
        else:
            payload = self.dumps(message)
        malformed = False
        if framing is Framing.SSE and self.faults is not None:
            malformed = self.faults.malformed_sse()
        content_type, body = encode_body(payload, framing, malformed=malformed)
        await _respond(send, status, content_type, body, extra or [])


async def _asking(call: Awaitable[Result], asked: list[dict[str, Any]]) -> Result:
    """``call``'s result; what it asks the client first is put in ``asked`` as JSON-RPC
    requests, each with an id of its own."""
    result = await call
    if isinstance(result, Asking):
        asked.extend(
            {"jsonrpc": "2.0", "id": f"ask-{secrets.token_hex(8)}", **request}
            for request in result.requests
        )
    return result


def _handshake_peer(session: Session | None, header: bytes | None) -> Peer:
    """The client of a handshake-era request: its session's version and what it declared
    that the session keeps (without one, the header's version, or 2025-03-26 that sends
    none)."""
    if session is not None:
        capabilities: dict[str, Any] = (
            {"elicitation": {"url": {}}} if session.url_elicitation else {}
        )
        return Peer(
            session.protocol_version, capabilities=capabilities, session_id=session.session_id
        )
    version = LEGACY_PROTOCOL_VERSION if header is None else header.decode("latin-1")
    return Peer(version)


def _limit_error(wait: float) -> RpcError:
    seconds = max(1, math.ceil(wait))
    return RpcError(
        RATE_LIMITED,
        f"Rate limited: too many requests on this connection; retry after {seconds} s.",
        {"code": "RATE_LIMITED", "retry_after": seconds},
    )


async def _read_body(receive: Receive, length: bytes | None, limit: int) -> bytes | None:
    """The whole body, or ``None`` when it is larger than ``limit`` (a declared length over
    the limit is refused before anything is read)."""
    if length is not None and length.strip().isdigit() and int(length) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
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
