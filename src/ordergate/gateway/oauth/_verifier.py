"""``AccessVerifier``: what the MCP endpoint asks of every request's bearer token.

``verify`` accepts only an access token this gateway minted, unexpired, unrevoked and whose
connection is live; anything else (unknown, expired, revoked, a refresh token, a code, or a
token another server minted, such as the upstream's own) is ``None``. ``www_authenticate`` is
the challenge of the 401 that follows (RFC 9728 §5.1: it points at the protected-resource
metadata).

Not the MCP SDK's ``TokenVerifier``: its ``AccessToken`` carries the raw token string, and
nothing the gateway hands out holds one. ``verify`` is synchronous: a hit in ``Grants``'
verification cache or one indexed read. ``cached`` is the hit alone (a few microseconds, so
the MCP endpoint calls it on the event loop); on a miss the endpoint runs ``verify`` in a
worker thread, so a read never stalls the loop.
"""

from __future__ import annotations

from ordergate.gateway.oauth._grants import Grants
from ordergate.gateway.oauth._records import Grant
from ordergate.oauth import www_authenticate

__all__ = ["AccessVerifier"]


class AccessVerifier:
    def __init__(self, *, grants: Grants, metadata_url: str) -> None:
        self._grants = grants
        self._metadata_url = metadata_url

    @property
    def metadata_url(self) -> str:
        """Where the MCP endpoint's protected-resource metadata is served."""
        return self._metadata_url

    def verify(self, token: str) -> Grant | None:
        """The grant behind ``token``, or ``None`` when the gateway does not honour it."""
        return self._grants.access_grant(token)

    def cached(self, token: str) -> Grant | None:
        """The grant behind ``token`` when the verification cache holds it; ``None`` means
        only that ``verify`` must read."""
        return self._grants.cached_access_grant(token)

    def www_authenticate(self, error: str | None = None) -> str:
        """The ``WWW-Authenticate`` value of a 401 (``error`` per RFC 6750 §3, e.g.
        ``invalid_token``). Raises ``ValueError`` when ``error`` would break the header."""
        return www_authenticate(metadata_url=self._metadata_url, error=error)
