"""The gateway app: its authorization server, ``/mcp``, and ``/metrics``, behind the limits.

Owner mode (this slice): every approved client acts on the owner's upstream session through
the one guard; see ``_owner``. Requests pass the per-IP rate limits and the 8 KB body cap
(``_limits``) before any route.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route

from ordergate.core import Clock
from ordergate.execution._blocking import blocking
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._limits import LimitMiddleware, MemoryCounter, WindowCounter
from ordergate.gateway._metrics import GatewayMetrics
from ordergate.gateway._owner import OwnerBackend
from ordergate.gateway.mcp import GatewayMethods, gateway_endpoint
from ordergate.gateway.oauth import GatewayAuth
from ordergate.runtime import Running

__all__ = ["build_gateway_app"]


def build_gateway_app(
    running: Running,
    *,
    config: GatewayConfig,
    public_url: str,
    clock: Clock,
    counter: WindowCounter | None = None,
) -> tuple[Any, GatewayAuth]:
    """The ASGI app, and its authorization server (for the caller's housekeeping)."""
    auth = GatewayAuth(
        running.guard.ledger.engine,
        public_url=public_url,
        clock=clock,
        require_passphrase=config.owner_passphrase if config.requires_passphrase else None,
        access_ttl=config.access_ttl,
        refresh_ttl=config.refresh_ttl,
        code_ttl=config.code_ttl,
    )

    async def erase(connection_id: str) -> None:
        await blocking(auth.store.erase, connection_id)

    metrics = GatewayMetrics()
    backend = metrics.observe(OwnerBackend(running, erase=erase))
    methods = GatewayMethods(backend, clock=clock, tools_ttl=config.tools_cache)
    verifier = auth.verifier
    endpoint = gateway_endpoint(
        methods,
        verify=verifier.verify,
        challenge=verifier.www_authenticate,
        public_url=public_url,
        max_body=config.max_body,
    )
    routes: list[BaseRoute] = [
        *auth.routes(),
        Route("/mcp", endpoint),
        Route("/metrics", metrics.endpoint, methods=["GET"]),
    ]
    app = Starlette(routes=routes)
    limited = LimitMiddleware(
        app,
        limits=config.limits,
        counter=counter or MemoryCounter(),
        clock=clock,
        max_body=config.max_body,
        on_refusal=metrics.refused,
    )
    return limited, auth
