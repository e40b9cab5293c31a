"""One write per HTTP/1.1 request: the pooled client's head and body leave in one send.

``httpx2`` (through ``httpcore2``) writes a request's head and its body as two writes, so on
loopback each call costs the server two wake-ups and two reads, and the caller two sends
(measured on the gateway's forward: the venue spent ~1,100 µs of CPU per call sent this way
against ~730 µs for the same call sent in one write). ``coalesce`` makes a client's
connections hold what is written until the next read (an HTTP/1.1 client always reads the
answer after sending a request), a TLS upgrade or a close, then send it as one buffer.
Nothing about the request changes but how many writes carry it; the client is still
``httpx2``, its pool, limits, timeouts and errors its own.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2

__all__ = ["CoalescingBackend", "coalesce"]


class _Stream(httpcore2.AsyncNetworkStream):
    """A connection whose writes wait for the next read, TLS upgrade or close."""

    def __init__(self, stream: httpcore2.AsyncNetworkStream) -> None:
        self._stream = stream
        self._pending: list[bytes] = []
        self._timeout: float | None = None

    async def _flush(self) -> None:
        if self._pending:
            buffer = b"".join(self._pending)
            self._pending.clear()
            await self._stream.write(buffer, timeout=self._timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if buffer:
            self._pending.append(buffer)
            self._timeout = timeout

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        await self._flush()
        return await self._stream.read(max_bytes, timeout=timeout)

    async def aclose(self) -> None:
        self._pending.clear()  # a request abandoned before its answer was read is not sent
        await self._stream.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        await self._flush()
        upgraded = await self._stream.start_tls(ssl_context, server_hostname, timeout)
        return _Stream(upgraded)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class CoalescingBackend(httpcore2.AsyncNetworkBackend):
    """``backend``'s connections, each sending a request in one write."""

    def __init__(self, backend: httpcore2.AsyncNetworkBackend) -> None:
        self._backend = backend

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        stream = await self._backend.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )
        return _Stream(stream)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        stream = await self._backend.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )
        return _Stream(stream)

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def coalesce(http: httpx2.AsyncClient) -> bool:
    """Make ``http``'s own connections send each request in one write; whether it could.

    Only the client's default transport changes (the one ``httpx2`` builds for URLs no
    proxy is mounted for): a proxy taken from the environment keeps its own transport, as
    ``trust_env`` has it. A transport this does not know (a test's mock, a later ``httpx2``
    that keeps its pool elsewhere) is left as it is and ``False`` returned: one write or
    two, the requests are the same.
    """
    transport = getattr(http, "_transport", None)
    pool = getattr(transport, "_pool", None)
    if not isinstance(transport, httpx2.AsyncHTTPTransport) or not isinstance(
        pool, httpcore2.AsyncConnectionPool
    ):
        return False
    backend = pool._network_backend
    if not isinstance(backend, CoalescingBackend):
        pool._network_backend = CoalescingBackend(backend)
    return True
