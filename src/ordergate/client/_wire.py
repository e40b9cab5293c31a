"""``Wire``: a lean keep-alive HTTP/1.1 pool to one origin, for the per-call POSTs.

The gateway forwards every read as one POST to the venue, and ``httpx2`` (its client, its
auth flow, ``httpcore2``'s pool and ``h11``) cost ~360 µs of CPU per POST where this costs
~10 µs (measured on loopback against a server answering a fixed body: httpx2 362 µs, aiohttp
87 µs, this 15 µs per call; at 32 concurrent callers 429, 65 and 5 µs). It is an asyncio
``Protocol`` per connection, its answers parsed by ``httptools`` (llhttp, C), each request
sent in one write.

What it keeps of the client it stands in for:

- a bounded pool (``max_connections``, waiting callers queue); idle connections are reused
  last-in first-out and dropped once idle ``keepalive_expiry_s`` or closed by the server;
- one deadline per request (``timeout_s``) over waiting for a connection, connecting,
  sending and reading the answer;
- errors are ``httpx2``'s (``ConnectError``, ``ConnectTimeout``, ``PoolTimeout``,
  ``ReadTimeout``, ``RemoteProtocolError``; ``DecodingError`` for a body that does not
  decode), each naming the URL (never its query or user info), so callers handle them as
  before;
- a request is never sent twice: a connection that closes or breaks after the request was
  written fails that request (a POST is not idempotent); a connection whose state is unknown
  (a timeout, a cancelled caller, a malformed answer) is closed, never reused;
- TLS with ``httpx2``'s own default context for ``https`` URLs; a compressed answer (gzip,
  deflate) is decoded, any other coding fails closed;
- an answer larger than ``max_answer_bytes`` (64 MiB), on the wire or once decoded, fails
  closed (``RemoteProtocolError`` / ``DecodingError``) and its connection is closed: a venue
  that never stops sending, or a small body that inflates without end, costs no more memory.

No proxy, no HTTP/2, no redirects, no cookies: ``connect_with`` uses it only where the
``httpx2`` client would have used its own default transport (no proxy mounted).
"""

from __future__ import annotations

import asyncio
import ssl
import time
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from typing import cast
from urllib.parse import urlsplit

import httptools
import httpx2

from ordergate.client._servers import shown_url

__all__ = ["Wire", "WireAnswer"]

Header = tuple[bytes, bytes]

_NO_BODY = frozenset({204, 304})
MAX_ANSWER_BYTES = 64 * 1024 * 1024


class WireAnswer:
    """One HTTP answer: status, raw headers (lower-case names) and the whole body."""

    __slots__ = ("_last", "content", "headers", "status_code")

    def __init__(self, status_code: int, headers: list[Header], content: bytes) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content
        self._last: dict[bytes, bytes] | None = None

    def header(self, name: bytes) -> str | None:
        """The last value of header ``name`` (lower case), or ``None``."""
        last = self._last
        if last is None:  # one table for every header asked (a dict keeps the last value)
            last = self._last = dict(self.headers)
        found = last.get(name)
        return None if found is None else found.decode("latin-1")

    def all(self, name: bytes) -> list[str]:
        return [value.decode("latin-1") for key, value in self.headers if key == name]


class _Broken(Exception):
    """The connection failed; ``kind`` is the ``httpx2`` error class to raise."""

    def __init__(self, kind: type[httpx2.RequestError], reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


class _Connection(asyncio.Protocol):
    __slots__ = (
        "_answer",
        "_body",
        "_headers",
        "_limit",
        "_parser",
        "_size",
        "_status",
        "_until_eof",
        "closed",
        "idle_since",
        "keep_alive",
        "transport",
    )

    def __init__(self, limit: int = MAX_ANSWER_BYTES) -> None:
        self.transport: asyncio.Transport | None = None
        self._limit = limit
        self._size = 0
        self._parser = httptools.HttpResponseParser(self)
        self._answer: asyncio.Future[WireAnswer] | None = None
        self._status = 0
        self._headers: list[Header] = []
        self._body: list[bytes] = []
        self._until_eof = False
        self.closed = False
        self.keep_alive = True
        self.idle_since = 0.0

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._until_eof:
            self._until_eof = False
            self._resolve()
            return
        self._fail(_Broken(httpx2.RemoteProtocolError, "the server closed the connection"))

    def data_received(self, data: bytes) -> None:
        if self._answer is None:  # nothing asked: a server that talks out of turn
            self.close()
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError:
            self._fail(_Broken(httpx2.RemoteProtocolError, "a malformed HTTP answer"))
            self.close()

    def eof_received(self) -> bool:
        return False  # close our side too; connection_lost follows

    # -- httptools callbacks ---------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        self._status = status
        if status >= 200 and status not in _NO_BODY:
            names = {name for name, _ in self._headers}
            self._until_eof = b"content-length" not in names and not _chunked(self._headers)

    def on_body(self, body: bytes) -> None:
        self._size += len(body)
        if self._size > self._limit:
            self._until_eof = False
            self._fail(_Broken(httpx2.RemoteProtocolError, f"an answer over {self._limit} bytes"))
            self.close()
            return
        self._body.append(body)

    def on_message_complete(self) -> None:
        if self._status < 200:  # an interim answer (100 Continue): the real one follows
            self._headers = []
            self._body = []
            return
        self._until_eof = False
        self.keep_alive = self._parser.should_keep_alive()
        self._resolve()

    # -- the pool's side -------------------------------------------------------------------

    def send(self, data: bytes, answer: asyncio.Future[WireAnswer]) -> None:
        assert self.transport is not None
        self._answer = answer
        self._status = 0
        self._size = 0
        self._headers = []
        self._body = []
        self.transport.write(data)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _resolve(self) -> None:
        answer, self._answer = self._answer, None
        if answer is None or answer.done():
            return
        try:
            body = _decoded(self._headers, b"".join(self._body), self._limit)
        except _Broken as error:
            answer.set_exception(error)
            self.keep_alive = False
            return
        answer.set_result(WireAnswer(self._status, self._headers, body))

    def _fail(self, error: _Broken) -> None:
        answer, self._answer = self._answer, None
        self.keep_alive = False
        if answer is not None and not answer.done():
            answer.set_exception(error)


def _chunked(headers: list[Header]) -> bool:
    return any(
        name == b"transfer-encoding" and b"chunked" in value.lower() for name, value in headers
    )


def _decoded(headers: list[Header], body: bytes, limit: int) -> bytes:
    codings = [value.strip().lower() for name, value in headers if name == b"content-encoding"]
    for coding in reversed(codings):
        if coding in (b"", b"identity"):
            continue
        if coding not in (b"gzip", b"x-gzip", b"deflate"):
            raise _Broken(httpx2.DecodingError, "an answer in an unknown content coding")
        try:
            if coding == b"deflate":
                try:
                    body = _inflate(body, zlib.MAX_WBITS, limit)
                except zlib.error:
                    body = _inflate(body, -zlib.MAX_WBITS, limit)  # raw deflate, as sent
            else:
                body = _inflate(body, 16 + zlib.MAX_WBITS, limit)
        except zlib.error:
            raise _Broken(httpx2.DecodingError, "an answer that does not decode") from None
    return body


def _inflate(body: bytes, wbits: int, limit: int) -> bytes:
    """``body`` decompressed, at most ``limit`` bytes of it (more fails closed)."""
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, limit + 1)
    if len(out) > limit or inflater.unconsumed_tail:
        raise _Broken(httpx2.DecodingError, f"an answer over {limit} bytes once decoded")
    if not inflater.eof:
        raise zlib.error("truncated")
    return out


class Wire:
    """POSTs to ``url`` over at most ``max_connections`` keep-alive connections.

    ``headers`` go on every request before the request's own (``Host`` and
    ``Content-Length`` are the wire's). ``ssl_context`` for an ``https`` URL: ``httpx2``'s
    default when ``None``."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float,
        headers: Sequence[Header] = (),
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int = 100,
        keepalive_expiry_s: float = 4.0,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        if max_answer_bytes < 1:
            raise ValueError("max_answer_bytes must be at least 1")
        self._limit = max_answer_bytes
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {shown_url(url)}")
        self.url = shown_url(url)
        self._host = parts.hostname
        self._port = parts.port or (443 if scheme == "https" else 80)
        self._ssl: ssl.SSLContext | None = None
        if scheme == "https":
            self._ssl = ssl_context or httpx2.create_ssl_context()
        host = f"[{self._host}]" if ":" in self._host else self._host
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        path = parts.path or "/"
        if parts.query:
            path = f"{path}?{parts.query}"
        start = [f"POST {path} HTTP/1.1\r\nHost: {host}\r\n".encode("latin-1")]
        start += [_line(name, value) for name, value in headers]
        self._start = b"".join(start)
        self._timeout_s = timeout_s
        self._expiry_s = keepalive_expiry_s
        self._clock = clock
        self._idle: deque[_Connection] = deque()
        self._slots = asyncio.Semaphore(max_connections)
        self._all: set[_Connection] = set()
        self._closed = False

    @staticmethod
    def block(headers: Sequence[Header]) -> bytes:
        """``headers`` as the lines ``post`` sends (checked: no line breaks), to build once
        and send often."""
        return b"".join([_line(name, value) for name, value in headers])

    async def post(self, headers: Sequence[Header] | bytes, body: bytes) -> WireAnswer:
        """The answer to one POST of ``body`` with ``headers`` (pairs, or a ``block``); an
        ``httpx2.TransportError`` when there is none (the request is not retried),
        ``httpx2.DecodingError`` when its body does not decode."""
        lines = headers if isinstance(headers, bytes) else self.block(headers)
        data = b"%s%sContent-Length: %d\r\n\r\n%s" % (self._start, lines, len(body), body)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout_s
        if self._slots.locked():  # every connection busy: wait for one, within the deadline
            try:
                await asyncio.wait_for(self._slots.acquire(), self._timeout_s)
            except TimeoutError:
                raise self._error(httpx2.PoolTimeout, "no free connection in time") from None
        else:
            await self._slots.acquire()  # free: returns at once
        try:
            connection = await self._connection(loop, deadline)
            return await self._exchange(loop, connection, data, deadline)
        finally:
            self._slots.release()

    async def aclose(self) -> None:
        """Close every connection; later posts fail."""
        self._closed = True
        for connection in list(self._all):
            connection.close()
        self._all.clear()
        self._idle.clear()

    async def _connection(self, loop: asyncio.AbstractEventLoop, deadline: float) -> _Connection:
        if self._closed:
            raise self._error(httpx2.ConnectError, "the client is closed")
        now = self._clock()
        while self._idle:
            connection = self._idle.pop()
            if not connection.closed and now - connection.idle_since < self._expiry_s:
                return connection
            self._drop(connection)
        try:
            _, connection = await asyncio.wait_for(
                loop.create_connection(
                    lambda: _Connection(self._limit),
                    self._host,
                    self._port,
                    ssl=self._ssl,
                    server_hostname=self._host if self._ssl is not None else None,
                ),
                max(0.0, deadline - loop.time()),
            )
        except TimeoutError:
            raise self._error(httpx2.ConnectTimeout, "connecting timed out") from None
        except (OSError, ssl.SSLError) as error:
            raise self._error(httpx2.ConnectError, type(error).__name__) from None
        self._all.add(connection)
        return connection

    async def _exchange(
        self,
        loop: asyncio.AbstractEventLoop,
        connection: _Connection,
        data: bytes,
        deadline: float,
    ) -> WireAnswer:
        answer: asyncio.Future[WireAnswer] = loop.create_future()
        timer = loop.call_at(deadline, _expire, answer)
        reused = False
        try:
            connection.send(data, answer)
            result = await answer
            reused = connection.keep_alive and not connection.closed and not self._closed
            return result
        except _Broken as error:
            raise self._error(error.kind, str(error)) from None
        finally:
            timer.cancel()
            if reused:
                connection.idle_since = self._clock()
                self._idle.append(connection)
            else:  # its state is unknown (or it is done): never reused
                connection.close()
                self._drop(connection)

    def _drop(self, connection: _Connection) -> None:
        connection.close()
        self._all.discard(connection)

    def _error(self, kind: type[httpx2.RequestError], reason: str) -> httpx2.RequestError:
        return kind(f"{reason} ({self.url})")


def _expire(answer: asyncio.Future[WireAnswer]) -> None:
    if not answer.done():
        answer.set_exception(_Broken(httpx2.ReadTimeout, "no answer in time"))


def _line(name: bytes, value: bytes) -> bytes:
    if b"\r" in value or b"\n" in value or b"\r" in name or b"\n" in name or b":" in name:
        raise ValueError("a header name or value with a line break")
    return name + b": " + value + b"\r\n"
