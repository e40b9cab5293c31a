"""MCP sessions (``Mcp-Session-Id``): issued on ``initialize``, honoured afterwards.

A request without a session id is served statelessly (Robinhood's server allows it, and plain
JSON-RPC fallbacks rely on it); a request naming an unknown session gets 404 so the client
starts a new one, as the streamable-HTTP transport specifies.
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


class SessionStore:
    def __init__(self, *, limit: int = 10_000) -> None:
        self._sessions: dict[str, Session] = {}
        self._limit = limit

    def open(self, *, protocol_version: str, client_name: str, now: datetime) -> Session:
        if len(self._sessions) >= self._limit:
            # Bounded memory: the oldest session goes first.
            oldest = next(iter(self._sessions))
            del self._sessions[oldest]
        session = Session(secrets.token_hex(16), protocol_version, client_name, now)
        self._sessions[session.session_id] = session
        return session

    def get(self, session_id: str) -> Session | None:
        return self._sessions.get(session_id)

    def close(self, session_id: str) -> bool:
        return self._sessions.pop(session_id, None) is not None

    def __len__(self) -> int:
        return len(self._sessions)
