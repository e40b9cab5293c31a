"""The gateway app: its authorization server, ``/mcp``, and ``/metrics``, behind the limits.

``gateway_auth`` builds the authorization server (with the upstream sign-in when each
connection keeps a sealed session of its own); ``build_gateway_app`` puts it, the MCP endpoint
over a ``GatewayBackend`` (``_owner``: the owner's one session; ``custody``: each
connection's own) and the metrics behind the ``Host``/``Origin`` check (``HostCheck``: the
gateway's own authority or a loopback name, DNS-rebinding protection on every route), then
the per-IP rate limits and the 8 KB body cap (``_limits``), which every request passes
before any route. Each connection's MCP and broker requests then spend its own call budget
(``_budget``: in the Redis the per-IP counts are in, when they are), and ``/healthz`` and
``/readyz`` (``_health``) answer without a token.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Engine
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ordergate.callers import CallerVerifier
from ordergate.core import Clock
from ordergate.gateway._broker import broker_route
from ordergate.gateway._budget import admission, budget_for
from ordergate.gateway._callers import bearer_verifier
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._fast_reads import ForwardedReads
from ordergate.gateway._health import Readiness, health_routes, ledger_writable
from ordergate.gateway._limits import LimitMiddleware, MemoryCounter, WindowCounter
from ordergate.gateway._metrics import GatewayMetrics
from ordergate.gateway._public_record import public_record_routes
from ordergate.gateway._sessions import SignedSessions, session_key
from ordergate.gateway._tool_lists import SharedToolLists
from ordergate.gateway.console import console, console_url
from ordergate.gateway.custody import PersonPasskeys
from ordergate.gateway.desk import OwnerDesk, profile_trades
from ordergate.gateway.mcp import (
    GatewayBackend,
    GatewayMethods,
    HeldAnswers,
    gateway_endpoint,
    state_key,
)
from ordergate.gateway.oauth import GatewayAuth
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.mcpserve import HostCheck, HostPolicy
from ordergate.oauth import ClientDocuments, ConsentCheck, SignIn
from ordergate.profiles import Profiles

__all__ = ["build_gateway_app", "gateway_auth"]


def gateway_auth(
    engine: Engine,
    *,
    config: GatewayConfig,
    public_url: str,
    clock: Clock,
    profiles: Profiles | None = None,
    sign_in: Callable[[GatewayStore], SignIn] | None = None,
    consent_check: ConsentCheck | None = None,
) -> GatewayAuth:
    """The authorization server; ``sign_in(store)`` builds the upstream sign-in, if any;
    ``consent_check`` is what approving a client needs (the owner code). Clients may name
    themselves by their metadata document's URL, fetched as ``config`` allows."""
    trust = None
    if config.cimd_ca_file is not None:
        trust = ssl.create_default_context(cafile=str(config.cimd_ca_file))
    documents = ClientDocuments(
        clock=clock, allow_private=config.cimd_allow_private, ssl_context=trust
    )
    return GatewayAuth(
        engine,
        public_url=public_url,
        clock=clock,
        consent_check=consent_check,
        access_ttl=config.access_ttl,
        refresh_ttl=config.refresh_ttl,
        code_ttl=config.code_ttl,
        sign_in=sign_in,
        profiles=profiles,
        client_documents=documents,
    )


def build_gateway_app(
    auth: GatewayAuth,
    backend: GatewayBackend,
    *,
    profiles: Profiles,
    callers: CallerVerifier | None = None,
    sealed: bool = False,
    config: GatewayConfig,
    public_url: str,
    clock: Clock,
    counter: WindowCounter | None = None,
    desk: OwnerDesk | None = None,
    person_passkeys: PersonPasskeys | None = None,
    tool_lists: SharedToolLists | None = None,
    public_record: Engine | None = None,
    extra_routes: Sequence[BaseRoute] = (),
) -> Any:
    """The ASGI app (with the owner's console at ``/console`` when ``desk`` is given — the
    owner's commands reach the desk on its own channel, never here — and the public record
    page over ``public_record``'s ledger when given). With a master secret its MCP sessions carry
    themselves (``SignedSessions``: any replica continues one); orders take their account's turn
    with every process on the ledger in the guard (``Guard.turn``)."""
    metrics = GatewayMetrics()
    secret = config.master_secret
    methods = GatewayMethods(
        metrics.observe(backend),
        clock=clock,
        profiles=profiles,
        tools_ttl=config.tools_cache,
        sessions=None if secret is None else SignedSessions(session_key(secret), clock=clock),
        tool_lists=tool_lists,
        # An order held for the owner (on a hosted rail: its person) sends a client that can
        # take it to the console's page.
        held=None
        if desk is None
        else HeldAnswers(key=state_key(secret), console=console_url(public_url), person=sealed),
    )
    verifier = auth.verifier
    verify = bearer_verifier(
        verifier.verify,
        callers,
        store=auth.store,
        identity=backend.identity,
        needs_connection=sealed,
        cached=verifier.cached,
    )
    counter = counter or MemoryCounter()
    admit = admission(
        budget_for(config.limits, counter),
        clock=clock,
        on_refusal=metrics.refused,
        local=(budget_for(config.limits, counter, local=True), methods.answered_here),
        trades=lambda name: profile_trades(profiles, name),
    )
    endpoint = gateway_endpoint(
        methods,
        verify=verify,
        challenge=verifier.www_authenticate,
        public_url=public_url,
        max_body=config.max_body,
        check_hosts=False,  # HostCheck below covers /mcp with every other route
        admit=admit,
    )
    engine = auth.store.engine
    readiness = Readiness(
        ledger=lambda: ledger_writable(engine),
        # Sealed custody has no upstream session to read with until someone connects.
        upstream=None if sealed else lambda: backend.upstream_tools(""),
    )
    routes: list[BaseRoute] = [
        *auth.routes(),
        broker_route(methods, verify=verify, challenge=verifier.www_authenticate, admit=admit),
        Route("/metrics", metrics.endpoint, methods=["GET"]),
        *health_routes(readiness),
        *(
            console(
                desk,
                engine,
                public_url=public_url,
                clock=clock,
                guard=None if sealed else (lambda: backend.guard("")),
                persons=person_passkeys,
                guard_of=backend.guard if sealed else None,
            )
            if desk is not None
            else ()
        ),
        *(public_record_routes(public_record) if public_record is not None else ()),
        *extra_routes,
    ]
    limited = LimitMiddleware(
        McpFirst(endpoint, Starlette(routes=routes)),
        limits=config.limits,
        counter=counter,
        clock=clock,
        max_body=config.max_body,
        on_refusal=metrics.refused,
        proxies=config.proxies,
    )
    hosts = HostPolicy.for_url(public_url, speaker="the gateway")
    return ForwardedReads(
        HostCheck(limited, policy=hosts),
        endpoint=endpoint,
        methods=methods,
        verifier=verify,
        hosts=hosts,
        max_body=config.max_body,
    )


class McpFirst:
    """``/mcp`` straight to its endpoint; every other path to ``rest`` (the Starlette app).

    The MCP endpoint is a plain ASGI app that answers every request itself (its refusals
    included), so Starlette's routing and its two exception middlewares only wrapped each
    call and each message it sent: ~90 µs of every forwarded read (``ordergate bench
    gateway --quick``: gateway_read p50 1,050–1,060 → 966 µs). An exception still reaches
    uvicorn, which answers 500 and logs it, as after Starlette's middleware re-raised it.
    """

    def __init__(self, mcp: ASGIApp, rest: ASGIApp) -> None:
        self._mcp = mcp
        self._rest = rest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/mcp":
            await self._mcp(scope, receive, send)
        else:
            await self._rest(scope, receive, send)
