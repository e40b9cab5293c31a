"""The upstream's authorization server, as the gateway (a public client of it) knows it.

Found once from the upstream's 401 challenge (RFC 9728 → RFC 8414, ``ordergate.client``'s
discovery) and registered with once (RFC 7591) under the gateway's callback URL; both are
kept for the life of the process. The upstream URL is configuration, never taken from a
request. A failure is not kept: the next sign-in tries again.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import anyio
import httpx2

from ordergate.client import AuthorizationServer, discover, register

__all__ = ["Authority", "UpstreamAuthority"]


@dataclass(frozen=True, slots=True)
class Authority:
    """Where the gateway signs people in, and the client id it has there."""

    server: AuthorizationServer
    client_id: str
    redirect_uri: str

    def authorization_url(self, *, challenge: str, state: str) -> str:
        params = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "resource": self.server.resource,
        }
        if self.server.scope:
            params["scope"] = self.server.scope
        return f"{self.server.metadata.authorization_endpoint}?{urlencode(params)}"


class UpstreamAuthority:
    """``await authority.get()``: the upstream's authority, found and registered with once."""

    def __init__(self, *, upstream_url: str, redirect_uri: str, client_name: str) -> None:
        self._upstream_url = upstream_url
        self._redirect_uri = redirect_uri
        self._client_name = client_name
        self._lock = anyio.Lock()
        self._known: Authority | None = None

    async def get(self) -> Authority:
        """Raises ``LoginRequired`` when the upstream refuses the registration and
        ``TransportError`` when it does not answer."""
        if self._known is not None:
            return self._known
        async with self._lock:
            if self._known is None:
                async with httpx2.AsyncClient(timeout=30.0) as http:
                    server = await discover(http, self._upstream_url)
                    client_id = await register(
                        http, server, name=self._client_name, redirect_uri=self._redirect_uri
                    )
                self._known = Authority(server, client_id, self._redirect_uri)
            return self._known
