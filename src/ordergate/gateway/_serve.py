"""Running the gateway: the configured guard, the app, and uvicorn on one event loop.

``run_gateway`` serves until cancelled or interrupted; ``GatewayServer`` runs it on a thread
of its own for tests and embedding (``with GatewayServer(...) as url:``; once started, its
``running`` is the guard and its ``auth`` the authorization server). Every hour the gateway
erases connections unused for 30 days (with their tokens).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable
from types import TracebackType

import anyio

from ordergate._serving import _config, _Server
from ordergate.core import Clock
from ordergate.execution._blocking import blocking
from ordergate.gateway._app import build_gateway_app
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._limits import WindowCounter
from ordergate.gateway.oauth import GatewayAuth
from ordergate.ledger import Ledger
from ordergate.runtime import Running, Settings, open_guard

__all__ = ["GatewayServer", "run_gateway"]

logger = logging.getLogger(__name__)
_START_TIMEOUT_S = 60.0
_HOUSEKEEPING_S = 3600.0


async def run_gateway(
    settings: Settings,
    config: GatewayConfig,
    sock: socket.socket,
    *,
    clock: Clock,
    on_ready: Callable[[str, Running], None] | None = None,
    reconcile_every: float | None = 5.0,
    ledger: Ledger | None = None,
    counter: WindowCounter | None = None,
    server_box: list[_Server] | None = None,
    auth_box: list[GatewayAuth] | None = None,
) -> None:
    public_url = config.url_for(sock.getsockname()[1])
    async with open_guard(
        settings, clock=clock, reconcile_every=reconcile_every, ledger=ledger
    ) as running:
        app, auth = build_gateway_app(
            running, config=config, public_url=public_url, clock=clock, counter=counter
        )

        def ready() -> None:
            if on_ready is not None:
                on_ready(public_url, running)

        server = _Server(_config(app), ready)
        if server_box is not None:
            server_box.append(server)
        if auth_box is not None:
            auth_box.append(auth)

        async def housekeeping() -> None:
            while True:  # bounded by the server's lifetime: cancelled when it stops
                erased = await blocking(auth.store.erase_idle, older_than=config.idle_erase)
                if erased:
                    logger.info("erased %d idle connections", erased)
                await anyio.sleep(_HOUSEKEEPING_S)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(housekeeping)
            await server.serve(sockets=[sock])
            tasks.cancel_scope.cancel()


class GatewayServer:
    """The gateway on ``sock`` in a background thread; ``url`` once started."""

    def __init__(
        self,
        settings: Settings,
        config: GatewayConfig,
        sock: socket.socket,
        *,
        clock: Clock,
        ledger: Ledger | None = None,
        reconcile_every: float | None = None,
    ) -> None:
        self._args = (settings, config, sock)
        self._clock = clock
        self._ledger = ledger
        self._reconcile_every = reconcile_every
        self._sock = sock
        self._ready = threading.Event()
        self._servers: list[_Server] = []
        self._auths: list[GatewayAuth] = []
        self._error: BaseException | None = None
        self.url = ""
        self.running: Running | None = None
        self._thread = threading.Thread(target=self._run, name="ordergate-gateway", daemon=True)

    @property
    def auth(self) -> GatewayAuth | None:
        """The gateway's authorization server once started (its store mints tokens in tests)."""
        return self._auths[0] if self._auths else None

    def _on_ready(self, url: str, running: Running) -> None:
        self.url = url
        self.running = running
        self._ready.set()

    def _run(self) -> None:
        try:
            asyncio.run(
                run_gateway(
                    *self._args,
                    clock=self._clock,
                    on_ready=self._on_ready,
                    reconcile_every=self._reconcile_every,
                    ledger=self._ledger,
                    server_box=self._servers,
                    auth_box=self._auths,
                )
            )
        except BaseException as error:  # reported to the starting thread
            self._error = error
            self._ready.set()

    def __enter__(self) -> str:
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT_S):
            raise RuntimeError("the gateway did not start in time")
        if self._error is not None:
            raise RuntimeError("the gateway failed to start") from self._error
        return self.url

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for server in self._servers:
            server.should_exit = True
        self._thread.join(_START_TIMEOUT_S)
        self._sock.close()
