"""The gateway's ``/mcp`` endpoint: the shared transport with the gateway's methods, its
token verifier, its host and origin rules, its 8 KB body cap and sessions bound to their
principal, at every protocol version a client people use may ask for
(``MCP_PROTOCOL_VERSIONS``: 2025-03-26, 2025-06-18, 2025-11-25, by the handshake; and the
stateless 2026-07-28, ``STATELESS_PROTOCOL_VERSIONS``, chosen per request), and each principal's
requests admitted by the gateway's per-connection rate limit (``admit``) when one is given.

``Host`` must be the gateway's own (the host and port of its public URL) or a loopback name,
and a browser's ``Origin`` likewise (DNS-rebinding protection); a body over ``max_body``
answers 413 before it is parsed. An MCP session is bound to the ``Principal`` that opened it
(``Principal.session_owner``): any other gets 404, as for a session that does not exist.
``Decimal`` values go out as the JSON numbers they were read from, so a forwarded answer is
the upstream's, number for number.
"""

from __future__ import annotations

from ordergate.gateway.mcp._methods import LISTING_TTL_MS, GatewayMethods
from ordergate.gateway.mcp._principal import Principal, Verify
from ordergate.mcpserve import (
    MCP_PROTOCOL_VERSIONS,
    STATELESS_PROTOCOL_VERSIONS,
    Admit,
    Challenge,
    Framing,
    HostPolicy,
    McpEndpoint,
    dumps_decimal_numbers,
)

__all__ = ["MAX_BODY", "gateway_endpoint"]

MAX_BODY = 8192


def _owner(principal: Principal) -> str:
    return principal.session_owner


def gateway_endpoint(
    methods: GatewayMethods,
    *,
    verify: Verify,
    challenge: Challenge,
    public_url: str,
    max_body: int = MAX_BODY,
    framing: Framing = Framing.JSON,
    check_hosts: bool = True,
    admit: Admit[Principal] | None = None,
) -> McpEndpoint[Principal]:
    """The ASGI app to mount at ``/mcp``. ``verify`` resolves the principal of a token the
    gateway minted (``None`` for any other); ``challenge`` builds the 401's
    ``WWW-Authenticate``; ``check_hosts=False`` when a ``HostCheck`` for ``public_url`` wraps
    the whole app; ``admit`` the rate limit each principal's requests pass."""
    return McpEndpoint(
        methods=methods,
        verify=verify,
        challenge=challenge,
        framing=framing,
        hosts=HostPolicy.for_url(public_url, speaker="the gateway"),
        check_hosts=check_hosts,
        session_owner=_owner,
        max_body=max_body,
        dumps=dumps_decimal_numbers,
        versions=MCP_PROTOCOL_VERSIONS,
        stateless_versions=STATELESS_PROTOCOL_VERSIONS,
        listing_ttl_ms=LISTING_TTL_MS,
        admit=admit,
    )
