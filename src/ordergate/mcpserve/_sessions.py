"""MCP sessions (``Mcp-Session-Id``): issued on ``initialize``, honoured afterwards, each bound
to the principal that opened it.

A request without a session id is served statelessly (Robinhood's server allows it, and plain
JSON-RPC fallbacks rely on it); a request naming an unknown session gets 404 so the client
starts a new one, as the streamable-HTTP transport specifies. A session carries the key of
the principal that opened it (``owner``; ``None`` where a server binds none, as the sandbox
venue does) and is found, or ended, only under that same key: to anyone else it is unknown.

The store is in memory (one process); a shared store (Redis, for several replicas) would
implement the same ``open`` / ``bind`` / ``get`` / ``close`` and keep ``owner`` beside each
session.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

__all__ = ["Session", "SessionStore"]


@dataclass(slots=True)
class Session:
    session_id: str
    protocol_version: str
    client_name: str
    created_at: datetime
    owner: str | None = None
    """The key of the principal that opened it (``None``: bound to none)."""
    url_elicitation: bool = False
    """Its client declared URL-mode elicitation in ``initialize`` (2025-11-25 and later)."""

    def owned_by(self, owner: str | None) -> bool:
        return self.owner == owner


class SessionStore:
    def __init__(self, *, limit: int = 10_000) -> None:
        self._sessions: dict[str, Session] = {}
        self._limit = limit

    def open(
        self,
        *,
        protocol_version: str,
        client_name: str,
        now: datetime,
        url_elicitation: bool = False,
    ) -> Session:
        if len(self._sessions) >= self._limit:
            # Bounded memory: the oldest session goes first.
            oldest = next(iter(self._sessions))
            del self._sessions[oldest]
        session = Session(
            secrets.token_hex(16),
            protocol_version,
            client_name,
            now,
            url_elicitation=url_elicitation,
        )
        self._sessions[session.session_id] = session
        return session

    def bind(self, session_id: str, owner: str) -> None:
        """Bind a session just opened, not yet bound, to ``owner``."""
        session = self._sessions.get(session_id)
        if session is not None and session.owner is None:
            session.owner = owner

    def get(self, session_id: str, owner: str | None = None) -> Session | None:
        """The session, when it exists and ``owner`` opened it."""
        session = self._sessions.get(session_id)
        return session if session is not None and session.owned_by(owner) else None

    def close(self, session_id: str, owner: str | None = None) -> bool:
        """End the session when it exists and ``owner`` opened it; whether it was ended."""
        if self.get(session_id, owner) is None:
            return False
        del self._sessions[session_id]
        return True

    def __len__(self) -> int:
        return len(self._sessions)
