"""The pooled client sends each request in one write (``ordergate.client._coalesce``)."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

import httpcore2
import httpx2
import pytest

from ordergate.client._coalesce import CoalescingBackend, _Stream, coalesce


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _Recorded(httpcore2.AsyncNetworkStream):
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return b"answer"

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.writes.append(buffer)

    async def aclose(self) -> None:
        self.closed = True

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        return _Recorded()

    def get_extra_info(self, info: str) -> Any:
        return f"info:{info}"


@pytest.mark.anyio
async def test_writes_wait_for_the_next_read_and_leave_as_one_buffer() -> None:
    inner = _Recorded()
    stream = _Stream(inner)
    await stream.write(b"POST / HTTP/1.1\r\n\r\n", timeout=1.0)
    await stream.write(b"")
    await stream.write(b"{}")
    assert inner.writes == []
    assert await stream.read(100) == b"answer"
    assert inner.writes == [b"POST / HTTP/1.1\r\n\r\n{}"]
    assert await stream.read(100) == b"answer" and len(inner.writes) == 1
    assert stream.get_extra_info("socket") == "info:socket"


@pytest.mark.anyio
async def test_a_tls_upgrade_sends_what_waits_first_and_a_close_drops_it() -> None:
    inner = _Recorded()
    stream = _Stream(inner)
    await stream.write(b"CONNECT")
    upgraded = await stream.start_tls(ssl.create_default_context(), "example.com")
    assert inner.writes == [b"CONNECT"] and isinstance(upgraded, _Stream)
    await stream.write(b"never sent")
    await stream.aclose()
    assert inner.writes == [b"CONNECT"] and inner.closed


@pytest.mark.anyio
async def test_a_request_to_a_loopback_server_arrives_in_one_read() -> None:
    reads: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        reads.append(await reader.read(65536))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, httpx2.AsyncClient() as http:
        assert coalesce(http) is True
        assert coalesce(http) is True  # once wrapped, left as it is
        answer = await http.post(f"http://127.0.0.1:{port}/mcp", content=b'{"id":1}')
    assert answer.status_code == 200 and answer.content == b"ok"
    assert reads[0].startswith(b"POST /mcp HTTP/1.1\r\n") and reads[0].endswith(b'{"id":1}')


@pytest.mark.anyio
async def test_unix_sockets_and_sleep_pass_through_the_backend(tmp_path: Any) -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    path = str(tmp_path / "s")
    server = await asyncio.start_unix_server(serve, path)
    backend = CoalescingBackend(httpcore2.AnyIOBackend())
    async with server:
        stream = await backend.connect_unix_socket(path)
        assert isinstance(stream, _Stream)
        await stream.aclose()
    await backend.sleep(0)


def test_a_client_on_a_transport_it_does_not_know_is_left_as_it_is() -> None:
    mock = httpx2.MockTransport(lambda request: httpx2.Response(200))
    assert coalesce(httpx2.AsyncClient(transport=mock)) is False
