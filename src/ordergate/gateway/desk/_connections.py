"""The connections the owner sees on the desk: who each is, what it may do, when it was used.

A read of the gateway's own tables (``ordergate.gateway._schema``); erased connections are
left out (nothing of them remains to revoke), and so are abandoned consents (a code issued
that no client exchanged: nobody ever held a token of them). Caller tokens are listed after
the connections, one row a mint, by name: ``caller:NAME#MINT`` is what ``revoke`` takes for
that token alone, ``caller:NAME`` for every token of the name.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine, select, true

from ordergate.gateway._caller_mints import list_mints
from ordergate.gateway._callers import CALLER_PREFIX
from ordergate.gateway._owner import connection_digest, digest_in
from ordergate.gateway._schema import connections, gateway_clients
from ordergate.gateway.oauth._connections import abandoned_consent
from ordergate.store import iso

__all__ = [
    "CALLER_PREFIX",
    "MAX_LISTED",
    "client_name_of",
    "client_names",
    "list_caller_mints",
    "list_connections",
    "live_connection_ids",
    "sealed_digests",
]

MAX_LISTED = 1000


def list_connections(
    engine: Engine, *, limit: int = MAX_LISTED, only: str | None = None
) -> list[dict[str, Any]]:
    """Live and dead connections, newest first: id, client name, kind, profile, state, and
    when created and last used (blocking); ``only``: that connection's row alone."""
    query = (
        select(
            connections.c.id,
            connections.c.kind,
            connections.c.profile,
            connections.c.state,
            connections.c.created_at,
            connections.c.last_used_at,
            gateway_clients.c.client_name,
            gateway_clients.c.redirect_uris,
        )
        .outerjoin(gateway_clients, gateway_clients.c.client_id == connections.c.client_id)
        .where(connections.c.state != "erased", ~abandoned_consent())
        .where(connections.c.id == only if only is not None else true())
        .order_by(connections.c.created_at.desc(), connections.c.id)
        .limit(limit)
    )
    with engine.connect() as db:
        rows = db.execute(query).all()
    return [
        {
            "connection_id": row.id,
            "identity": f"conn:{connection_digest(row.id)}",
            "client_name": row.client_name or "",
            "redirect_hosts": _hosts(row.redirect_uris),
            "kind": row.kind,
            "profile": row.profile,
            "state": row.state,
            "created_at": row.created_at,
            "last_used_at": row.last_used_at,
        }
        for row in rows
    ]


def sealed_digests(engine: Engine) -> frozenset[str]:
    """The digest of every sealed connection (a person's, on a hosted rail), erased ones
    included: what their filings' identities keep (blocking)."""
    query = select(connections.c.id).where(connections.c.kind == "sealed")
    with engine.connect() as db:
        return frozenset(connection_digest(row.id) for row in db.execute(query))


def list_caller_mints(
    engine: Engine, *, now: datetime, limit: int = MAX_LISTED
) -> list[dict[str, Any]]:
    """The caller tokens minted, newest first, in the shape of a connection: ``caller:NAME#MINT``,
    the name, kind ``caller``, the profile, and a state of ``live``, ``revoked`` or ``expired``
    (blocking). A token holds no "last used": its minting time stands there."""
    return [
        {
            "connection_id": f"{CALLER_PREFIX}{row['caller']}#{row['mint_id']}",
            "client_name": row["caller"],
            "redirect_hosts": [],
            "kind": "caller",
            "profile": row["profile"],
            "state": (
                "revoked"
                if row["revoked_at"] is not None
                else "expired"
                if row["expires_at"] <= iso(now)
                else "live"
            ),
            "created_at": row["created_at"],
            "last_used_at": row["created_at"],
            "expires_at": row["expires_at"],
        }
        for row in list_mints(engine, limit=limit)
    ]


def _hosts(redirect_uris: str | None) -> list[str]:
    """The hosts a client's registered redirect URIs go to (what the owner recognises)."""
    try:
        uris = json.loads(redirect_uris or "[]")
    except ValueError:
        return []
    return sorted({urlsplit(uri).netloc for uri in uris if isinstance(uri, str)})


def live_connection_ids(engine: Engine, *, limit: int = MAX_LISTED) -> list[str]:
    """The ids of live connections, most recently used first (blocking)."""
    query = (
        select(connections.c.id)
        .where(connections.c.state == "live")
        .order_by(connections.c.last_used_at.desc())
        .limit(limit)
    )
    with engine.connect() as db:
        return list(db.execute(query).scalars())


def client_names(engine: Engine, *, limit: int = MAX_LISTED) -> dict[str, str]:
    """Each connection's digest (what identities on the record keep) to its client's
    registered name, erased connections included (their filings still name them)."""
    query = (
        select(connections.c.id, gateway_clients.c.client_name)
        .join(gateway_clients, gateway_clients.c.client_id == connections.c.client_id)
        .order_by(connections.c.last_used_at.desc())
        .limit(limit)
    )
    with engine.connect() as db:
        return {connection_digest(row.id): row.client_name for row in db.execute(query)}


def client_name_of(engine: Engine, identity: str) -> str | None:
    """The registered name of the client whose connection ``identity`` names (its own, or the
    one a caller token is bound to); ``None`` for any other identity, or when the ledger has
    no such connection or no gateway tables (blocking)."""
    from sqlalchemy.exc import SQLAlchemyError

    digest = digest_in(identity)
    if digest is None:
        return None
    try:
        return client_names(engine).get(digest)
    except SQLAlchemyError:  # a ledger no gateway ever served: no clients to name
        return None
