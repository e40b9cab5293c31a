"""``Grants``: the gateway's own authorization codes and tokens, by their SHA-256 only.

- ``issue_code``: the owner approved a client, so a connection opens and a single-use code
  is minted for it, bound to the client, the redirect URI, the PKCE challenge and the
  connection, alive for ``code_ttl`` (5 minutes).
- ``exchange_code``: the code is spent by its first presentation, whatever the outcome, and
  checked by the shared rule (``ordergate.oauth.code_refusal``: unexpired, presented by its
  client with its redirect URI, the verifier hashing to its challenge) in the same
  transaction. A code presented a second time ends its connection and every token issued
  from it (RFC 6749 §4.1.2, §10.5).
- ``refresh``: rotation. Each use mints a new pair; the old refresh token is kept, marked
  rotated, until it expires, and the connection's earlier access tokens are revoked. A
  rotated refresh token presented again (reuse: one of the two holders is not the client)
  ends the connection. A refresh token presented by another client than its own is refused
  and left unspent (``ordergate.oauth.refresh_refusal``).
- ``revoke`` (RFC 7009): an access token revokes every token of its connection; a refresh
  token erases the connection itself. Tokens of another client are left alone.
- ``access_grant``: the hot path of every MCP request: one indexed read, then kept for
  ``verified_ttl`` (2 s) in an in-process cache keyed by the token's SHA-256 (``_verified``).

Each exchange runs in one write transaction, so a code or refresh token raced from two
requests is spent once: the loser sees it used and the connection ends. A refusal is
returned, not raised, so that what it records (a burnt code, an ended connection) commits.

Every write here that can end a grant empties the verification cache once it has committed
(``_ending``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from sqlalchemy import Connection as SqlConnection
from sqlalchemy import Engine, insert, select, update

from ordergate.core import Clock
from ordergate.gateway._schema import connections, gateway_codes, gateway_tokens
from ordergate.gateway.oauth._connections import (
    erase_connection,
    open_owner_connection,
    profile_of,
)
from ordergate.gateway.oauth._records import SCOPE, ConnectionState, Grant
from ordergate.gateway.oauth._values import MAX_VALUE_LENGTH, mint, sha256_hex
from ordergate.gateway.oauth._verified import VerifiedCache
from ordergate.oauth import (
    BAD_CODE,
    BAD_REFRESH,
    Authorization,
    CodeExchange,
    IssuedTokens,
    Refusal,
    code_refusal,
    refresh_refusal,
)
from ordergate.store import iso, parse_iso, purge_freed, write_transaction

__all__ = ["DEFAULT_VERIFIED_TTL", "ConnectionOpener", "Grants"]

DEFAULT_VERIFIED_TTL = timedelta(seconds=2)

ConnectionOpener = Callable[[SqlConnection, Authorization, datetime], str]


def _open_owner(tx: SqlConnection, authorization: Authorization, now: datetime) -> str:
    return open_owner_connection(
        tx, client_id=authorization.client_id, profile=profile_of(authorization), now=now
    )


_log = logging.getLogger(__name__)

ACCESS = "access"
REFRESH = "refresh"


class Grants:
    """Mints, spends, rotates, revokes and verifies the gateway's codes and tokens."""

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Clock,
        access_ttl: timedelta,
        refresh_ttl: timedelta,
        code_ttl: timedelta,
        verified_ttl: timedelta = DEFAULT_VERIFIED_TTL,
    ) -> None:
        if verified_ttl < timedelta(0):
            raise ValueError("verified_ttl must not be negative")
        self._engine = engine
        self._clock = clock
        self._access_ttl = access_ttl
        self._refresh_ttl = refresh_ttl
        self._code_ttl = code_ttl
        self._expires_in = access_ttl // timedelta(seconds=1)
        self._verified = VerifiedCache(verified_ttl)
        self._on_erased: list[Callable[[], None]] = []

    def on_erased(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after each write here that erased a connection (a code or a rotated
        refresh token presented again, a refresh token revoked), once it is committed."""
        self._on_erased.append(hook)

    # -- codes ---------------------------------------------------------------------------

    def issue_code(
        self, authorization: Authorization, *, opener: ConnectionOpener | None = None
    ) -> str:
        """Open a connection for the approved ``authorization``; its single-use code.

        ``opener(tx, authorization, now)`` writes the connection in the code's own transaction
        and returns its id (default: an owner connection, which holds no upstream session).
        """
        code = mint()
        now = self._clock.now()
        open_connection = opener or _open_owner
        with write_transaction(self._engine) as tx:
            connection_id = open_connection(tx, authorization, now)
            tx.execute(
                insert(gateway_codes).values(
                    code_sha256=sha256_hex(code),
                    client_id=authorization.client_id,
                    redirect_uri=authorization.redirect_uri,
                    code_challenge=authorization.code_challenge,
                    connection_id=connection_id,
                    resource=authorization.resource,
                    expires_at=iso(now + self._code_ttl),
                    used_at=None,
                )
            )
        return code

    def exchange_code(self, exchange: CodeExchange) -> IssuedTokens | Refusal:
        """Spend the code for a token pair, or say why not (``code_refusal``)."""
        if len(exchange.code) > MAX_VALUE_LENGTH:
            return BAD_CODE
        now = self._clock.now()
        table = gateway_codes.c
        with self._ending() as (tx, ended):
            row = tx.execute(
                select(gateway_codes)
                .where(table.code_sha256 == sha256_hex(exchange.code))
                .with_for_update()
            ).first()
            if row is None:
                return BAD_CODE
            if row.used_at is not None:
                ended.append(erase_connection(tx, row.connection_id))
                _log.warning("an authorization code was presented twice: its connection ended")
                return BAD_CODE
            tx.execute(
                update(gateway_codes)
                .where(table.code_sha256 == row.code_sha256)
                .values(used_at=iso(now))
            )
            refusal = code_refusal(
                exchange,
                issued_to=row.client_id,
                redirect_uri=row.redirect_uri,
                code_challenge=row.code_challenge,
                expires_at=parse_iso(row.expires_at),
                now=now,
            )
            if refusal is not None:
                return refusal
            if not _is_live(tx, row.connection_id):
                return BAD_CODE
            return self._issue_pair(tx, client_id=row.client_id, connection_id=row.connection_id)

    # -- tokens --------------------------------------------------------------------------

    def refresh(self, *, refresh_token: str, client_id: str) -> IssuedTokens | Refusal:
        """Rotate ``refresh_token`` into a new pair, or say why not (``refresh_refusal``)."""
        if len(refresh_token) > MAX_VALUE_LENGTH:
            return BAD_REFRESH
        now = self._clock.now()
        table = gateway_tokens.c
        with self._ending() as (tx, ended):
            row = tx.execute(
                select(gateway_tokens)
                .where(table.token_sha256 == sha256_hex(refresh_token), table.kind == REFRESH)
                .with_for_update()
            ).first()
            if row is None:
                return BAD_REFRESH
            if row.rotated_to_sha256 is not None:
                ended.append(erase_connection(tx, row.connection_id))
                _log.warning("a rotated refresh token was presented again: its connection ended")
                return BAD_REFRESH
            if row.revoked_at is not None:
                return BAD_REFRESH
            refusal = refresh_refusal(
                client_id, issued_to=row.client_id, expires_at=parse_iso(row.expires_at), now=now
            )
            if refusal is not None:
                return refusal
            if not _is_live(tx, row.connection_id):
                return BAD_REFRESH
            tx.execute(
                update(gateway_tokens)
                .where(
                    table.connection_id == row.connection_id,
                    table.kind == ACCESS,
                    table.revoked_at.is_(None),
                )
                .values(revoked_at=iso(now))
            )
            pair = self._issue_pair(tx, client_id=client_id, connection_id=row.connection_id)
            tx.execute(
                update(gateway_tokens)
                .where(table.token_sha256 == row.token_sha256)
                .values(rotated_to_sha256=sha256_hex(pair.refresh_token))
            )
            return pair

    def revoke(self, *, token: str, client_id: str) -> None:
        """RFC 7009: end what ``token`` opens, if it is ``client_id``'s; otherwise nothing."""
        if len(token) > MAX_VALUE_LENGTH:
            return
        now = self._clock.now()
        table = gateway_tokens.c
        with self._ending() as (tx, ended):
            row = tx.execute(
                select(gateway_tokens).where(table.token_sha256 == sha256_hex(token))
            ).first()
            if row is None or row.client_id != client_id:
                return
            if row.kind == REFRESH:
                ended.append(erase_connection(tx, row.connection_id))
                return
            tx.execute(
                update(gateway_tokens)
                .where(table.connection_id == row.connection_id, table.revoked_at.is_(None))
                .values(revoked_at=iso(now))
            )

    def cached_access_grant(self, token: str) -> Grant | None:
        """``token``'s grant when the verification cache holds it (no read: a few
        microseconds, fit for the event loop); ``None`` says only that ``access_grant`` must
        read."""
        if not token or len(token) > MAX_VALUE_LENGTH:
            return None
        return self._verified.get(sha256_hex(token), self._clock.now())

    def access_grant(self, token: str) -> Grant | None:
        """What ``token`` grants: ``None`` unless the gateway minted it as an access token that
        is unexpired, unrevoked, and whose connection is live."""
        if not token or len(token) > MAX_VALUE_LENGTH:
            return None
        digest = sha256_hex(token)
        now = self._clock.now()
        cached = self._verified.get(digest, now)
        if cached is not None:
            return cached
        generation = self._verified.generation
        table = gateway_tokens.c
        query = (
            select(table.client_id, table.connection_id, table.expires_at)
            .select_from(gateway_tokens.join(connections, connections.c.id == table.connection_id))
            .where(
                table.token_sha256 == digest,
                table.kind == ACCESS,
                table.revoked_at.is_(None),
                table.expires_at > iso(now),
                connections.c.state == ConnectionState.LIVE,
            )
        )
        with self._engine.connect() as db:
            row = db.execute(query).first()
        if row is None:
            return None
        grant = Grant(
            connection_id=row.connection_id,
            client_id=row.client_id,
            scopes=(SCOPE,),
            expires_at=parse_iso(row.expires_at),
        )
        self._verified.put(digest, grant, now, generation)
        return grant

    def forget_verified(self) -> None:
        """Empty the verification cache: call after any write that can end a grant."""
        self._verified.clear()

    @contextmanager
    def _ending(self) -> Iterator[tuple[SqlConnection, list[bool]]]:
        """A write transaction that may end grants: the cache is emptied once it is over. What
        it erased (each ``erase_connection``'s answer, appended to the list) is then purged
        from the file and told to the ``on_erased`` hooks."""
        ended: list[bool] = []
        try:
            with write_transaction(self._engine) as tx:
                yield tx, ended
        finally:
            self._verified.clear()
        if any(ended):
            purge_freed(self._engine)
            for hook in self._on_erased:
                hook()

    # -- internals -----------------------------------------------------------------------

    def _issue_pair(self, tx: SqlConnection, *, client_id: str, connection_id: str) -> IssuedTokens:
        now = self._clock.now()
        access, refresh = mint(), mint()
        tx.execute(
            insert(gateway_tokens),
            [
                _token_row(access, ACCESS, client_id, connection_id, now + self._access_ttl),
                _token_row(refresh, REFRESH, client_id, connection_id, now + self._refresh_ttl),
            ],
        )
        return IssuedTokens(
            access_token=access, refresh_token=refresh, expires_in=self._expires_in, scope=SCOPE
        )


def _token_row(
    value: str, kind: str, client_id: str, connection_id: str, expires_at: datetime
) -> dict[str, str | None]:
    return {
        "token_sha256": sha256_hex(value),
        "kind": kind,
        "client_id": client_id,
        "connection_id": connection_id,
        "expires_at": iso(expires_at),
        "revoked_at": None,
        "rotated_to_sha256": None,
    }


def _is_live(tx: SqlConnection, connection_id: str) -> bool:
    state = tx.execute(
        select(connections.c.state).where(connections.c.id == connection_id)
    ).scalar_one_or_none()
    return state == ConnectionState.LIVE
