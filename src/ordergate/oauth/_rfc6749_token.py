"""RFC 6749, The OAuth 2.0 Authorization Framework, §3.2: the token endpoint.

The authorization-code (§4.1.3) and refresh-token (§6) grants.

Form-encoded requests from public clients, which identify themselves by ``client_id`` alone
(``token_endpoint_auth_method`` ``none``); every answer is ``no-store`` (§5.1); errors are the
§5.2 JSON body with status 400; the success body is the MCP SDK's ``OAuthToken`` and names
the granted scope.

The checks, in this order, the first that fails answering:

1. ``grant_type`` is given (``invalid_request``) and served (``unsupported_grant_type``);
2. every parameter of that grant is given, once (``invalid_request``): a request that lacks
   one spends nothing;
3. ``client_id`` names a client of this server (``invalid_client``: §5.2's "unknown client");
4. ``resource``, when sent, is the protected resource (RFC 8707 ``invalid_target``);
5. on a refresh, ``scope``, when sent, is within the offer (``_rfc6749_scope``:
   ``invalid_scope``);
6. the grant itself (``invalid_grant``), checked by the store in the step that spends it:

   - a code (``code_refusal``): unexpired, issued to this client, for this ``redirect_uri``,
     and the S256 of ``code_verifier`` is its challenge (RFC 7636 §4.6). It is spent at its
     first presentation whatever the outcome; a second presentation ends every token issued
     from it (§4.1.2, §10.5).
   - a refresh token (``refresh_refusal``): known, unexpired and this client's; another
     client's is refused and left unspent. Each use answers with a new refresh token, and the
     old one is refused from then on.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.oauth._rfc6749 import (
    NO_STORE,
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    Refusal,
    read_form,
    single_param,
    token_error,
)
from ordergate.oauth._rfc6749_scope import ScopeError, granted_scope
from ordergate.oauth._rfc7636 import verify_s256
from ordergate.oauth._storage import AuthorizationStore, CodeExchange, IssuedTokens

__all__ = [
    "AUTHORIZATION_CODE",
    "BAD_CODE",
    "BAD_REFRESH",
    "GRANT_TYPES",
    "REFRESH_TOKEN",
    "TokenEndpoint",
    "code_refusal",
    "refresh_refusal",
]

AUTHORIZATION_CODE = "authorization_code"
REFRESH_TOKEN = "refresh_token"
GRANT_TYPES = (AUTHORIZATION_CODE, REFRESH_TOKEN)

BAD_CODE = Refusal(ErrorCode.INVALID_GRANT, "code is unknown, expired or already used")
BAD_REFRESH = Refusal(
    ErrorCode.INVALID_GRANT, "refresh_token is unknown, expired, revoked or already used"
)


def code_refusal(
    exchange: CodeExchange,
    *,
    issued_to: str,
    redirect_uri: str,
    code_challenge: str,
    expires_at: datetime,
    now: datetime,
) -> Refusal | None:
    """Why ``exchange`` gets no tokens for a code issued to ``issued_to`` for
    ``redirect_uri`` and ``code_challenge``, alive until ``expires_at``; ``None`` when it
    does. For the store to call in the step that spends the code."""
    if now >= expires_at or issued_to != exchange.client_id:
        return BAD_CODE
    if redirect_uri != exchange.redirect_uri:
        return Refusal(ErrorCode.INVALID_GRANT, "redirect_uri does not match the code")
    if not verify_s256(exchange.code_verifier, code_challenge):
        return Refusal(ErrorCode.INVALID_GRANT, "code_verifier does not match the code_challenge")
    return None


def refresh_refusal(
    client_id: str, *, issued_to: str, expires_at: datetime, now: datetime
) -> Refusal | None:
    """Why ``client_id`` may not rotate a refresh token issued to ``issued_to``, alive until
    ``expires_at``; ``None`` when it may. A refusal spends nothing."""
    if now >= expires_at:
        return BAD_REFRESH
    if issued_to != client_id:
        return Refusal(ErrorCode.INVALID_GRANT, "refresh_token is another client's")
    return None


class _Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal
        super().__init__(refusal.description)


def _required(form: MultiParams, name: str) -> str:
    value = single_param(form, name)
    if value is None:
        raise _Refused(Refusal(ErrorCode.INVALID_REQUEST, f"{name} is missing"))
    return value


class TokenEndpoint:
    """``POST`` handler of the token endpoint."""

    def __init__(self, *, store: AuthorizationStore, resource: str, scopes: Sequence[str]) -> None:
        self._store = store
        self._resource = resource
        self._scopes = tuple(scopes)

    async def handle(self, request: Request) -> Response:
        try:
            result = await self._grant(await read_form(request))
        except (FormError, ParameterError) as error:
            return token_error(ErrorCode.INVALID_REQUEST, str(error))
        except _Refused as refused:
            result = refused.refusal
        if isinstance(result, Refusal):
            return token_error(result.error, result.description)
        from mcp.shared.auth import OAuthToken  # imported where used (about a second)

        body = OAuthToken(
            access_token=result.access_token,
            token_type="Bearer",
            expires_in=result.expires_in,
            refresh_token=result.refresh_token,
            scope=result.scope,
        )
        return JSONResponse(body.model_dump(mode="json", exclude_none=True), headers=NO_STORE)

    async def _grant(self, form: MultiParams) -> IssuedTokens | Refusal:
        grant_type = _required(form, "grant_type")
        if grant_type == AUTHORIZATION_CODE:
            exchange = CodeExchange(
                code=_required(form, "code"),
                client_id=_required(form, "client_id"),
                redirect_uri=_required(form, "redirect_uri"),
                code_verifier=_required(form, "code_verifier"),
            )
            await self._check_client_and_resource(form, exchange.client_id)
            return await self._store.exchange_code(exchange)
        if grant_type == REFRESH_TOKEN:
            refresh_token = _required(form, "refresh_token")
            client_id = _required(form, "client_id")
            await self._check_client_and_resource(form, client_id)
            try:
                granted_scope(single_param(form, "scope"), self._scopes)
            except ScopeError as error:
                raise _Refused(Refusal(ErrorCode.INVALID_SCOPE, str(error))) from None
            return await self._store.rotate_refresh_token(refresh_token, client_id=client_id)
        raise _Refused(Refusal(ErrorCode.UNSUPPORTED_GRANT_TYPE, "grant_type is not supported"))

    async def _check_client_and_resource(self, form: MultiParams, client_id: str) -> None:
        resource = single_param(form, "resource")
        if await self._store.client(client_id) is None:
            raise _Refused(
                Refusal(ErrorCode.INVALID_CLIENT, "client_id is not a client of this server")
            )
        if resource is not None and resource != self._resource:
            raise _Refused(
                Refusal(ErrorCode.INVALID_TARGET, "resource is not served by this server")
            )
