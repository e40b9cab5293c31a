"""``login``: sign in to Robinhood once and keep the tokens in the token file.

With ``ROBINHOOD_ACCESS_TOKEN`` (and optionally ``ROBINHOOD_REFRESH_TOKEN``) set, those are
written and no browser is opened. Otherwise the OAuth 2.1 authorization-code flow of the MCP
authorization spec: discovery from the 401 challenge (RFC 9728 → RFC 8414), registration
(RFC 7591) under ``config.name``, PKCE S256 (RFC 7636, the SDK's ``PKCEParameters``), a random
``state`` checked on return, the ``resource`` indicator (RFC 8707), a loopback redirect
catcher (RFC 8252), and the code exchanged at the token endpoint (RFC 6749 §4.1.3). The
authorization URL goes to the browser, or is printed when none can be started; either way
``login`` says on stderr that it is waiting for the redirect, and gives up after
``timeout_s`` (5 minutes) saying so. The token file records the server signed in to
(``config.url``): the tokens are sent there only.

Built from the MCP SDK's client OAuth pieces rather than its ``OAuthClientProvider``: the
provider keeps tokens in memory and refreshes (or re-runs the browser flow) by itself, with
``time.time()`` and no inter-process lock, which the token-file rules here forbid; and
discovery is also needed without the browser flow (an environment refresh token).
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import sys
from collections.abc import Mapping
from urllib.parse import urlencode

import httpx2
from mcp.client.auth import PKCEParameters
from mcp.client.auth.utils import issuers_match

from ordergate.client._browser import OpenUrl, open_in_browser
from ordergate.client._catcher import catch_redirect
from ordergate.client._config import Config
from ordergate.client._discovery import AuthorizationServer, discover
from ordergate.client._errors import LoginRequired
from ordergate.client._registration import register
from ordergate.client._rfc6749 import request_tokens
from ordergate.client._session import connect
from ordergate.client._tokens import TokenSet, write_token_file
from ordergate.core import Clock, RealtimeClock, Secret

__all__ = ["ENV_ACCESS_TOKEN", "ENV_REFRESH_TOKEN", "LOGIN_TIMEOUT_S", "login"]

ENV_ACCESS_TOKEN = "ROBINHOOD_ACCESS_TOKEN"
ENV_REFRESH_TOKEN = "ROBINHOOD_REFRESH_TOKEN"
LOGIN_TIMEOUT_S = 300.0
# RFC 8252 §7.3: a loopback redirect URI matches on any port; registered once for an
# environment refresh token, which never goes through the browser.
_ANY_LOOPBACK = "http://127.0.0.1/callback"
_ERROR_CODE = re.compile(r"[a-z_]{1,64}")


async def login(
    config: Config | None = None,
    *,
    open_url: OpenUrl | None = None,
    timeout_s: float | None = None,
    clock: Clock | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """Sign in, write the token file, and return the agentic account's number.

    ``open_url`` shows the authorization URL to the person (default: their browser, or the
    URL printed when there is none); ``timeout_s`` bounds the wait for their answer
    (default ``LOGIN_TIMEOUT_S``, 5 minutes).
    Raises ``LoginRequired`` when the sign-in is refused, abandoned or cannot be trusted,
    ``TransportError`` when the venue or its authorization server does not answer.
    """
    config = config or Config()
    clock = clock or RealtimeClock()
    timeout_s = LOGIN_TIMEOUT_S if timeout_s is None else timeout_s
    env = os.environ if environ is None else environ
    async with httpx2.AsyncClient(timeout=30.0) as http:
        access = env.get(ENV_ACCESS_TOKEN)
        if access:
            tokens = await _from_environment(http, config, access, env.get(ENV_REFRESH_TOKEN))
        else:
            tokens = await _authorize(http, config, open_url or open_in_browser, timeout_s, clock)
    write_token_file(config.token_file, tokens)
    async with connect(config, clock=clock) as robinhood:
        account = await robinhood.accounts.agentic()
    return account.account_number


async def _from_environment(
    http: httpx2.AsyncClient, config: Config, access: str, refresh: str | None
) -> TokenSet:
    if not refresh:
        return TokenSet(access_token=Secret(access), server=config.url)
    # A refresh token is only worth keeping with the endpoint and client id it belongs to.
    server = await discover(http, config.url)
    client_id = await register(http, server, name=config.name, redirect_uri=_ANY_LOOPBACK)
    return TokenSet(
        access_token=Secret(access),
        refresh_token=Secret(refresh),
        token_endpoint=server.token_endpoint,
        client_id=client_id,
        resource=server.resource,
        scope=server.scope,
        server=config.url,
    )


async def _authorize(
    http: httpx2.AsyncClient, config: Config, open_url: OpenUrl, timeout_s: float, clock: Clock
) -> TokenSet:
    server = await discover(http, config.url)
    pkce = PKCEParameters.generate()
    state = secrets.token_urlsafe(32)
    async with catch_redirect(name=config.name) as catcher:
        redirect_uri = catcher.redirect_uri
        client_id = await register(http, server, name=config.name, redirect_uri=redirect_uri)
        url = _authorization_url(server, client_id, redirect_uri, pkce.code_challenge, state)

        async def open_and_wait(address: str) -> None:
            await open_url(address)
            print(
                f"Waiting for the sign-in to redirect to {redirect_uri} "
                f"(giving up after {_duration(timeout_s)})…",
                file=sys.stderr,
            )

        answer = await catcher.redirect(open_and_wait, url, timeout_s=timeout_s)
    if answer is None:
        raise LoginRequired(
            f"gave up waiting for the sign-in: no redirect reached {redirect_uri} within "
            f"{_duration(timeout_s)}"
        )
    code = _code_from(answer, state, server)
    granted = await request_tokens(
        http,
        server.token_endpoint,
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "client_id": client_id,
            "code_verifier": pkce.code_verifier,
            "resource": server.resource,
        },
        now=clock.now(),
    )
    return TokenSet(
        access_token=granted.access_token,
        refresh_token=granted.refresh_token,
        expires_at=granted.expires_at,
        token_endpoint=server.token_endpoint,
        client_id=client_id,
        resource=server.resource,
        scope=granted.scope or server.scope,
        server=config.url,
    )


def _duration(seconds: float) -> str:
    """``300`` → ``5 minutes``; ``0.2`` → ``0.2 s``."""
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} s"


def _authorization_url(
    server: AuthorizationServer, client_id: str, redirect_uri: str, challenge: str, state: str
) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "resource": server.resource,
    }
    if server.scope:
        params["scope"] = server.scope
    return f"{server.metadata.authorization_endpoint}?{urlencode(params)}"


def _code_from(answer: Mapping[str, str], state: str, server: AuthorizationServer) -> str:
    """The code of a genuine answer to *this* request (RFC 6749 §10.12, RFC 9207)."""
    if not hmac.compare_digest(answer.get("state", "").encode(), state.encode()):
        raise LoginRequired("the sign-in answer carried the wrong state, so it was not trusted")
    issuer = answer.get("iss")
    if issuer is not None and not issuers_match(issuer, str(server.metadata.issuer)):
        raise LoginRequired("the sign-in answer came from another authorization server")
    error = answer.get("error")
    if error is not None:
        reason = error if _ERROR_CODE.fullmatch(error) else "an error"
        raise LoginRequired(f"the sign-in was not completed: Robinhood answered {reason}")
    code = answer.get("code")
    if not code:
        raise LoginRequired("the sign-in answer carried no authorization code")
    return code
