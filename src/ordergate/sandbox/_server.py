"""The venue on a loopback port in a background thread (for tests and embedding)."""

from __future__ import annotations

from types import TracebackType

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.core import Clock
from ordergate.sandbox._app import Sandbox, build_sandbox
from ordergate.sandbox._config import SandboxConfig

__all__ = ["SandboxServer"]


class SandboxServer:
    """``with SandboxServer(config) as sandbox:`` serves the venue until the block ends."""

    def __init__(self, config: SandboxConfig, *, clock: Clock | None = None) -> None:
        self.config = config
        sock = bind_socket(config.host, config.port)
        port = sock.getsockname()[1]
        self.sandbox: Sandbox = build_sandbox(config, base_url=config.base_url(port), clock=clock)
        self._server = BackgroundServer(self.sandbox.app, sock)

    def start(self) -> Sandbox:
        self._server.start()
        return self.sandbox

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
