"""The gateway's server stack: uvicorn parsing HTTP/1.1 with httptools, on a uvloop loop;
every other server ordergate starts keeps h11 on asyncio's own loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx2
import uvloop

from ordergate._serving import _config, bind_socket, run_fast, serve_foreground


async def _app(scope: Any, receive: Any, send: Any) -> None:
    loop = type(asyncio.get_running_loop()).__module__.split(".")[0].encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": loop})


def test_the_gateway_parses_with_httptools_and_other_servers_with_h11() -> None:
    assert _config(_app, fast=True).http == "httptools"
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
