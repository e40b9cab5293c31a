"""Serving an ASGI app on a real loopback socket: in the foreground, or on a background thread.

Shared by the sandbox venue, the benchmarks and the tests, so every server ordergate starts
binds the same way (a pre-bound socket, so port 0 can pick a free port and be read back) and
reports the socket's peer as the client, whatever forwarded headers say.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, TypeVar

import uvicorn
import uvloop
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["BackgroundServer", "OneWriteHttpTools", "bind_socket", "run_fast", "serve_foreground"]

_START_TIMEOUT_S = 20.0
_T = TypeVar("_T")


def bind_socket(host: str, port: int, *, listen: bool = True) -> socket.socket:
    """A listening socket; port 0 picks a free one (read it back from ``getsockname``).
    ``listen=False``: bound (the port is taken and known) but not yet listening; the server
    that serves it listens when it starts, so nothing connects before it is ready."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit this. Without it, a response written as headers then body
    # meets the peer's delayed ACK and every call costs ~40 ms (measured: 44 ms → 0.8 ms).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    if listen:
        sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _config(app: Any, *, fast: bool = False) -> uvicorn.Config:
    # No proxy headers: by default uvicorn believes X-Forwarded-For from 127.0.0.1 (or
    # FORWARDED_ALLOW_IPS) and rewrites the client address, so any local process could pick
    # the address it is rate-limited under. The gateway reads a forwarded header itself, and
    # only from a proxy the operator named (ordergate.gateway._proxies).
    # ``fast``: HTTP/1.1 parsed by httptools (C) rather than h11 (pure Python), for the
    # gateway's hot path; every other server keeps h11.
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        proxy_headers=False,
        http=OneWriteHttpTools if fast else "h11",
    )


class _Holding:
    """The transport a response's ``send`` writes to while its head waits: a write is kept
    (the head), or with ``flush`` sent together with what was kept, in one write; anything
    else goes to the real transport."""

    def __init__(self, real: asyncio.Transport, held: list[bytes], *, flush: bool) -> None:
        self._real = real
        self._held = held
        self._flush = flush

    def write(self, data: bytes) -> None:
        self._held.append(data)
        if self._flush:
            self._real.write(b"".join(self._held))
            self._held.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class OneWriteHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol, each response's head sent in one write with its first
    body chunk (uvicorn writes the head when the app sends ``http.response.start`` and the
    body when it sends the body: two writes, two wake-ups of the client).

    Measured on the gateway's forwarded read (``ordergate bench gateway``): the head's write
    woke the client, which took the CPU from the server in the middle of its response (its
    body still to write, its request still to finish) — that write took 112–119 µs in the
    gateway's process against 39–42 µs in the bare hop's. A response whose body never comes
    (a ``HEAD``, an app that fails after its start) sends its head alone, as before.
    """

    def on_headers_complete(self) -> None:
        previous = self.cycle
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and cycle is not previous:
            cycle.send = _one_write(cycle)  # type: ignore[assignment,method-assign]


def _one_write(cycle: Any) -> Callable[[Any], Coroutine[Any, Any, None]]:
    """``cycle.send``, holding the head until the first body message is sent."""
    send = cycle.send
    held: list[bytes] = []

    async def one_write(message: Any) -> None:
        starting = message["type"] == "http.response.start" and not cycle.response_started
        if not starting and not held:
            await send(message)
            return
        real = cycle.transport
        cycle.transport = _Holding(real, held, flush=not starting)
        try:
            await send(message)
        finally:
            cycle.transport = real
            if held and not starting:  # the body wrote nothing (a HEAD): the head alone
                if not cycle.disconnected and not real.is_closing():
                    real.write(b"".join(held))
                held.clear()

    return one_write


def run_fast(main: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(main)`` on a uvloop event loop (libuv; the gateway's serving loop)."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None] | None = None) -> None:
        super().__init__(config)
        self.ready = threading.Event()
        self._on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        await super().startup(sockets)
        self.ready.set()
        if self._on_ready is not None:
            self._on_ready()

    async def main_loop(self) -> None:
        # uvicorn's own loop looks at ``should_exit`` every 0.1 s; this one also wakes at once
        # when ``exit_soon`` is called from another thread, so a stop costs no tick.
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.server_state.connections or self.server_state.tasks:
            await super().shutdown(sockets)  # lets open connections finish (0.1 s and more)
            return
        # Nothing open: uvicorn would still wait 0.1 s for connections there are none of.
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop it serves on, once started."""
        return getattr(self, "_loop", None)

    def exit_soon(self) -> None:
        """From any thread: stop serving now (not at the next tick)."""
        self.should_exit = True
        loop = getattr(self, "_loop", None)
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._wake.set)


class BackgroundServer:
    """``app`` served on ``sock`` by a thread of its own: ``with BackgroundServer(app, sock):``."""

    def __init__(self, app: Any, sock: socket.socket) -> None:
        self.sock = sock
        self._server = _Server(_config(app))
        self._thread = threading.Thread(target=self._run, name="ordergate-server", daemon=True)

    @property
    def port(self) -> int:
        port: int = self.sock.getsockname()[1]
        return port

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self.sock]))

    def start(self) -> None:
        self._thread.start()
        if not self._server.ready.wait(_START_TIMEOUT_S):
            raise RuntimeError("the server did not start in time")

    def stop(self) -> None:
        self._server.exit_soon()
        self._thread.join(_START_TIMEOUT_S)
        self.sock.close()

    def __enter__(self) -> BackgroundServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def serve_foreground(
    app: Any,
    sock: socket.socket,
    *,
    on_ready: Callable[[], None] | None = None,
    fast: bool = False,
) -> None:
    """Serve until interrupted (Ctrl+C ends it quietly); ``on_ready`` runs once it is serving.
    ``fast``: on the gateway's server stack (httptools on uvloop)."""
    server = _Server(_config(app, fast=fast), on_ready)
    try:
        if fast:
            run_fast(server.serve(sockets=[sock]))
        else:
            asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
