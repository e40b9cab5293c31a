"""Assembles the sandbox venue: clock, each user's venue state (one market and one set of fault
knobs among them), authorization server, MCP endpoint, admin — every route behind one
``Host``/``Origin`` check (DNS rebinding).

A token reaches only the venue state of the user it was issued to (its ``subject``): that
user's accounts, orders, positions and lists, and nobody else's, on every tool."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route

from ordergate.core import Clock, Secret, make_clock
from ordergate.mcpserve import HostCheck, HostPolicy, McpEndpoint, SessionStore, async_verifier
from ordergate.sandbox._admin import admin_routes
from ordergate.sandbox._config import SandboxConfig
from ordergate.sandbox._crypto_rest import RestKeys, rest_routes
from ordergate.sandbox.market import Market
from ordergate.sandbox.mcp import Methods, ServerIdentity, VenueFaults
from ordergate.sandbox.oauth import SANDBOX_SUBJECT, OAuthServer, user_password
from ordergate.sandbox.tools import ToolTable
from ordergate.sandbox.venue import Faults, Venue, build_desks

__all__ = ["MCP_PATH", "Sandbox", "SandboxUser", "build_sandbox"]

MCP_PATH = "/mcp/trading"


@dataclass(frozen=True, slots=True)
class SandboxUser:
    """One of the sandbox's users: their name (the ``subject`` of their tokens), their
    password (``None``: the one unnamed user, who signs in with a click) and their venue
    state."""

    name: str
    password: Secret | None = field(repr=False)
    venue: Venue = field(repr=False)


@dataclass(slots=True)
class Sandbox:
    """A built venue: its state, its authorization server and the ASGI app serving both."""

    config: SandboxConfig
    base_url: str
    clock: Clock
    venue: Venue
    oauth: OAuthServer
    app: HostCheck
    """The ASGI app: every route behind the ``Host``/``Origin`` check."""
    rest_keys: RestKeys = field(default_factory=RestKeys)
    """The Crypto Trading REST API keys the venue knows (issued on the admin)."""
    users: tuple[SandboxUser, ...] = ()
    """Every user, in the configured order; ``venue`` is the first one's (the admin's knobs
    and the Crypto Trading REST API act on it)."""

    def user(self, name: str) -> SandboxUser:
        """The user ``name`` (``KeyError`` when there is none)."""
        for user in self.users:
            if user.name == name:
                return user
        raise KeyError(name)

    @property
    def mcp_url(self) -> str:
        return self.base_url + MCP_PATH


def build_sandbox(
    config: SandboxConfig, *, base_url: str | None = None, clock: Clock | None = None
) -> Sandbox:
    """Build the venue and its app; ``base_url`` defaults to the configured host and port."""
    base_url = base_url or config.base_url()
    clock = clock or make_clock(config.clock, start=config.start, speed=config.speed)
    users = _users(config, clock)
    venue = users[0].venue
    passwords = {user.name: user.password for user in users if user.password is not None}
    oauth = OAuthServer(
        issuer=base_url,
        resource=base_url + MCP_PATH,
        clock=clock,
        access_token_ttl=config.access_token_ttl,
        passwords=passwords or None,
    )
    methods = Methods(
        venue=venue,
        venues={user.name: user.venue for user in users},
        tools=ToolTable(),
        sessions=SessionStore(),
        page_size=config.page_size,
        identity=ServerIdentity(),
    )
    endpoint = McpEndpoint(
        methods=methods,
        verify=async_verifier(oauth.verify_access_token),  # in memory: it never blocks
        challenge=oauth.www_authenticate,
        framing=config.framing,
        check_hosts=False,  # the HostCheck below covers every route, this one included
        faults=VenueFaults(venue),
    )
    rest_keys = RestKeys()
    routes: list[BaseRoute] = [
        *oauth.routes(),
        Route(MCP_PATH, endpoint),
        *rest_routes(venue, rest_keys, page_size=config.page_size),
    ]
    router = Starlette(routes=routes)
    # Loopback names only, as the venue's MCP endpoint always answered: its OAuth endpoints
    # and admin knobs are no more reachable from a rebound page than the endpoint is.
    app = HostCheck(router, policy=HostPolicy(speaker="the venue"))
    sandbox = Sandbox(config, base_url, clock, venue, oauth, app, rest_keys, users)
    if config.admin:
        router.router.routes.extend(admin_routes(sandbox))
    return sandbox


def _users(config: SandboxConfig, clock: Clock) -> tuple[SandboxUser, ...]:
    """Each configured user with their own venue state over one market and one set of knobs;
    the one unnamed user where none are named."""
    market, faults = Market(seed=config.seed, clock=clock), Faults()
    named = config.users or ("",)
    users = []
    for name in named:
        venue = Venue(
            seed=config.seed,
            clock=clock,
            cash=config.cash,
            approval_required=config.approval_required,
            account_type=config.account_type,
            option_level=config.option_level,
            user=name,
            market=market,
            faults=faults,
        )
        build_desks(venue)
        password = user_password(config.seed, name) if name else None
        users.append(SandboxUser(name or SANDBOX_SUBJECT, password, venue))
    return tuple(users)
