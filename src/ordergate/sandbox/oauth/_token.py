"""The token endpoint (RFC 6749 §3.2): authorization-code (§4.1.3) and refresh (§6) grants.

Requests are form-encoded; every answer carries ``Cache-Control: no-store``. Errors are the
§5.2 JSON body with status 400. A public client authenticates with nothing but its
``client_id``, which must be the shared one.

- ``authorization_code``: the code is spent by its first presentation, whatever the outcome;
  ``redirect_uri`` must equal the one authorized, the S256 of ``code_verifier`` must equal the
  challenge (RFC 7636 §4.6), and ``resource``, when sent, must name the MCP endpoint
  (RFC 8707). A code presented twice is refused and revokes what it produced (§4.1.2).
- ``refresh_token``: rotation. Each use answers with a new refresh token and the old one is
  refused from then on.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.oauth import (
    NO_STORE,
    ErrorCode,
    FormError,
    MultiParams,
    ParameterError,
    read_form,
    single_param,
    token_error,
    verify_s256,
)
from ordergate.sandbox.oauth._grants import GrantStore, TokenPair
from ordergate.sandbox.oauth._rfc7591 import SUPPORTED_SCOPE

__all__ = ["TokenEndpoint", "token_response_body"]


class _TokenError(Exception):
    def __init__(self, code: ErrorCode, description: str) -> None:
        self.code = code
        self.description = description
        super().__init__(description)


def token_response_body(pair: TokenPair) -> dict[str, Any]:
    """The §5.1 success body for ``pair``."""
    return {
        "access_token": pair.access_token.reveal(),
        "token_type": "Bearer",
        "expires_in": pair.expires_in,
        "refresh_token": pair.refresh_token.reveal(),
        "scope": SUPPORTED_SCOPE,
    }


def _required(params: MultiParams, name: str) -> str:
    value = single_param(params, name)
    if value is None:
        raise _TokenError(ErrorCode.INVALID_REQUEST, f"{name} is missing")
    return value


class TokenEndpoint:
    """``POST`` handler of the token endpoint."""

    def __init__(self, *, store: GrantStore, client_id: str, resource: str) -> None:
        self._store = store
        self._client_id = client_id
        self._resource = resource

    async def handle(self, request: Request) -> Response:
        try:
            pair = self._grant(await read_form(request))
        except _TokenError as error:
            return token_error(error.code, error.description)
        except (ParameterError, FormError) as error:
            return token_error(ErrorCode.INVALID_REQUEST, str(error))
        return JSONResponse(token_response_body(pair), headers=NO_STORE)

    def _grant(self, form: MultiParams) -> TokenPair:
        grant_type = _required(form, "grant_type")
        if grant_type == "authorization_code":
            return self._authorization_code(form)
        if grant_type == "refresh_token":
            return self._refresh_token(form)
        raise _TokenError(ErrorCode.UNSUPPORTED_GRANT_TYPE, "grant_type is not supported")

    def _check_client_and_resource(self, form: MultiParams) -> str:
        client_id = _required(form, "client_id")
        if client_id != self._client_id:
            raise _TokenError(ErrorCode.INVALID_CLIENT, "client_id is not a client of this server")
        resource = single_param(form, "resource")
        if resource is not None and resource != self._resource:
            raise _TokenError(ErrorCode.INVALID_TARGET, "resource is not served by this server")
        return client_id

    def _authorization_code(self, form: MultiParams) -> TokenPair:
        client_id = self._check_client_and_resource(form)
        code = _required(form, "code")
        redirect_uri = _required(form, "redirect_uri")
        verifier = _required(form, "code_verifier")
        grant = self._store.redeem_code(code)
        if grant is None:
            raise _TokenError(ErrorCode.INVALID_GRANT, "code is unknown, expired or already used")
        # Codes are only issued to the one client, whose id was checked above.
        authorized = grant.request
        if authorized.redirect_uri != redirect_uri:
            raise _TokenError(ErrorCode.INVALID_GRANT, "redirect_uri does not match the code")
        if not verify_s256(verifier, authorized.code_challenge):
            raise _TokenError(ErrorCode.INVALID_GRANT, "code_verifier does not match the challenge")
        pair = self._store.issue_tokens(
            family=grant.family, client_id=client_id, scope=authorized.scope
        )
        if pair is None:
            # The code was replayed while this exchange was in flight: its tokens are revoked.
            raise _TokenError(ErrorCode.INVALID_GRANT, "code is unknown, expired or already used")
        return pair

    def _refresh_token(self, form: MultiParams) -> TokenPair:
        client_id = self._check_client_and_resource(form)
        refresh_token = _required(form, "refresh_token")
        scope = single_param(form, "scope")
        # §6: the scope of a refresh may narrow but never widen; there is only one scope.
        if scope is not None and set(scope.split(" ")) != {SUPPORTED_SCOPE}:
            raise _TokenError(ErrorCode.INVALID_SCOPE, f"the only scope is {SUPPORTED_SCOPE}")
        pair = self._store.rotate_refresh_token(refresh_token, client_id=client_id)
        if pair is None:
            raise _TokenError(
                ErrorCode.INVALID_GRANT, "refresh_token is unknown, expired or already used"
            )
        return pair
