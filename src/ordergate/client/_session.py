"""``connect``: one signed-in MCP session to the venue, and the lean path every call takes.

The session handshake is two plain JSON-RPC POSTs (``_handshake``: what the MCP SDK's
``ClientSession.initialize`` sends, without importing the SDK): protocol negotiation, client
info, ``notifications/initialized``. Tool calls then go out as plain JSON-RPC POSTs
(``JsonRpcCaller``) over the same pooled ``httpx2.AsyncClient``, carrying the session's
``Mcp-Session-Id`` and protocol version. Measured by ``ordergate bench client`` (9000 calls
a case, venue in its own process): the SDK's ``call_tool`` p50 was 1.60× a raw POST of the
same request (2240 µs vs 1401 µs; the issue quotes 2.2× from an earlier run), the lean typed
path 1.09× (1529 µs, +128 µs).

The tokens are sent to the server they were issued for and to no other (``_servers``):
asked for another URL, ``connect`` raises ``WrongServer`` before anything is sent; a token
file that does not record its server is refused too. ``connect()`` with no config reaches
the server ``ordergate login`` signed in to.

When no session can be established (the handshake is refused, times out, or speaks
nonsense), calls fall back to plain JSON-RPC POSTs without a session. When the tokens are
missing or cannot be refreshed, ``connect`` fails closed with ``LoginRequired``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx2

from ordergate.client._auth import Refresh, TokenAuth
from ordergate.client._coalesce import coalesce
from ordergate.client._config import Config
from ordergate.client._handshake import Handshake, MCPError, handshake
from ordergate.client._jsonrpc import JsonRpcCaller
from ordergate.client._refresh import Refresher
from ordergate.client._robinhood import Robinhood, ServerInfo
from ordergate.client._servers import check_server
from ordergate.client._tokens import TokenSet, read_token_file
from ordergate.client._wire import Wire
from ordergate.core import Clock, RealtimeClock, ToolError

__all__ = ["HANDSHAKE_TIMEOUT_S", "connect", "connect_with"]

logger = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT_S = 10.0
_CLOSE_TIMEOUT_S = 5.0


@asynccontextmanager
async def connect(
    config: Config | None = None,
    *,
    clock: Clock | None = None,
    timeout_s: float = 30.0,
    handshake_timeout_s: float = HANDSHAKE_TIMEOUT_S,
) -> AsyncIterator[Robinhood]:
    """``async with connect(config) as rh:`` — a signed-in ``Robinhood`` for the block.

    Raises ``LoginRequired`` (run ``ordergate login``) when the token file is missing or
    damaged, does not say which server it was issued for, or the tokens have expired and
    cannot be refreshed; ``WrongServer`` when they were issued for another server than
    ``config.url``. Without ``config``: the server the token file was issued for.
    """
    config = config or Config.signed_in()
    clock = clock or RealtimeClock()
    tokens = read_token_file(config.token_file)
    check_server(tokens.server, config.url, token_file=config.token_file)
    async with httpx2.AsyncClient(timeout=timeout_s) as token_http:
        refresher = Refresher(token_file=config.token_file, http=token_http, clock=clock)
        async with connect_with(
            config,
            tokens=tokens,
            refresh=refresher,
            clock=clock,
            timeout_s=timeout_s,
            handshake_timeout_s=handshake_timeout_s,
        ) as robinhood:
            yield robinhood


@asynccontextmanager
async def connect_with(
    config: Config,
    *,
    tokens: TokenSet,
    refresh: Refresh,
    clock: Clock,
    timeout_s: float = 30.0,
    handshake_timeout_s: float = HANDSHAKE_TIMEOUT_S,
) -> AsyncIterator[Robinhood]:
    """A signed-in ``Robinhood`` on ``tokens`` held by the caller rather than a token file.

    ``refresh(stale)`` returns a fresh set (and keeps it wherever the caller keeps tokens);
    it is called shortly before expiry and once after a 401. ``config.token_file`` is not
    read. Raises ``LoginRequired`` when the tokens are stale and cannot be refreshed, and
    ``WrongServer`` when they record another server than ``config.url``.
    """
    check_server(tokens.server, config.url)
    auth = TokenAuth(tokens, refresh=refresh, clock=clock)
    async with httpx2.AsyncClient(auth=auth, timeout=timeout_s) as http:
        coalesce(http)  # each call one write: half the wake-ups at the venue (_coalesce)
        # Fail closed before anything is sent if the tokens are stale and cannot be renewed.
        await auth.fresh_tokens()
        session = await _handshake(http, config, handshake_timeout_s)
        if session is None and auth.failure is not None:
            raise auth.failure
        wire = lean_wire(http, config.url, timeout_s)
        caller = JsonRpcCaller(
            http,
            config.url,
            session_id=session.session_id if session else None,
            protocol_version=session.protocol_version if session else None,
            wire=wire,
            auth=auth,
        )
        server = ServerInfo(session.server_name, session.server_version) if session else None
        try:
            yield Robinhood(caller, server=server)
        finally:
            if wire is not None:
                await wire.aclose()
            await _end_session(http, config.url, session)


# The caller's own, the wire's (Host), compression (not asked for), and keep-alive (what
# HTTP/1.1 does anyway: one header less for the venue to parse on every call).
_OWN_HEADERS = frozenset({b"accept", b"accept-encoding", b"content-type", b"host", b"connection"})


def lean_wire(http: httpx2.AsyncClient, url: str, timeout_s: float) -> Wire | None:
    """The ``Wire`` the session's calls take instead of ``http`` (``_wire``: ~10 µs of CPU a
    call where ``httpx2`` spends ~360 µs), or ``None`` to stay on ``http``: when ``url`` is
    not plain http(s), the loop is not asyncio's, or ``http`` would not use its own default
    transport for it (a proxy from the environment, a test's mock transport). The wire
    sends ``http``'s own default headers (its ``User-Agent``) but asks for no compression
    and leaves out ``Connection: keep-alive`` (HTTP/1.1's default)."""
    try:
        asyncio.get_running_loop()  # not under trio
        target = httpx2.URL(url)
        transport = http._transport_for_url(target)
    except (RuntimeError, httpx2.InvalidURL):
        return None
    if transport is not http._transport or not isinstance(transport, httpx2.AsyncHTTPTransport):
        return None
    if target.scheme not in ("http", "https") or target.userinfo:
        return None
    headers = [(k.lower(), v) for k, v in http.headers.raw if k.lower() not in _OWN_HEADERS]
    return Wire(url, timeout_s=timeout_s, headers=headers)


async def _handshake(
    http: httpx2.AsyncClient, config: Config, timeout_s: float
) -> Handshake | None:
    try:
        with anyio.fail_after(timeout_s):
            return await handshake(http, config.url, name=config.name, version=config.version)
    except Exception as error:
        # Broad on purpose: whatever stops the handshake, calls still work without a session.
        logger.warning(
            "no MCP session (%s); calling tools by plain JSON-RPC POST", _describe(error)
        )
        return None


def _describe(error: BaseException) -> str:
    """What went wrong, by exception type (and the handshake's own message), never more."""
    if isinstance(error, MCPError):
        return f"{type(error).__name__}: {error}"
    return type(error).__name__


async def _end_session(http: httpx2.AsyncClient, url: str, session: Handshake | None) -> None:
    if session is None or session.session_id is None:
        return
    headers = {
        "mcp-session-id": session.session_id,
        "mcp-protocol-version": session.protocol_version,
    }
    # Shielded: the block may be ending because it was cancelled, and the session should
    # still be ended; bounded, because nothing waits on the answer.
    with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_TIMEOUT_S):
        try:
            await http.delete(url, headers=headers)
        except (httpx2.HTTPError, ToolError) as error:
            logger.debug("ending the MCP session failed (%s)", type(error).__name__)
