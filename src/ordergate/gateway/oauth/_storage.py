"""``GatewayStorage``: the shared server's storage protocol over the gateway's store.

``GatewayStore`` and its ``Grants`` are synchronous (SQLAlchemy Core on the ledger's
database), because the CLI, custody and the benchmarks call them outside any event loop. The
shared handlers are async (``ordergate.oauth.AuthorizationStore``, ``ClientRegistry``,
``TokenRevoker``), so each call here runs the store's method in a worker thread, as the
gateway's handlers always did. The gateway's one scope is the scope of every grant; the
pending request of a consent page is ``gateway_pending``'s row (``open_pending``).
"""

from __future__ import annotations

import functools

import anyio.to_thread

from ordergate.gateway.oauth._store import GatewayStore
from ordergate.oauth import (
    Authorization,
    Client,
    CodeExchange,
    ConsentTicket,
    IssuedTokens,
    Refusal,
)

__all__ = ["GatewayStorage"]


class GatewayStorage:
    def __init__(self, store: GatewayStore) -> None:
        self._store = store

    async def client(self, client_id: str) -> Client | None:
        return await anyio.to_thread.run_sync(self._store.client, client_id)

    async def register_client(self, *, client_name: str, redirect_uris: tuple[str, ...]) -> Client:
        register = functools.partial(
            self._store.register_client, client_name=client_name, redirect_uris=redirect_uris
        )
        return await anyio.to_thread.run_sync(register)

    async def open_consent(self, authorization: Authorization) -> ConsentTicket:
        pending_id, nonce = await anyio.to_thread.run_sync(self._store.open_pending, authorization)
        return ConsentTicket(pending_id=pending_id, nonce=nonce)

    async def take_consent(self, pending_id: str, nonce: str) -> Authorization | None:
        return await anyio.to_thread.run_sync(self._store.take_pending, pending_id, nonce)

    async def issue_code(self, authorization: Authorization) -> str:
        return await anyio.to_thread.run_sync(self._store.grants.issue_code, authorization)

    async def exchange_code(self, exchange: CodeExchange) -> IssuedTokens | Refusal:
        return await anyio.to_thread.run_sync(self._store.grants.exchange_code, exchange)

    async def rotate_refresh_token(
        self, refresh_token: str, *, client_id: str
    ) -> IssuedTokens | Refusal:
        rotate = functools.partial(
            self._store.grants.refresh, refresh_token=refresh_token, client_id=client_id
        )
        return await anyio.to_thread.run_sync(rotate)

    async def revoke_token(self, token: str, *, client_id: str) -> None:
        revoke = functools.partial(self._store.grants.revoke, token=token, client_id=client_id)
        await anyio.to_thread.run_sync(revoke)
