"""``Vault``: the connections' upstream sessions, sealed at rest, opened only to forward.

Each sealed connection's upstream token set (access token, refresh token, expiry, where and as
whom to refresh) is kept in its ``connections`` row as one AES-256-GCM blob (``_seal``) with
the connection id as associated data, so a blob copied onto another row does not open. The
vault holds the only ``Sealer``; ``session`` — the upstream session a connection's calls are
forwarded on — is the only way to an unsealed token, and it hands out a signed-in client,
never a token. Nothing the vault exports returns one.

Refresh (``ordergate.client``'s ``TokenAuth`` asks within a minute of expiry, and once after
a 401): under the connection row's write lock, the stored set is read back first; if another
task or replica has rotated it since this session read it, that set is used and nothing is
sent (the upstream's refresh tokens work once). Otherwise the refresh grant is sent while the
lock is held and the new set sealed before it is released. A refused refresh means the person
or the upstream revoked the session: the connection is marked dead (its gateway tokens are
refused from then on) and the session ends.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from typing import Protocol

import httpx2
from sqlalchemy import Connection as SqlConnection
from sqlalchemy import Engine, select, update

from ordergate.client import (
    Config,
    LoginRequired,
    Robinhood,
    TokenSet,
    connect_with,
    request_tokens_blocking,
)
from ordergate.core import Clock
from ordergate.gateway._schema import connections
from ordergate.gateway._seal import Sealer, SealError
from ordergate.gateway.oauth._connections import open_sealed_connection, profile_of
from ordergate.gateway.oauth._grants import ConnectionOpener
from ordergate.gateway.oauth._records import ConnectionState
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.gateway.oauth._values import new_id
from ordergate.oauth import Authorization
from ordergate.store import blocking, iso, write_transaction

__all__ = ["SESSION_ENDED", "NoVault", "SessionSource", "Vault"]

_log = logging.getLogger(__name__)

SESSION_ENDED = "this connection's upstream session has ended; connect again"
_TOKEN_TIMEOUT_S = 30.0


class SessionSource(Protocol):
    def session(self, connection_id: str) -> AbstractAsyncContextManager[Robinhood]:
        """The connection's upstream session for a block."""
        ...


class NoVault:
    """What a gateway without ``ORDERGATE_MASTER_SECRET`` has: no sealed session opens."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    @asynccontextmanager
    async def session(self, connection_id: str) -> AsyncIterator[Robinhood]:
        raise LoginRequired(self._reason)
        yield  # pragma: no cover - unreachable, makes this an async generator


def _seal(sealer: Sealer, tokens: TokenSet, connection_id: str) -> str:
    plain = json.dumps(tokens.to_json(), separators=(",", ":")).encode("utf-8")
    return sealer.seal(plain, aad=connection_id.encode("ascii"))


class Vault:
    def __init__(
        self,
        engine: Engine,
        *,
        sealer: Sealer,
        store: GatewayStore,
        clock: Clock,
        upstream_url: str,
        client_name: str = "ordergate-gateway",
    ) -> None:
        self._engine = engine
        self._sealer = sealer
        self._store = store
        self._clock = clock
        self._config = Config(url=upstream_url, name=client_name)

    def __repr__(self) -> str:
        return "Vault(<sealed>)"

    def opener(self, tokens: TokenSet) -> ConnectionOpener:
        """A connection opener (``Grants.issue_code``) that keeps ``tokens``, sealed, on the new
        connection, in the code's own transaction."""

        def open_connection(tx: SqlConnection, authorization: Authorization, now: datetime) -> str:
            connection_id = new_id()
            open_sealed_connection(
                tx,
                connection_id=connection_id,
                client_id=authorization.client_id,
                profile=profile_of(authorization),
                sealed=_seal(self._sealer, tokens, connection_id),
                expires_at=tokens.expires_at,
                now=now,
            )
            return connection_id

        return open_connection

    @asynccontextmanager
    async def session(self, connection_id: str) -> AsyncIterator[Robinhood]:
        """The connection's upstream session for the block: a signed-in client, refreshed and
        resealed as it goes. Raises ``LoginRequired`` when the connection holds no live
        session (ended, dead, or its seal does not open with this key)."""
        tokens = await blocking(self._live_tokens, connection_id)

        async def refresh(stale: TokenSet) -> TokenSet:
            return await blocking(self._refreshed, connection_id, stale)

        async with connect_with(
            self._config, tokens=tokens, refresh=refresh, clock=self._clock
        ) as robinhood:
            yield robinhood

    # -- the only places a sealed set is opened ------------------------------------------

    def _unsealed(self, sealed: str | None, connection_id: str) -> TokenSet:
        if sealed is None:
            raise LoginRequired(SESSION_ENDED)
        try:
            plain = self._sealer.unseal(sealed, aad=connection_id.encode("ascii"))
            return TokenSet.from_json(json.loads(plain))
        except (SealError, ValueError):
            _log.warning("a connection's sealed upstream session did not open; it is ended")
            raise LoginRequired(SESSION_ENDED) from None

    def _live_tokens(self, connection_id: str) -> TokenSet:
        with self._engine.connect() as db:
            row = db.execute(
                select(connections.c.state, connections.c.upstream_sealed).where(
                    connections.c.id == connection_id
                )
            ).first()
        if row is None or row.state != ConnectionState.LIVE:
            raise LoginRequired(SESSION_ENDED)
        return self._unsealed(row.upstream_sealed, connection_id)

    def _refreshed(self, connection_id: str, stale: TokenSet) -> TokenSet:
        try:
            return self._refresh_locked(connection_id, stale)
        except LoginRequired:
            if self._store.mark_dead(connection_id):
                _log.warning("the upstream refused a connection's session: marked dead")
            raise

    def _refresh_locked(self, connection_id: str, stale: TokenSet) -> TokenSet:
        table = connections.c
        with write_transaction(self._engine) as tx:
            row = tx.execute(
                select(table.state, table.upstream_sealed)
                .where(table.id == connection_id)
                .with_for_update()
            ).first()
            if row is None or row.state != ConnectionState.LIVE:
                raise LoginRequired(SESSION_ENDED)
            stored = self._unsealed(row.upstream_sealed, connection_id)
            if (stored.access_token, stored.refresh_token) != (
                stale.access_token,
                stale.refresh_token,
            ):
                return stored  # rotated since this session read it: nothing to send
            fresh = self._grant(stale)
            tx.execute(
                update(connections)
                .where(table.id == connection_id)
                .values(
                    upstream_sealed=_seal(self._sealer, fresh, connection_id),
                    upstream_expires_at=iso(fresh.expires_at) if fresh.expires_at else None,
                )
            )
        _log.info("refreshed a connection's upstream session")
        return fresh

    def _grant(self, stale: TokenSet) -> TokenSet:
        if stale.refresh_token is None or stale.token_endpoint is None or stale.client_id is None:
            raise LoginRequired(SESSION_ENDED)
        form = {
            "grant_type": "refresh_token",
            "refresh_token": stale.refresh_token.reveal(),
            "client_id": stale.client_id,
        }
        if stale.resource is not None:
            form["resource"] = stale.resource
        with httpx2.Client(timeout=_TOKEN_TIMEOUT_S) as http:
            granted = request_tokens_blocking(
                http, stale.token_endpoint, form, now=self._clock.now()
            )
        return stale.rotated(
            access_token=granted.access_token,
            refresh_token=granted.refresh_token,
            expires_at=granted.expires_at,
        )
