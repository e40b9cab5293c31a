"""RFC 7009, OAuth 2.0 Token Revocation: the revocation endpoint, for public clients.

The client posts ``token`` (an access or a refresh token; ``token_type_hint`` is read as the
RFC allows, i.e. ignored, since a store finds either by its hash) and its ``client_id``; both
are required, once each (``invalid_request`` otherwise). What revoking a token ends is the
store's (``TokenRevoker``): the gateway ends every token of the connection for an access
token and erases the connection for a refresh token. An unknown token, or one of another
client, changes nothing, and the answer is the same empty 200 either way (§2.2), so the
endpoint tells nobody whether a guess hit. A server without a revocation endpoint (the
venue, like the live one) mounts none.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ordergate.oauth._rfc6749 import (
    NO_STORE,
    ErrorCode,
    FormError,
    ParameterError,
    read_form,
    single_param,
    token_error,
)
from ordergate.oauth._storage import TokenRevoker

__all__ = ["RevocationEndpoint"]


class RevocationEndpoint:
    """``POST`` handler of the revocation endpoint (§2.1)."""

    def __init__(self, *, revoker: TokenRevoker) -> None:
        self._revoker = revoker

    async def handle(self, request: Request) -> Response:
        try:
            form = await read_form(request)
            token = single_param(form, "token")
            client_id = single_param(form, "client_id")
        except (FormError, ParameterError) as error:
            return token_error(ErrorCode.INVALID_REQUEST, str(error))
        if token is None or client_id is None:
            return token_error(ErrorCode.INVALID_REQUEST, "token and client_id are required")
        await self._revoker.revoke_token(token, client_id=client_id)
        return Response(status_code=200, headers=NO_STORE)
