"""The gateway's server stack: uvicorn parsing HTTP/1.1 with httptools, on a uvloop loop, each
response's head written with its body in one write; every other server ordergate starts keeps
h11 on asyncio's own loop."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import uvicorn
import uvloop
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ordergate._serving import (
    OneWriteHttpTools,
    _config,
    _Server,
    bind_socket,
    run_fast,
    serve_foreground,
)


async def _app(scope: Any, receive: Any, send: Any) -> None:
    loop = type(asyncio.get_running_loop()).__module__.split(".")[0].encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": loop})


def test_the_gateway_parses_with_httptools_and_other_servers_with_h11() -> None:
    fast = _config(_app, fast=True).http
    assert isinstance(fast, type) and issubclass(fast, HttpToolsProtocol)
    assert _config(_app).http == "h11"


def test_run_fast_runs_on_a_uvloop_loop_and_returns_what_it_ran() -> None:
    async def loop_kind() -> bool:
        return isinstance(asyncio.get_running_loop(), uvloop.Loop)

    assert run_fast(loop_kind()) is True
    assert asyncio.run(loop_kind()) is False


def test_a_fast_foreground_server_answers_on_loopback_from_uvloop() -> None:
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    servers: list[Any] = []
    ready = threading.Event()

    def serve() -> None:
        import ordergate._serving as serving

        original = serving._Server

        class Recorded(original):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                servers.append(self)

        serving._Server = Recorded  # type: ignore[misc]
        try:
            serve_foreground(_app, sock, on_ready=ready.set, fast=True)
        finally:
            serving._Server = original  # type: ignore[misc]

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(20)
    try:
        answer = httpx2.get(f"http://127.0.0.1:{port}/")
    finally:
        servers[0].should_exit = True
        thread.join(20)
    assert answer.status_code == 200 and answer.content == b"uvloop"


class _Recorder:
    """The real transport, with every write it is asked for kept in ``writes``."""

    def __init__(self, real: asyncio.Transport, writes: list[bytes]) -> None:
        self._real = real
        self._writes = writes

    def write(self, data: bytes) -> None:
        self._writes.append(bytes(data))
        self._real.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@contextmanager
def _recorded_server(app: Any) -> Iterator[tuple[int, list[bytes]]]:
    """``app`` on a real loopback socket on the fast stack, each write to a client kept."""
    writes: list[bytes] = []

    class Recording(OneWriteHttpTools):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(_Recorder(transport, writes))  # type: ignore[arg-type]

    sock = bind_socket("127.0.0.1", 0)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    config.http = Recording
    server = _Server(config)
    thread = threading.Thread(target=lambda: run_fast(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    assert server.ready.wait(20)
    try:
        yield sock.getsockname()[1], writes
    finally:
        server.exit_soon()
        thread.join(20)
        sock.close()


async def _chunked_app(scope: Any, receive: Any, send: Any) -> None:
    """``two`` with its length; at ``/chunks``, ``one,two`` in two chunks of a stream."""
    streamed = scope["path"] == "/chunks"
    headers = [] if streamed else [(b"content-length", b"3")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    if streamed:
        await send({"type": "http.response.body", "body": b"one,", "more_body": True})
    await send({"type": "http.response.body", "body": b"two"})


def test_a_response_leaves_in_one_write_its_head_with_its_body() -> None:
    with _recorded_server(_chunked_app) as (port, writes):
        answer = httpx2.get(f"http://127.0.0.1:{port}/")
        assert answer.status_code == 200 and answer.content == b"two"
        assert len(writes) == 1
        assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and writes[0].endswith(b"\r\n\r\ntwo")


def test_a_streamed_response_sends_its_head_with_the_first_chunk_and_the_rest_after() -> None:
    with _recorded_server(_chunked_app) as (port, writes):
        answer = httpx2.get(f"http://127.0.0.1:{port}/chunks")
        assert answer.status_code == 200 and answer.content == b"one,two"
        assert len(writes) == 2
        assert (
            writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and b"\r\n\r\n4\r\none,\r\n" in writes[0]
        )
        assert writes[1] == b"3\r\ntwo\r\n0\r\n\r\n"


def test_a_head_request_still_gets_its_head_though_no_body_is_written() -> None:
    with _recorded_server(_chunked_app) as (port, writes):
        answer = httpx2.head(f"http://127.0.0.1:{port}/")
        assert answer.status_code == 200 and answer.content == b""
        assert len(writes) == 1 and writes[0].startswith(b"HTTP/1.1 200 OK\r\n")


async def _echo_app(scope: Any, receive: Any, send: Any) -> None:
    body = (await receive()).get("body", b"")
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def test_an_expect_100_continue_is_answered_before_the_body_is_sent() -> None:
    # The interim 100 is written when the app first asks for the body, not held with a head.
    with _recorded_server(_echo_app) as (port, writes):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(
                b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
                b"Content-Length: 5\r\n\r\n"
            )
            interim = client.recv(4096)
            assert interim.startswith(b"HTTP/1.1 100 Continue")
            client.sendall(b"hello")
            answer = b""
            while not answer.endswith(b"hello"):
                chunk = client.recv(4096)
                assert chunk, "the server closed before answering"
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
        assert writes[0].startswith(b"HTTP/1.1 100 Continue") and len(writes) == 2
