"""The token endpoint (RFC 6749 §3.2): the authorization-code and refresh-token grants.

Form-encoded requests from public clients, which identify themselves by ``client_id`` alone;
answers never cached; errors are the §5.2 JSON body with status 400. ``resource``, when sent,
must be the MCP endpoint's URL (RFC 8707); ``scope`` on a refresh may only name the gateway's
one scope (§6: never wider). What each grant checks and records is ``Grants``'. The success
body is the MCP SDK's ``OAuthToken``.
"""

from __future__ import annotations

import functools

import anyio.to_thread
from mcp.shared.auth import OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.gateway.oauth._grants import Grants
from ordergate.gateway.oauth._records import SCOPE, Refusal, TokenPair
from ordergate.oauth import (
    NO_STORE,
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    read_form,
    single_param,
    token_error,
)

__all__ = ["TokenEndpoint"]


def _required(form: MultiParams, name: str) -> str:
    value = single_param(form, name)
    if value is None:
        raise _Refused(Refusal(ErrorCode.INVALID_REQUEST, f"{name} is missing"))
    return value


class _Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal
        super().__init__(refusal.description)


class TokenEndpoint:
    """``POST`` handler of the token endpoint."""

    def __init__(self, *, grants: Grants, resource: str) -> None:
        self._grants = grants
        self._resource = resource

    async def handle(self, request: Request) -> Response:
        try:
            result = await self._grant(await read_form(request))
        except (FormError, ParameterError) as error:
            return token_error(ErrorCode.INVALID_REQUEST, str(error))
        except _Refused as refused:
            result = refused.refusal
        if isinstance(result, Refusal):
            return token_error(result.error, result.description)
        body = OAuthToken(
            access_token=result.access_token,
            token_type="Bearer",
            expires_in=result.expires_in,
            refresh_token=result.refresh_token,
            scope=SCOPE,
        )
        return JSONResponse(body.model_dump(mode="json", exclude_none=True), headers=NO_STORE)

    async def _grant(self, form: MultiParams) -> TokenPair | Refusal:
        grant_type = _required(form, "grant_type")
        if grant_type not in ("authorization_code", "refresh_token"):
            return Refusal(ErrorCode.UNSUPPORTED_GRANT_TYPE, "grant_type is not supported")
        client_id = _required(form, "client_id")
        resource = single_param(form, "resource")
        if resource is not None and resource != self._resource:
            return Refusal(ErrorCode.INVALID_TARGET, "resource is not served by this gateway")
        if grant_type == "authorization_code":
            exchange = functools.partial(
                self._grants.exchange_code,
                code=_required(form, "code"),
                client_id=client_id,
                redirect_uri=_required(form, "redirect_uri"),
                code_verifier=_required(form, "code_verifier"),
            )
            return await anyio.to_thread.run_sync(exchange)
        scope = single_param(form, "scope")
        if scope is not None and not set(scope.split()) <= {SCOPE}:
            return Refusal(ErrorCode.INVALID_SCOPE, f"the only scope is {SCOPE}")
        refresh_token = _required(form, "refresh_token")
        rotate = functools.partial(
            self._grants.refresh, refresh_token=refresh_token, client_id=client_id
        )
        return await anyio.to_thread.run_sync(rotate)
