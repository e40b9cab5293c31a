"""The per-call path: one JSON-RPC ``tools/call`` POST over a pooled HTTP connection.

Used on its own as the fallback when no MCP session can be established, and as the lean
call path inside a session (the session's id and protocol version ride along as headers).

With a ``Wire`` (``connect_with`` gives one where the ``httpx2`` client would use its own
default transport), the POSTs leave through it, signed by the client's ``TokenAuth``
(``TokenAuth.signed``), and ``httpx2`` is not on the path; the answers, the cookies the venue
sets and every error are handled as through ``httpx2``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import httpx2

from ordergate.client._auth import TokenAuth
from ordergate.client._envelope import decode_body, unwrap_result
from ordergate.client._errors import HTTPStatusError, ResponseParseError, TransportError
from ordergate.client._servers import shown_url
from ordergate.client._wire import Wire, WireAnswer
from ordergate.core import compact_json

__all__ = ["ACCEPT", "JsonRpcCaller"]

ACCEPT = "application/json, text/event-stream"


class JsonRpcCaller:
    """Calls tools by plain POST. ``http`` carries authentication (an ``httpx2.Auth``)."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        url: str,
        *,
        session_id: str | None = None,
        protocol_version: str | None = None,
        wire: Wire | None = None,
        auth: TokenAuth | None = None,
    ) -> None:
        """``wire``: send the POSTs over it, signed by ``auth`` (``None``: unsigned)."""
        self._http = http
        self._wire = wire
        self._auth = auth
        self._url_text = url
        # Parsed once: httpx2 would parse a string URL and merge a dict of headers on every
        # call (measured together ~60 µs of the ~900 µs httpx2 spends on a forwarded read).
        self._url = httpx2.URL(url)
        self.session_id = session_id
        self.protocol_version = protocol_version
        self._ids = itertools.count(1)
        self._built: tuple[str | None, str | None, httpx2.Headers] | None = None
        self._raw: tuple[tuple[str | None, str | None, str | None, bytes], bytes] | None = None

    def _headers(self) -> httpx2.Headers:
        session_id, version = self.session_id, self.protocol_version
        built = self._built
        if built is not None and built[0] == session_id and built[1] == version:
            return built[2]
        headers = {"accept": ACCEPT, "content-type": "application/json"}
        if session_id is not None:
            headers["mcp-session-id"] = session_id
        if version is not None:
            headers["mcp-protocol-version"] = version
        self._built = (session_id, version, httpx2.Headers(headers))
        return self._built[2]

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        message = await self._post(
            "tools/call", {"name": name, "arguments": dict(arguments)}, label=name
        )
        return unwrap_result(message, tool=name)

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Any other JSON-RPC request (``tools/list`` …); its ``result``, or a ``ToolError``."""
        message = await self._post(method, dict(params or {}), label=method)
        if "error" in message:
            unwrap_result(message, tool=method)  # raises the RpcError
        if "result" not in message:
            raise ResponseParseError("the answer has no result", tool=method)
        return message["result"]

    async def _post(self, method: str, params: dict[str, Any], *, label: str) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}
        body = _REQUEST_JSON(message).encode()
        try:
            if self._wire is not None:
                response: httpx2.Response | WireAnswer = await self._wired(self._wire, body)
            else:
                response = await self._http.post(self._url, content=body, headers=self._headers())
        except httpx2.DecodingError:
            raise ResponseParseError("the answer's body does not decode", tool=label) from None
        except httpx2.TransportError as error:
            raise TransportError(
                f"no answer from the venue at {shown_url(str(self._url))} ({type(error).__name__})",
                tool=label,
            ) from None
        if isinstance(response, WireAnswer):
            session_id = response.header(b"mcp-session-id")
            content_type = response.header(b"content-type") or ""
        else:
            session_id = response.headers.get("mcp-session-id")
            content_type = response.headers.get("content-type", "")
        if session_id:
            self.session_id = session_id
        if response.status_code >= 300:
            raise HTTPStatusError(
                f"the venue at {shown_url(str(self._url))} answered HTTP {response.status_code}",
                tool=label,
                status=response.status_code,
            )
        return decode_body(response.content, content_type, tool=label)

    async def _wired(self, wire: Wire, body: bytes) -> WireAnswer:
        cookie = b""
        cookies = self._http.cookies
        # The jar's own table, looked at first: asking ``cookies`` itself whether it holds any
        # walks the jar, on every call (a jar without that table is asked the long way).
        if getattr(cookies.jar, "_cookies", True) and cookies:
            # the venue set some: they go back as httpx2 would send them
            probe = httpx2.Request("POST", self._url)
            cookies.set_cookie_header(probe)
            cookie = probe.headers["cookie"].encode("latin-1")

        async def send(authorization: str | None) -> WireAnswer:
            answer = await wire.post(self._block(authorization, cookie), body)
            if answer.header(b"set-cookie") is not None:
                self._keep_cookies(answer)
            return answer

        if self._auth is None:
            return await send(None)
        return await self._auth.signed(self._url_text, send)

    def _block(self, authorization: str | None, cookie: bytes) -> bytes:
        """The request's header lines, built once for each session id, protocol version,
        token and cookie (the last set kept: the same on every call but a refresh's)."""
        key = (self.session_id, self.protocol_version, authorization, cookie)
        built = self._raw
        if built is not None and built[0] == key:
            return built[1]
        headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in
                   self._headers().items()]  # fmt: skip
        if authorization is not None:
            headers.append((b"authorization", authorization.encode("latin-1")))
        if cookie:
            headers.append((b"cookie", cookie))
        block = Wire.block(headers)
        self._raw = (key, block)
        return block

    def _keep_cookies(self, answer: WireAnswer) -> None:
        request = httpx2.Request("POST", self._url)
        response = httpx2.Response(answer.status_code, headers=answer.headers, request=request)
        self._http.cookies.extract_cookies(response)


def _default(value: object) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_REQUEST_JSON = compact_json(_default)  # built once, not on every call
