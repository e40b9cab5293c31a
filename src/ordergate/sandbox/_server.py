"""Running the venue on a real loopback socket: in the foreground (CLI) or on a thread (tests)."""

from __future__ import annotations

import asyncio
import socket
import threading
from types import TracebackType

import uvicorn

from ordergate.core import Clock
from ordergate.sandbox._app import Sandbox, build_sandbox
from ordergate.sandbox._config import SandboxConfig

__all__ = ["SandboxServer", "bind_socket"]

_START_TIMEOUT_S = 20.0


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 picks a free one (read it back from ``getsockname``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


class SandboxServer:
    """The venue on a loopback port in a background thread: ``with SandboxServer(cfg) as sb:``."""

    def __init__(self, config: SandboxConfig, *, clock: Clock | None = None) -> None:
        self.config = config
        self._sock = bind_socket(config.host, config.port)
        port = self._sock.getsockname()[1]
        self.sandbox: Sandbox = build_sandbox(config, base_url=config.base_url(port), clock=clock)
        uv_config = uvicorn.Config(
            self.sandbox.app, log_level="warning", access_log=False, lifespan="off"
        )
        self._server = _Server(uv_config)
        self._thread = threading.Thread(target=self._run, name="sandbox-venue", daemon=True)

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self._sock]))

    def start(self) -> Sandbox:
        self._thread.start()
        if not self._server.ready.wait(_START_TIMEOUT_S):
            raise RuntimeError("the sandbox venue did not start in time")
        return self.sandbox

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(_START_TIMEOUT_S)
        self._sock.close()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
