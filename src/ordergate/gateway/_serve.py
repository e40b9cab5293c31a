"""Running the gateway: the configured guard, the app, and uvicorn on one event loop.

``run_gateway`` serves until cancelled or interrupted; ``GatewayServer`` runs it on a thread
of its own for tests and embedding (``with GatewayServer(...) as url:``; once started, its
``running`` is the guard and its ``auth`` the authorization server). Every hour the gateway
erases connections unused for 30 days (with their tokens), and every minute it closes the
upstream sessions of connections that have ended (sealed custody). With one guard of its own
(owner custody) it marks the account's equity curve every ``equity_every`` seconds
(``_equity_marks``), beside the grader.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import anyio
from starlette.routing import BaseRoute

from ordergate._serving import _config, _Server
from ordergate.callers import CallerVerifier
from ordergate.core import Clock, SecurityClock
from ordergate.execution import Guard
from ordergate.gateway._app import build_gateway_app, gateway_auth
from ordergate.gateway._config import Custody, GatewayConfig
from ordergate.gateway._equity_marks import EQUITY_EVERY_S, serving_marker
from ordergate.gateway._grading import GRADE_EVERY_S, serving_grader
from ordergate.gateway._limits import WindowCounter, redis_counter
from ordergate.gateway._owner import OwnerBackend
from ordergate.gateway._seal import Sealer
from ordergate.gateway._tool_lists import SharedToolLists, redis_tool_lists
from ordergate.gateway.console import console_url
from ordergate.gateway.console._person_routes import MINE
from ordergate.gateway.custody import (
    NO_MASTER_SECRET,
    ApprovalModes,
    NoVault,
    SealedBackend,
    SessionSource,
    Shredder,
    UpstreamAuthority,
    UpstreamSignIn,
    Vault,
    overrides_of,
    person_routes,
)
from ordergate.gateway.custody._consent import PersonConsent
from ordergate.gateway.custody._person import PersonCodes
from ordergate.gateway.custody._person_passkeys import PersonPasskeys
from ordergate.gateway.desk import (
    ChannelServer,
    GuardFor,
    OwnerDesk,
    bind_owner_socket,
    channel_app,
    owner_socket_path,
)
from ordergate.gateway.desk._connections import live_connection_ids
from ordergate.gateway.desk._wiring import (
    enrolment_note,
    owner_authority,
    owner_desk,
    rearm_note,
)
from ordergate.gateway.keys import MasterSecretProvider
from ordergate.gateway.mcp import GatewayBackend
from ordergate.gateway.oauth import GatewayAuth, GatewayStore
from ordergate.gateway.oauth._owner_code import OwnerCode
from ordergate.gateway.oauth._paths import CALLBACK_PATH
from ordergate.gateway.passkeys import RelyingParty
from ordergate.gateway.push import rail_push
from ordergate.ledger import FilingRecord, Ledger, open_ledger
from ordergate.owner import OwnerAuthority
from ordergate.policy import PolicyConfig
from ordergate.profiles import Profiles, load_profiles
from ordergate.runtime import (
    Running,
    Settings,
    UpstreamChoice,
    WebhookNotifier,
    embedded_venue,
    open_guard,
    policy_in_force,
    verify_at_start,
)
from ordergate.store import blocking

__all__ = ["GatewayServer", "Serving", "run_gateway", "sealed_custody"]

logger = logging.getLogger(__name__)
_START_TIMEOUT_S = 60.0
_T = TypeVar("_T")
_HOUSEKEEPING_S = 3600.0
_SWEEP_S = 60.0  # how soon an ended connection's upstream session leaves memory
_POLICY_WATCH_S = 2.0  # how soon a policy applied by another process is enforced here
_DELAYED_S = 5.0  # how soon an owner act that has waited its delay takes effect


@dataclass(frozen=True, slots=True)
class Serving:
    """What ``on_ready`` is told: what the gateway runs on, in notes for the person starting
    it, and in owner mode the one guard (``running``; ``None`` when each connection keeps its
    own sealed session)."""

    notes: tuple[str, ...]
    running: Running | None
    sealed: bool
    profiles: Profiles
    ledger: Ledger | None = None
    person_passkeys: PersonPasskeys | None = None
    """On a hosted rail: the people's passkeys, which sign each in to their own console."""
    routes: tuple[BaseRoute, ...] = ()
    """Routes of the custody's own (a hosted rail's person routes)."""


def sealed_custody(settings: Settings, config: GatewayConfig) -> bool:
    """Whether each connection signs in at the upstream and keeps its own sealed session."""
    if config.custody is Custody.AUTO:
        return settings.upstream_choice is UpstreamChoice.URL and not settings.token_file.exists()
    return config.custody is Custody.SEALED


def console_note(settings: Settings) -> str | None:
    """The start-up banner's line for the owner's console (each waiting order links there)."""
    if settings.console_url is None:
        return None
    return f"console: {settings.console_url} (the owner signs in with the owner code or a passkey)"


async def run_gateway(
    settings: Settings,
    config: GatewayConfig,
    sock: socket.socket,
    *,
    clock: Clock,
    security_clock: SecurityClock,
    on_ready: Callable[[str, Serving], None] | None = None,
    reconcile_every: float | None = 5.0,
    grade_every: float | None = GRADE_EVERY_S,
    equity_every: float | None = EQUITY_EVERY_S,
    ledger: Ledger | None = None,
    counter: WindowCounter | None = None,
    server_box: list[_Server] | None = None,
    auth_box: list[GatewayAuth] | None = None,
) -> None:
    public_url = config.url_for(sock.getsockname()[1])
    # The owner's console is served with the owner's desk: each waiting order links to it.
    settings = replace(settings, console_url=console_url(public_url))
    shared = None
    if counter is None and config.redis_url is not None:
        counter = shared = redis_counter(config.redis_url)
    tool_lists = (
        None
        if config.redis_url is None
        else redis_tool_lists(config.redis_url, ttl=config.tools_cache)
    )
    try:
        await _serve(
            settings,
            config,
            sock,
            public_url=public_url,
            clock=clock,
            security_clock=security_clock,
            on_ready=on_ready,
            reconcile_every=reconcile_every,
            grade_every=grade_every,
            equity_every=equity_every,
            ledger=ledger,
            counter=counter,
            tool_lists=tool_lists,
            server_box=server_box,
            auth_box=auth_box,
        )
    finally:
        if shared is not None:
            await shared.aclose()
        if tool_lists is not None:
            await tool_lists.aclose()


async def _serve(
    settings: Settings,
    config: GatewayConfig,
    sock: socket.socket,
    *,
    public_url: str,
    clock: Clock,
    security_clock: SecurityClock,
    on_ready: Callable[[str, Serving], None] | None,
    reconcile_every: float | None,
    grade_every: float | None,
    equity_every: float | None,
    ledger: Ledger | None,
    counter: WindowCounter | None,
    tool_lists: SharedToolLists | None,
    server_box: list[_Server] | None,
    auth_box: list[GatewayAuth] | None,
) -> None:
    opened = _sealed if sealed_custody(settings, config) else _owner
    start = _Start(settings, config, public_url, clock, security_clock, reconcile_every, ledger)
    async with opened(start) as (auth, backend, serving, desk):
        app = build_gateway_app(
            auth,
            backend,
            desk=desk,
            person_passkeys=serving.person_passkeys,
            profiles=serving.profiles,
            callers=(
                CallerVerifier(config.caller_key, clock=security_clock)
                if config.caller_key
                else None
            ),
            sealed=serving.sealed,
            config=config,
            public_url=public_url,
            clock=security_clock,
            counter=counter,
            tool_lists=tool_lists,
            public_record=(
                serving.ledger.engine
                if config.public_record and serving.ledger is not None
                else None
            ),
            extra_routes=serving.routes,
        )

        # The owner's commands reach the desk on a Unix socket only this user (or root) can
        # have made; the TCP listener serves none of it, so a process holding the port while
        # the gateway restarts cannot collect an owner code.
        owner_path = config.owner_socket or owner_socket_path(settings.home)
        owner_sock = bind_owner_socket(owner_path)
        owner_inode = owner_path.stat().st_ino
        channel = ChannelServer(channel_app(desk, directory=owner_path.parent))
        ready_notes = (*serving.notes, f"owner channel: {owner_path}")

        def ready() -> None:
            if on_ready is not None:
                on_ready(public_url, replace(serving, notes=ready_notes))

        server = _Server(_config(app, fast=True), ready)
        if server_box is not None:
            server_box.extend((server, channel))
        if auth_box is not None:
            auth_box.append(auth)

        async def housekeeping() -> None:
            while True:  # bounded by the server's lifetime: cancelled when it stops
                erased = await blocking(auth.store.erase_idle, older_than=config.idle_erase)
                if erased:
                    logger.info("erased %d idle connections", erased)
                await anyio.sleep(_HOUSEKEEPING_S)

        async def sweep() -> None:
            while True:  # bounded by the server's lifetime: cancelled when it stops
                await anyio.sleep(_SWEEP_S)
                if isinstance(backend, SealedBackend):
                    closed = await backend.close_ended(auth.store.live_among)
                    if closed:
                        logger.info("closed %d ended connections' upstream sessions", closed)

        async def follow_policy() -> None:
            while True:  # bounded by the server's lifetime: cancelled when it stops
                await anyio.sleep(_POLICY_WATCH_S)
                try:
                    note = await desk.follow_applied()
                except Exception as error:  # one failed read must not end the watch
                    logger.warning("reading the applied policy failed: %s", type(error).__name__)
                    continue
                if note:
                    logger.info("%s", note)

        grader = serving_grader(serving, clock) if grade_every is not None else None
        marker = serving_marker(serving, equity_every) if equity_every is not None else None
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(housekeeping)
            tasks.start_soon(sweep)
            tasks.start_soon(follow_policy)
            # The owner's delayed acts: what came due while no gateway ran is done at start.
            await desk.delayed.run_due()
            tasks.start_soon(desk.delayed.run_forever, _DELAYED_S)
            if grader is not None and grade_every is not None:
                tasks.start_soon(grader.run_forever, grade_every)
            if marker is not None:
                tasks.start_soon(marker.run_forever)
            tasks.start_soon(channel.serve, [owner_sock])
            try:
                await server.serve(sockets=[sock])
            finally:
                channel.exit_soon()
                tasks.cancel_scope.cancel()
                owner_sock.close()
                _unlink_if_ours(owner_path, owner_inode)


def _unlink_if_ours(path: Path, inode: int) -> None:
    """Remove the owner socket this gateway made (not one a later gateway put there)."""
    with contextlib.suppress(OSError):
        if path.stat().st_ino == inode:
            path.unlink()


_Opened = tuple[GatewayAuth, GatewayBackend, Serving, OwnerDesk]


@dataclass(frozen=True, slots=True)
class _Start:
    """What ``run_gateway`` was asked to serve, as either custody's composition takes it;
    ``ledger`` is one the caller keeps open (else the gateway opens and closes its own)."""

    settings: Settings
    config: GatewayConfig
    public_url: str
    clock: Clock
    security_clock: SecurityClock
    reconcile_every: float | None
    ledger: Ledger | None


@dataclass(frozen=True, slots=True)
class _Wall:
    """What either custody serves on: the verified ledger, the policy in force (and its
    banner note), the profiles it allows and the owner's authority over them."""

    ledger: Ledger
    in_force: tuple[PolicyConfig, str | None]
    profiles: Profiles
    authority: OwnerAuthority


@asynccontextmanager
async def _wall(start: _Start) -> AsyncIterator[_Wall]:
    settings, ledger = start.settings, start.ledger
    opened = (
        # The record's clock is security time (wall time in a run): the market's moves the
        # market only.
        open_ledger(
            settings.db_url, clock=start.security_clock, security_clock=start.security_clock
        )
        if ledger is None
        else ledger
    )
    try:
        # A ledger that fails verification (a reservation zeroed, a control rewritten) is
        # refused before anything reads it.
        await blocking(verify_at_start, opened, settings.home)
        # Read (and, on a fresh install, written) before the guard opens, so a policy that is
        # not in force or a bad profile is refused before anything starts.
        in_force = policy_in_force(settings, opened)
        profiles = load_profiles(settings.home, in_force[0])
        authority = owner_authority(settings, start.config, opened)
        yield _Wall(opened, in_force, profiles, authority)
    finally:
        if ledger is None:
            opened.close()


def _auth(
    start: _Start,
    wall: _Wall,
    sign_in: Callable[[GatewayStore], UpstreamSignIn] | None = None,
    *,
    persons_enrol: bool = False,
) -> tuple[GatewayAuth, Callable[[str], Awaitable[None]]]:
    """The gateway's authorization server on the wall's ledger, and how a connection's
    upstream session is erased when the owner revokes it. ``persons_enrol``: a hosted rail
    whose people enrol their own code before their client gets one, so consent needs no
    owner code (``custody._consent``)."""
    auth = gateway_auth(
        wall.ledger.engine,
        config=start.config,
        public_url=start.public_url,
        clock=start.security_clock,
        sign_in=sign_in,
        profiles=wall.profiles,
        consent_check=(
            PersonConsent()
            if sign_in is not None and persons_enrol
            else OwnerCode(wall.authority, wall.profiles)
        ),
    )

    async def erase(connection_id: str) -> None:
        await blocking(auth.store.erase, connection_id)

    return auth, erase


async def _served(
    start: _Start,
    wall: _Wall,
    *,
    store: GatewayStore,
    guard_for: GuardFor,
    mode: str,
    use_policy: Callable[[PolicyConfig], Awaitable[bool]],
    running: Running | None,
    notes: tuple[str | None, ...],
    persons: PersonCodes | None = None,
    person_passkeys: PersonPasskeys | None = None,
) -> tuple[OwnerDesk, Serving]:
    """The owner's desk on the wall and what ``on_ready`` is told; ``use_policy`` enforces an
    applied policy and answers whether the gateway trades live now."""

    async def on_policy(policy: PolicyConfig) -> str | None:
        live_now = await use_policy(policy)
        return await blocking(rearm_note, wall.ledger, live_now=live_now, policy=policy)

    settings = start.settings
    desk = owner_desk(
        settings,
        authority=wall.authority,
        ledger=wall.ledger,
        store=store,
        guard_for=guard_for,
        mode=mode,
        profiles=wall.profiles,
        caller_key=start.config.caller_key,
        clock=start.security_clock,
        on_policy=on_policy,
        webhook=WebhookNotifier(settings.webhook_url) if settings.webhook_url else None,
        persons=persons,
    )
    said = (*notes, await enrolment_note(desk), console_note(settings))
    serving = Serving(
        tuple(note for note in said if note),
        running,
        sealed=running is None,
        profiles=wall.profiles,
        ledger=wall.ledger,
        person_passkeys=person_passkeys,
    )
    return desk, serving


@asynccontextmanager
async def _owner(start: _Start) -> AsyncIterator[_Opened]:
    """Owner custody: one guard on the owner's own upstream session, for every connection."""
    async with (
        _wall(start) as wall,
        open_guard(
            start.settings,
            clock=start.clock,
            reconcile_every=start.reconcile_every,
            ledger=wall.ledger,
            in_force=wall.in_force,
        ) as running,
    ):
        auth, erase = _auth(start, wall)

        @asynccontextmanager
        async def guard_for(record: FilingRecord) -> AsyncIterator[Guard]:
            yield running.guard

        async def use_policy(policy: PolicyConfig) -> bool:
            running.guard.use_policy(policy)
            return running.arming.live

        custody = "connections: each approved client acts on the owner's session"
        desk, serving = await _served(
            start,
            wall,
            store=auth.store,
            guard_for=guard_for,
            mode=running.arming.mode.value,
            use_policy=use_policy,
            running=running,
            notes=(*running.notes, custody),
        )
        yield auth, OwnerBackend(running, erase=erase), serving, desk


@asynccontextmanager
async def _sealed(start: _Start) -> AsyncIterator[_Opened]:
    """Sealed custody: each connection signs in at the upstream and keeps its own sealed
    session and guard."""
    settings, config, security_clock = start.settings, start.config, start.security_clock
    async with _wall(start) as wall:
        sealer = Sealer(config.master_secret) if config.master_secret is not None else None
        keys = config.key_provider
        if keys is None and config.master_secret is not None:
            keys = MasterSecretProvider(config.master_secret)
        with ExitStack() as venue:
            if settings.upstream_url is not None:
                upstream_url, upstream_note = (
                    settings.upstream_url,
                    f"upstream: {settings.upstream_url}",
                )
            else:
                sandbox = venue.enter_context(embedded_venue(start.clock, settings))
                upstream_url = sandbox.mcp_url
                upstream_note = (
                    f"upstream: the embedded sandbox venue at {upstream_url} (no real account)"
                )
            vaults: list[SessionSource] = []
            persons = (
                PersonCodes(wall.ledger.engine, keys=keys, ledger=wall.ledger, clock=security_clock)
                if sealer is not None and keys is not None
                else None
            )
            person_passkeys = (
                PersonPasskeys(
                    wall.ledger.engine,
                    keys=keys,
                    ledger=wall.ledger,
                    party=RelyingParty.for_url(start.public_url),
                    clock=security_clock,
                )
                if sealer is not None and keys is not None
                else None
            )

            def sign_in(store: GatewayStore) -> UpstreamSignIn:
                vault = (
                    Vault(
                        wall.ledger.engine,
                        keys=keys,
                        sealer=sealer,
                        store=store,
                        clock=security_clock,
                        upstream_url=upstream_url,
                    )
                    if sealer is not None and keys is not None
                    else None
                )
                vaults.append(vault if vault is not None else NoVault(NO_MASTER_SECRET))
                authority = UpstreamAuthority(
                    upstream_url=upstream_url,
                    redirect_uri=start.public_url + CALLBACK_PATH,
                    client_name="ordergate-gateway",
                )
                return UpstreamSignIn(
                    store=store,
                    authority=authority,
                    sealer=sealer,
                    vault=vault,
                    issuer=start.public_url,
                    clock=security_clock,
                    persons=persons,
                    passkeys=person_passkeys,
                )

            auth, erase = _auth(start, wall, sign_in, persons_enrol=persons is not None)
            if sealer is not None and keys is not None:
                # Each erasure rotates past the KEK its data key was under (a backup taken
                # before cannot reopen it), and one owed from before this start is done now.
                shredder = Shredder(wall.ledger.engine, keys)
                auth.store.on_erased(shredder)
                await blocking(shredder)
            modes = ApprovalModes(wall.ledger.engine, persons=persons)
            custody_note = (
                "connections: each person signs in at the upstream; the session is sealed "
                f"under a data key of its own, wrapped by {keys!r}"
                if sealer is not None and keys is not None
                else f"connections: none can be made: {NO_MASTER_SECRET}"
            )
            async with (
                rail_push(
                    ledger=wall.ledger,
                    keys=keys if sealer is not None else None,
                    persons=persons,
                    contact=config.push_contact,
                    console=console_url(start.public_url) + MINE,
                    clock=security_clock,
                    allow_private=config.push_allow_private,
                ) as (notify, pushing),
                SealedBackend.running(
                    vault=vaults[0],
                    policy=wall.in_force[0],
                    ledger=wall.ledger,
                    clock=start.clock,
                    erase=erase,
                    live_connections=lambda: live_connection_ids(wall.ledger.engine),
                    reconcile_every=start.reconcile_every,
                    holds=modes.holds,
                    limits=partial(overrides_of, wall.ledger.engine),
                    notify=notify,
                ) as backend,
            ):
                desk, serving = await _served(
                    start,
                    wall,
                    store=auth.store,
                    guard_for=backend.guard_for,
                    mode="per connection",
                    use_policy=backend.use_policy,
                    running=None,
                    notes=(wall.in_force[1], upstream_note, custody_note),
                    persons=persons,
                    person_passkeys=person_passkeys,
                )
                routes = (*person_routes(wall.ledger.engine, modes, desk.limits), *pushing)
                yield auth, backend, replace(serving, routes=routes), desk


class GatewayServer:
    """The gateway on ``sock`` in a background thread; ``url`` once started.

    ``clock`` is the market's; ``security_clock`` times tokens, approvals and rate limits
    (without one, security time follows ``clock``, the one timeline a test steps).
    """

    def __init__(
        self,
        settings: Settings,
        config: GatewayConfig,
        sock: socket.socket,
        *,
        clock: Clock,
        security_clock: SecurityClock | None = None,
        ledger: Ledger | None = None,
        reconcile_every: float | None = None,
        grade_every: float | None = None,
        equity_every: float | None = None,
    ) -> None:
        self._args = (settings, config, sock)
        self._clock = clock
        self._security_clock = security_clock or SecurityClock(clock)
        self._ledger = ledger
        self._reconcile_every = reconcile_every
        self._grade_every = grade_every
        self._equity_every = equity_every
        self._sock = sock
        self._ready = threading.Event()
        self._servers: list[_Server] = []
        self._auths: list[GatewayAuth] = []
        self._error: BaseException | None = None
        self.url = ""
        self.running: Running | None = None
        self.serving: Serving | None = None
        self._thread = threading.Thread(target=self._run, name="ordergate-gateway", daemon=True)

    @property
    def app(self) -> Any:
        """The ASGI app it serves, once started."""
        return self._servers[0].config.app

    def run_in_loop(self, work: Coroutine[Any, Any, _T], timeout_s: float) -> _T:
        """``work`` run to its end on the gateway's event loop (where its upstream
        connections live), from another thread, within ``timeout_s``; its result."""
        loop = self._servers[0].loop
        if loop is None:
            raise RuntimeError("the gateway is not serving")
        return asyncio.run_coroutine_threadsafe(work, loop).result(timeout_s)

    @property
    def security_clock(self) -> SecurityClock:
        """The clock tokens, codes and approvals are timed by."""
        return self._security_clock

    @property
    def auth(self) -> GatewayAuth | None:
        """The gateway's authorization server once started (its store mints tokens in tests)."""
        return self._auths[0] if self._auths else None

    def _on_ready(self, url: str, serving: Serving) -> None:
        self.url = url
        self.running = serving.running
        self.serving = serving
        self._ready.set()

    def _run(self) -> None:
        try:
            asyncio.run(
                run_gateway(
                    *self._args,
                    clock=self._clock,
                    security_clock=self._security_clock,
                    on_ready=self._on_ready,
                    reconcile_every=self._reconcile_every,
                    grade_every=self._grade_every,
                    equity_every=self._equity_every,
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
