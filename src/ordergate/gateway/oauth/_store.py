"""``GatewayStore``: the gateway's authorization state in the ledger's database.

It keeps registered clients, authorizations in flight (one per consent page) and
connections, and holds the codes and tokens through ``grants`` (``_grants``). The shared
server reaches it through ``GatewayStorage`` (``_storage``). Rules:

- A consent nonce is stored as its SHA-256 and spent by the one ``UPDATE`` that checks it
  (``take_pending``): a second, concurrent or late post of the same nonce finds nothing.
- A connection is ``live`` until it is marked ``dead`` (the upstream revoked it) or erased
  (``_connections``); the tokens of a connection that is not live are refused.
- ``erase_idle`` erases every connection unused for the given time (30 days by default) and
  every abandoned consent whose code has expired (approved, never exchanged: it was never a
  connection), and sweeps what can no longer be presented: expired consent pages and expired
  tokens. The gateway calls it every hour.
- A client registered and never authorised (no connection, no consent page still open) is
  forgotten after ``UNUSED_CLIENT`` (an hour), as clients register and as ``erase_idle``
  sweeps: registration is open to anyone who reaches the gateway, so the table would grow
  with every registration otherwise.

Every method is synchronous (SQLAlchemy Core) and thread-safe: call it from a worker thread
in async code. Times are the ledger's fixed-width UTC text, so they compare as strings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Row, delete, insert, or_, select, update

from ordergate.core import Clock
from ordergate.gateway._schema import (
    connections,
    gateway_clients,
    gateway_pending,
    gateway_tokens,
)
from ordergate.gateway.oauth._connections import FORGOTTEN, abandoned_consent, erase_connection
from ordergate.gateway.oauth._grants import Grants
from ordergate.gateway.oauth._records import SCOPE, Connection, ConnectionKind, ConnectionState
from ordergate.gateway.oauth._values import MAX_VALUE_LENGTH, mint, new_id, sha256_hex
from ordergate.oauth import Authorization, Client
from ordergate.store import iso, parse_iso, purge_freed, write_transaction

__all__ = ["DEFAULT_IDLE", "UNUSED_CLIENT", "GatewayStore", "pending_authorization"]

DEFAULT_IDLE = timedelta(days=30)
UNUSED_CLIENT = timedelta(hours=1)


def pending_authorization(row: Row[Any]) -> Authorization:
    """The authorization a ``gateway_pending`` row holds (with the profile chosen, once the
    upstream sign-in holds it there); its scope is the gateway's one."""
    return Authorization(
        client_id=row.client_id,
        redirect_uri=row.redirect_uri,
        code_challenge=row.code_challenge,
        scope=SCOPE,
        state=row.state,
        resource=row.resource,
        profile=row.profile,
    )


class GatewayStore:
    """Clients, consent pages in flight and connections; codes and tokens in ``grants``."""

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Clock,
        access_ttl: timedelta,
        refresh_ttl: timedelta,
        code_ttl: timedelta,
        consent_ttl: timedelta,
    ) -> None:
        self._engine = engine
        self.engine = engine
        self._clock = clock
        self._consent_ttl = consent_ttl
        self.grants = Grants(
            engine,
            clock=clock,
            access_ttl=access_ttl,
            refresh_ttl=refresh_ttl,
            code_ttl=code_ttl,
        )
        self._on_erased: list[Callable[[], None]] = []

    def on_erased(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after every committed write that erased a connection or marked one
        dead, here or in ``grants`` (the rail's shredder: ``custody._shredding``)."""
        self._on_erased.append(hook)
        self.grants.on_erased(hook)

    def _erased(self) -> None:
        purge_freed(self._engine)
        for hook in self._on_erased:
            hook()

    # -- clients (RFC 7591) --------------------------------------------------------------

    def register_client(self, *, client_name: str, redirect_uris: tuple[str, ...]) -> Client:
        """Record a new public client under a fresh random id."""
        client = Client(client_id=new_id(), client_name=client_name, redirect_uris=redirect_uris)
        with write_transaction(self._engine) as tx:
            _forget_unused_clients(tx, self._clock.now())
            tx.execute(
                insert(gateway_clients).values(
                    client_id=client.client_id,
                    client_name=client_name,
                    redirect_uris=json.dumps(list(redirect_uris)),
                    created_at=iso(self._clock.now()),
                )
            )
        return client

    def client(self, client_id: str) -> Client | None:
        with self._engine.connect() as db:
            row = db.execute(
                select(gateway_clients).where(gateway_clients.c.client_id == client_id)
            ).first()
        if row is None:
            return None
        return Client(
            client_id=row.client_id,
            client_name=row.client_name,
            redirect_uris=tuple(json.loads(row.redirect_uris)),
        )

    # -- consent pages -------------------------------------------------------------------

    def open_pending(self, authorization: Authorization) -> tuple[str, str]:
        """Hold ``authorization`` while its consent page is shown: ``(pending id, nonce)``.

        The nonce goes into the page's form and nowhere else; only its SHA-256 is kept.
        """
        pending_id, nonce = new_id(), mint()
        now = self._clock.now()
        with write_transaction(self._engine) as tx:
            tx.execute(
                insert(gateway_pending).values(
                    id=pending_id,
                    client_id=authorization.client_id,
                    redirect_uri=authorization.redirect_uri,
                    state=authorization.state,
                    code_challenge=authorization.code_challenge,
                    resource=authorization.resource,
                    nonce_sha256=sha256_hex(nonce),
                    nonce_used=False,
                    created_at=iso(now),
                    expires_at=iso(now + self._consent_ttl),
                )
            )
        return pending_id, nonce

    def take_pending(self, pending_id: str, nonce: str) -> Authorization | None:
        """Spend ``nonce``: the authorization it was issued for, or ``None`` when the nonce is
        not this page's, was already spent or the page has expired."""
        if len(pending_id) > MAX_VALUE_LENGTH or len(nonce) > MAX_VALUE_LENGTH:
            return None
        table = gateway_pending.c
        with write_transaction(self._engine) as tx:
            spent = tx.execute(
                update(gateway_pending)
                .where(
                    table.id == pending_id,
                    table.nonce_sha256 == sha256_hex(nonce),
                    table.nonce_used.is_(False),
                    table.expires_at > iso(self._clock.now()),
                )
                .values(nonce_used=True)
            )
            if spent.rowcount != 1:
                return None
            row = tx.execute(select(gateway_pending).where(table.id == pending_id)).one()
        return pending_authorization(row)

    # -- connections ---------------------------------------------------------------------

    def connection(self, connection_id: str) -> Connection | None:
        with self._engine.connect() as db:
            row = db.execute(select(connections).where(connections.c.id == connection_id)).first()
        if row is None:
            return None
        return Connection(
            id=row.id,
            client_id=row.client_id,
            kind=ConnectionKind(row.kind),
            profile=row.profile,
            state=ConnectionState(row.state),
            created_at=parse_iso(row.created_at),
            last_used_at=parse_iso(row.last_used_at),
        )

    def live_among(self, connection_ids: list[str]) -> set[str]:
        """Which of ``connection_ids`` are live."""
        with self._engine.connect() as db:
            rows = db.execute(
                select(connections.c.id).where(
                    connections.c.id.in_(connection_ids),
                    connections.c.state == ConnectionState.LIVE,
                )
            )
            return {row.id for row in rows}

    def touch(self, connection_id: str) -> None:
        """Record that a live connection was just used (it is not idle)."""
        with write_transaction(self._engine) as tx:
            tx.execute(
                update(connections)
                .where(
                    connections.c.id == connection_id,
                    connections.c.state == ConnectionState.LIVE,
                )
                .values(last_used_at=iso(self._clock.now()))
            )

    def mark_dead(self, connection_id: str) -> bool:
        """The upstream revoked this connection: refuse its tokens from now on and forget its
        upstream session. Whether a live connection was marked."""
        with write_transaction(self._engine) as tx:
            result = tx.execute(
                update(connections)
                .where(
                    connections.c.id == connection_id,
                    connections.c.state == ConnectionState.LIVE,
                )
                .values(state=ConnectionState.DEAD, **FORGOTTEN)
            )
        self.grants.forget_verified()
        if result.rowcount == 1:
            self._erased()
        return result.rowcount == 1

    def erase(self, connection_id: str) -> bool:
        """Erase the connection with its codes, tokens and upstream session. Whether there was
        one left to erase."""
        try:
            with write_transaction(self._engine) as tx:
                erased = erase_connection(tx, connection_id)
        finally:
            self.grants.forget_verified()
        if erased:
            self._erased()
        return erased

    def erase_idle(self, older_than: timedelta = DEFAULT_IDLE) -> int:
        """Erase every connection unused for ``older_than`` and every abandoned consent whose
        code has expired; also drop expired consent pages and expired tokens. How many
        connections were erased."""
        if older_than <= timedelta(0):
            raise ValueError("older_than must be positive")
        now = self._clock.now()
        with write_transaction(self._engine) as tx:
            idle = (
                tx.execute(
                    select(connections.c.id).where(
                        connections.c.state != ConnectionState.ERASED,
                        or_(
                            connections.c.last_used_at <= iso(now - older_than),
                            abandoned_consent(now),
                        ),
                    )
                )
                .scalars()
                .all()
            )
            for connection_id in idle:
                erase_connection(tx, connection_id)
            tx.execute(delete(gateway_pending).where(gateway_pending.c.expires_at <= iso(now)))
            tx.execute(delete(gateway_tokens).where(gateway_tokens.c.expires_at <= iso(now)))
            _forget_unused_clients(tx, now)
        if idle:  # an expired token's grant is refused by the cache at its expiry already
            self.grants.forget_verified()
            self._erased()
        return len(idle)


def _forget_unused_clients(tx: Any, now: datetime) -> None:
    """Delete the clients registered over ``UNUSED_CLIENT`` before ``now`` that were never
    authorised: no connection names them and no consent page of theirs is still open."""
    tx.execute(
        delete(gateway_clients).where(
            gateway_clients.c.created_at <= iso(now - UNUSED_CLIENT),
            gateway_clients.c.client_id.not_in(select(connections.c.client_id)),
            gateway_clients.c.client_id.not_in(
                select(gateway_pending.c.client_id).where(gateway_pending.c.expires_at > iso(now))
            ),
        )
    )
