"""The revocation endpoint (RFC 7009), for public clients.

The client posts ``token`` (an access or a refresh token; ``token_type_hint`` is read as the
RFC allows, i.e. ignored, since the gateway finds either by its hash) and its ``client_id``.
An access token revokes every token of its connection; a refresh token erases the connection
(``Grants.revoke``). An unknown token, or one of another client, changes nothing, and the
answer is the same 200 either way (§2.2), so the endpoint tells nobody whether a guess hit.
"""

from __future__ import annotations

import functools

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from ordergate.gateway.oauth._grants import Grants
from ordergate.oauth import (
    NO_STORE,
    ErrorCode,
    FormError,
    ParameterError,
    read_form,
    single_param,
    token_error,
)

__all__ = ["RevocationEndpoint"]


class RevocationEndpoint:
    """``POST`` handler of the revocation endpoint (§2.1)."""

    def __init__(self, *, grants: Grants) -> None:
        self._grants = grants

    async def handle(self, request: Request) -> Response:
        try:
            form = await read_form(request)
            token = single_param(form, "token")
            client_id = single_param(form, "client_id")
        except (FormError, ParameterError) as error:
            return token_error(ErrorCode.INVALID_REQUEST, str(error))
        if token is None or client_id is None:
            return token_error(ErrorCode.INVALID_REQUEST, "token and client_id are required")
        await anyio.to_thread.run_sync(
            functools.partial(self._grants.revoke, token=token, client_id=client_id)
        )
        return Response(status_code=200, headers=NO_STORE)
