"""The two writes that start and end a connection, for use inside a caller's transaction.

A connection is opened when the person approves a client on the consent page: kind ``owner``
(it acts on the owner's own upstream session, so it holds none itself) or, once the person has
signed in at the upstream, kind ``sealed`` (it holds that upstream session, sealed).
It is ended by erasing: its codes and tokens are deleted, its upstream session (if it held
one) is forgotten, and the row stays in state ``erased`` so the id can never come back to life.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, and_, delete, exists, insert, or_, update
from sqlalchemy import Connection as SqlConnection

from ordergate.gateway._schema import (
    connection_limits,
    connections,
    gateway_codes,
    gateway_tokens,
    push_subscriptions,
)
from ordergate.gateway.oauth._records import ConnectionKind, ConnectionState
from ordergate.gateway.oauth._values import new_id
from ordergate.oauth import Authorization
from ordergate.profiles import DEFAULT_PROFILE
from ordergate.store import iso

__all__ = [
    "FORGOTTEN",
    "abandoned_consent",
    "erase_connection",
    "open_owner_connection",
    "open_sealed_connection",
    "profile_of",
]


FORGOTTEN = {
    "upstream_sealed": None,
    "upstream_expires_at": None,
    "data_key_wrapped": None,
    "person_totp_sealed": None,
    "person_totp_step": None,
    "person_passkey_sealed": None,
    "person_passkey_sha256": None,
    "person_passkey_count": None,
}
"""What a connection that ends (erased, or dead at the upstream) forgets: its session, its data
key (so whatever was sealed under it is shredded) and the person's own credentials. It keeps
``kek_id``, the KEK its data key was under, until that KEK is destroyed (a row with a
``kek_id`` and no data key is a shredding still owed to a backup: ``custody._shredding``)."""


def open_owner_connection(tx: SqlConnection, *, client_id: str, profile: str, now: datetime) -> str:
    """Inside ``tx``: a new live owner connection for ``client_id``; its id."""
    connection_id = new_id()
    tx.execute(
        insert(connections).values(
            id=connection_id,
            client_id=client_id,
            kind=ConnectionKind.OWNER,
            profile=profile,
            state=ConnectionState.LIVE,
            upstream_sealed=None,
            upstream_expires_at=None,
            created_at=iso(now),
            last_used_at=iso(now),
        )
    )
    return connection_id


def open_sealed_connection(
    tx: SqlConnection,
    *,
    connection_id: str,
    client_id: str,
    profile: str,
    sealed: str,
    data_key_wrapped: str,
    kek_id: str,
    expires_at: datetime | None,
    now: datetime,
) -> None:
    """Inside ``tx``: a new live connection holding its own upstream session, ``sealed``
    under its data key (``ordergate.gateway.keys``) with ``connection_id`` as associated data;
    the data key as ``kek_id`` wrapped it."""
    tx.execute(
        insert(connections).values(
            id=connection_id,
            client_id=client_id,
            kind=ConnectionKind.SEALED,
            profile=profile,
            state=ConnectionState.LIVE,
            upstream_sealed=sealed,
            data_key_wrapped=data_key_wrapped,
            kek_id=kek_id,
            upstream_expires_at=iso(expires_at) if expires_at is not None else None,
            created_at=iso(now),
            last_used_at=iso(now),
        )
    )


def profile_of(authorization: Authorization) -> str:
    """The profile a connection opened for ``authorization`` gets: the person's choice, or the
    default (``monitor``: reads only) when none was made."""
    return authorization.profile or DEFAULT_PROFILE


def erase_connection(tx: SqlConnection, connection_id: str) -> bool:
    """Inside ``tx``: erase the connection. Whether there was one left to erase."""
    tx.execute(delete(gateway_tokens).where(gateway_tokens.c.connection_id == connection_id))
    tx.execute(delete(gateway_codes).where(gateway_codes.c.connection_id == connection_id))
    tx.execute(
        delete(push_subscriptions).where(push_subscriptions.c.connection_id == connection_id)
    )
    tx.execute(delete(connection_limits).where(connection_limits.c.connection_id == connection_id))
    result = tx.execute(
        update(connections)
        .where(connections.c.id == connection_id, connections.c.state != ConnectionState.ERASED)
        .values(state=ConnectionState.ERASED, **FORGOTTEN)
    )
    return result.rowcount == 1


def abandoned_consent(now: datetime | None = None) -> ColumnElement[bool]:
    """Whether a ``connections`` row is an abandoned consent: approved, its code issued, and
    no client ever exchanged it, so nobody held a token of it. With ``now``: only once every
    code of it has expired as well (it can no longer become a connection: safe to erase)."""
    codes = gateway_codes.c
    of_it = codes.connection_id == connections.c.id
    spent: ColumnElement[bool] = codes.used_at.is_not(None)
    if now is not None:
        spent = or_(spent, codes.expires_at > iso(now))
    return and_(exists().where(of_it), ~exists().where(of_it, spent))
