"""The connections the owner sees on the desk: who each is, what it may do, when it was used.

A read of the gateway's own tables (``ordergate.gateway._schema``); erased connections are
left out (nothing of them remains to revoke).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine, select

from ordergate.gateway._owner import connection_digest
from ordergate.gateway._schema import connections, gateway_clients

__all__ = ["MAX_LISTED", "client_names", "list_connections", "live_connection_ids"]

MAX_LISTED = 1000


def list_connections(engine: Engine, *, limit: int = MAX_LISTED) -> list[dict[str, Any]]:
    """Live and dead connections, newest first: id, client name, kind, profile, state, and
    when created and last used (blocking)."""
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
        .where(connections.c.state != "erased")
        .order_by(connections.c.created_at.desc(), connections.c.id)
        .limit(limit)
    )
    with engine.connect() as db:
        rows = db.execute(query).all()
    return [
        {
            "connection_id": row.id,
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
