"""``Vault``: the connections' upstream sessions, sealed at rest, opened only to forward.

Each sealed connection's upstream token set (access token, refresh token, expiry, where and as
whom to refresh) is kept in its ``connections`` row as one AES-256-GCM blob under a data key
of the connection's own, with the connection id as associated data, so a blob copied onto
another row does not open; the data key is kept only wrapped by the key provider's
key-encryption key (``ordergate.gateway.keys``: the master secret's, or a PKCS#11 token's).
A row sealed before data keys existed (``v1.``, under the master secret's ``Sealer``) moves to
a data key of its own when it is next opened: the person does not sign in again. The vault
is the only place a session is opened; ``session`` — the upstream session a connection's
calls are forwarded on — is the only way to an unsealed token, and it hands out a signed-in
client, never a token. Nothing the vault exports returns one.

A data key that does not unwrap (the provider does not hold its KEK: a copy of the database
opened without the token) fails closed: the call is refused naming the KEK, the row is left
as it is (the rail started with the right provider opens it again).

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
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from typing import Any, Protocol

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
from ordergate.core import Clock, Secret
from ordergate.gateway._schema import connections
from ordergate.gateway._seal import PREFIX as LEGACY_PREFIX
from ordergate.gateway._seal import Sealer, SealError
from ordergate.gateway.custody._person import seal_person_secret
from ordergate.gateway.keys import (
    Envelope,
    KeyProvider,
    KeyProviderError,
    open_envelope,
    seal_envelope,
)
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
_SEALED = select(
    connections.c.state,
    connections.c.upstream_sealed,
    connections.c.data_key_wrapped,
    connections.c.kek_id,
)
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


def _seal(
    keys: KeyProvider, tokens: TokenSet, connection_id: str, data_key: Envelope | None = None
) -> Envelope:
    """``tokens`` sealed for ``connection_id``: under a fresh data key, or under the data key
    (and its stored wrap) of ``data_key``."""
    plain = json.dumps(tokens.to_json(), separators=(",", ":")).encode("utf-8")
    if data_key is None:
        return seal_envelope(keys, plain, aad=connection_id.encode("ascii"))
    return seal_envelope(
        keys,
        plain,
        aad=connection_id.encode("ascii"),
        data_key=data_key.data_key,
        wrapped=(data_key.kek_id, data_key.data_key_wrapped),
    )


def _unopenable(connection_id: str, error: KeyProviderError) -> LoginRequired:
    _log.warning("a connection's data key did not unwrap: %s", error)
    return LoginRequired(
        f"this connection's session is sealed under a key this rail's key provider does not "
        f"hold ({error}); nothing was opened"
    )


def _opened(
    keys: KeyProvider, legacy: Sequence[Sealer], row: Any, connection_id: str
) -> tuple[TokenSet, Envelope | None]:
    """The row's token set and its data key (``None`` for a ``v1.`` row, not yet moved)."""
    if row.upstream_sealed is None:
        raise LoginRequired(SESSION_ENDED)
    aad = connection_id.encode("ascii")
    try:
        if row.upstream_sealed.startswith(LEGACY_PREFIX):
            return TokenSet.from_json(
                json.loads(_legacy_open(legacy, row.upstream_sealed, aad))
            ), None
        if row.data_key_wrapped is None or row.kek_id is None:
            raise SealError("a sealed session without its data key")
        plain, data_key = open_envelope(
            keys,
            row.upstream_sealed,
            data_key_wrapped=row.data_key_wrapped,
            kek_id=row.kek_id,
            aad=aad,
        )
        envelope = Envelope(
            sealed=row.upstream_sealed,
            data_key_wrapped=row.data_key_wrapped,
            kek_id=row.kek_id,
            data_key=data_key,
        )
        return TokenSet.from_json(json.loads(plain)), envelope
    except KeyProviderError as error:
        raise _unopenable(connection_id, error) from None
    except (SealError, ValueError):
        _log.warning("a connection's sealed upstream session did not open; it is ended")
        raise LoginRequired(SESSION_ENDED) from None


def _legacy_open(legacy: Sequence[Sealer], sealed: str, aad: bytes) -> bytes:
    """A ``v1.`` session opened by the master secret (or the previous one) that sealed it."""
    for sealer in legacy:
        try:
            return sealer.unseal(sealed, aad=aad)
        except SealError:
            continue
    raise SealError("no master secret opens this v1 session")


def _reseal_legacy(
    engine: Engine, keys: KeyProvider, connection_id: str, legacy: str, tokens: TokenSet
) -> None:
    """A ``v1.`` row resealed under a data key of its own (unless it changed meanwhile)."""
    envelope = _seal(keys, tokens, connection_id)
    table = connections.c
    with write_transaction(engine) as tx:
        tx.execute(
            update(connections)
            .where(table.id == connection_id, table.upstream_sealed == legacy)
            .values(
                upstream_sealed=envelope.sealed,
                data_key_wrapped=envelope.data_key_wrapped,
                kek_id=envelope.kek_id,
            )
        )
    _log.info("a connection's session moved to a data key of its own")


def move_legacy(
    engine: Engine, keys: KeyProvider, sealers: Sequence[Sealer], connection_id: str
) -> bool:
    """Move a live ``v1.`` connection (sealed under the master secret's own key) to a data key
    of its own now, as its next use would. Whether it moved; ``LoginRequired`` when its session
    does not open."""
    with engine.connect() as db:
        row = db.execute(_SEALED.where(connections.c.id == connection_id)).first()
    if row is None or row.state != ConnectionState.LIVE:
        return False
    if row.upstream_sealed is None or not row.upstream_sealed.startswith(LEGACY_PREFIX):
        return False
    tokens, _ = _opened(keys, sealers, row, connection_id)
    _reseal_legacy(engine, keys, connection_id, row.upstream_sealed, tokens)
    return True


class Vault:
    def __init__(
        self,
        engine: Engine,
        *,
        keys: KeyProvider,
        sealer: Sealer | None = None,
        store: GatewayStore,
        clock: Clock,
        upstream_url: str,
        client_name: str = "ordergate-gateway",
    ) -> None:
        self._engine = engine
        self._keys = keys
        self._legacy = [sealer] if sealer is not None else []
        self._store = store
        self._clock = clock
        self._config = Config(url=upstream_url, name=client_name)

    def __repr__(self) -> str:
        return "Vault(<sealed>)"

    def opener(
        self,
        tokens: TokenSet,
        *,
        person_secret: Secret | None = None,
        opened: list[str] | None = None,
    ) -> ConnectionOpener:
        """A connection opener (``Grants.issue_code``) that keeps ``tokens``, sealed, on the new
        connection, in the code's own transaction; with ``person_secret``, also the person's
        own code to enrol, under the same data key (``_person``). The new id is appended to
        ``opened``."""

        def open_connection(tx: SqlConnection, authorization: Authorization, now: datetime) -> str:
            connection_id = new_id()
            envelope = _seal(self._keys, tokens, connection_id)
            open_sealed_connection(
                tx,
                connection_id=connection_id,
                client_id=authorization.client_id,
                profile=profile_of(authorization),
                sealed=envelope.sealed,
                data_key_wrapped=envelope.data_key_wrapped,
                kek_id=envelope.kek_id,
                expires_at=tokens.expires_at,
                now=now,
            )
            if person_secret is not None:
                tx.execute(
                    update(connections)
                    .where(connections.c.id == connection_id)
                    .values(
                        person_totp_sealed=seal_person_secret(
                            self._keys, person_secret, connection_id, envelope
                        )
                    )
                )
            if opened is not None:
                opened.append(connection_id)
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

    def _unsealed(self, row: Any, connection_id: str) -> tuple[TokenSet, Envelope | None]:
        return _opened(self._keys, self._legacy, row, connection_id)

    def _live_tokens(self, connection_id: str) -> TokenSet:
        with self._engine.connect() as db:
            row = db.execute(_SEALED.where(connections.c.id == connection_id)).first()
        if row is None or row.state != ConnectionState.LIVE:
            raise LoginRequired(SESSION_ENDED)
        tokens, envelope = self._unsealed(row, connection_id)
        if envelope is None:
            self._move_legacy(connection_id, row.upstream_sealed, tokens)
        return tokens

    def _move_legacy(self, connection_id: str, legacy: str, tokens: TokenSet) -> None:
        _reseal_legacy(self._engine, self._keys, connection_id, legacy, tokens)

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
            row = tx.execute(_SEALED.where(table.id == connection_id).with_for_update()).first()
            if row is None or row.state != ConnectionState.LIVE:
                raise LoginRequired(SESSION_ENDED)
            stored, envelope = self._unsealed(row, connection_id)
            if (stored.access_token, stored.refresh_token) != (
                stale.access_token,
                stale.refresh_token,
            ):
                return stored  # rotated since this session read it: nothing to send
            fresh = self._grant(stale)
            # The connection keeps its data key (a rotation may be moving its wrap meanwhile:
            # under this row's lock, the wrap read is the wrap written back).
            resealed = _seal(self._keys, fresh, connection_id, envelope)
            tx.execute(
                update(connections)
                .where(table.id == connection_id)
                .values(
                    upstream_sealed=resealed.sealed,
                    data_key_wrapped=resealed.data_key_wrapped,
                    kek_id=resealed.kek_id,
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
