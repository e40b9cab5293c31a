"""RFC 6749, The OAuth 2.0 Authorization Framework: the token endpoint, from the client side.

The two grants a public client uses (authorization code §4.1.3 with the PKCE verifier of
RFC 7636, refresh token §6) and the reading of the answer (§5.1 success, §5.2 error). The
answer is parsed by hand into ``Secret`` values rather than into the SDK's ``OAuthToken``,
whose repr and validation errors would show the token.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx2

from ordergate.client._errors import LoginRequired, TransportError
from ordergate.client._servers import shown_url
from ordergate.core import Secret

__all__ = ["GrantedTokens", "request_tokens", "request_tokens_blocking"]

# §5.2: error codes are ASCII without quote or backslash; anything else is not repeated.
_ERROR_CODE = re.compile(r"[a-z_]{1,64}")


@dataclass(frozen=True, slots=True)
class GrantedTokens:
    access_token: Secret
    refresh_token: Secret | None
    expires_at: datetime | None
    scope: str | None


async def request_tokens(
    http: httpx2.AsyncClient, token_endpoint: str, form: dict[str, str], *, now: datetime
) -> GrantedTokens:
    """POST one grant with ``http`` (a client without auth); the tokens it granted.

    Raises ``LoginRequired`` when the server refuses or answers something unreadable, and
    ``TransportError`` when it does not answer at all (a refresh token may then be spent or
    not: the next attempt finds out).
    """
    try:
        response = await http.post(token_endpoint, data=form, headers=_ACCEPT)
    except httpx2.TransportError as error:
        raise _no_answer(token_endpoint, error) from None
    return _answer(response, form, now)


def request_tokens_blocking(
    http: httpx2.Client, token_endpoint: str, form: dict[str, str], *, now: datetime
) -> GrantedTokens:
    """``request_tokens`` for a caller that must stay on its thread (one holding a database
    lock across the grant, so that a rotating refresh token is spent once)."""
    try:
        response = http.post(token_endpoint, data=form, headers=_ACCEPT)
    except httpx2.TransportError as error:
        raise _no_answer(token_endpoint, error) from None
    return _answer(response, form, now)


_ACCEPT = {"accept": "application/json"}


def _no_answer(token_endpoint: str, error: Exception) -> TransportError:
    return TransportError(
        f"no answer from the token endpoint at {shown_url(token_endpoint)} ({type(error).__name__})"
    )


def _answer(response: httpx2.Response, form: dict[str, str], now: datetime) -> GrantedTokens:
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if response.status_code != 200:
        code = body.get("error") if isinstance(body, dict) else None
        reason = code if isinstance(code, str) and _ERROR_CODE.fullmatch(code) else "no reason"
        raise LoginRequired(
            f"Robinhood refused the {form.get('grant_type', 'token')} grant "
            f"(HTTP {response.status_code}, {reason})"
        )
    return _granted(body, now)


def _granted(body: object, now: datetime) -> GrantedTokens:
    if not isinstance(body, dict):
        raise LoginRequired("the token endpoint answered something that is not a token set")
    access, refresh = body.get("access_token"), body.get("refresh_token")
    token_type, expires_in = body.get("token_type"), body.get("expires_in")
    scope = body.get("scope")
    if not isinstance(access, str) or not access:
        raise LoginRequired("the token endpoint answered without an access_token")
    if not isinstance(token_type, str) or token_type.lower() != "bearer":
        raise LoginRequired("the token endpoint answered a token that is not a bearer token")
    if refresh is not None and (not isinstance(refresh, str) or not refresh):
        raise LoginRequired("the token endpoint answered a malformed refresh_token")
    if expires_in is not None and (
        isinstance(expires_in, bool) or not isinstance(expires_in, int) or expires_in <= 0
    ):
        raise LoginRequired("the token endpoint answered a malformed expires_in")
    return GrantedTokens(
        access_token=Secret(access),
        refresh_token=Secret(refresh) if refresh else None,
        expires_at=now + timedelta(seconds=expires_in) if expires_in is not None else None,
        scope=scope if isinstance(scope, str) else None,
    )
