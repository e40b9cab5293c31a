"""The token set and the token file it lives in.

The file is JSON, mode 0600, in a directory created 0700, written by
``ordergate.core.write_private``: atomically, from a sibling that is 0600 from its first byte,
so a reader sees either the old set or the new one, never half of each.

It records the server the tokens were issued for (``"server": {"mcp_url", "origin"}``, see
``_servers``): they are sent to that server only. A file without it is read (``server`` is
``None``) but ``connect`` refuses to send it anywhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ordergate.client._errors import LoginRequired
from ordergate.client._servers import canonical_url, origin_of
from ordergate.core import Secret, utc, write_private

__all__ = ["TokenSet", "read_token_file", "write_token_file"]


@dataclass(frozen=True, slots=True)
class TokenSet:
    """What a signed-in client holds. The tokens are ``Secret``: no repr ever shows them.

    ``expires_at`` is ``None`` when the lifetime is unknown (a token given by environment
    variable); ``token_endpoint`` and ``client_id`` are ``None`` when there is no way to
    refresh. ``server`` is the canonical MCP URL they were issued for (``None`` in a file
    written before it was recorded).
    """

    access_token: Secret
    refresh_token: Secret | None = None
    expires_at: datetime | None = None
    token_endpoint: str | None = None
    client_id: str | None = None
    resource: str | None = None
    scope: str | None = None
    server: str | None = None

    def __post_init__(self) -> None:
        if self.server is not None:
            object.__setattr__(self, "server", canonical_url(self.server))

    @property
    def origin(self) -> str | None:
        """The origin of ``server``: the only one the access token is sent to."""
        return origin_of(self.server) if self.server else None

    def expires_within(self, now: datetime, margin: timedelta) -> bool:
        """Whether the access token is expired at ``now + margin`` (never, if unknown)."""
        return self.expires_at is not None and now + margin >= self.expires_at

    def rotated(
        self, *, access_token: Secret, refresh_token: Secret | None, expires_at: datetime | None
    ) -> TokenSet:
        """This set after a refresh; a server that does not rotate keeps the refresh token."""
        return replace(
            self,
            access_token=access_token,
            refresh_token=refresh_token or self.refresh_token,
            expires_at=expires_at,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token.reveal(),
            "refresh_token": self.refresh_token.reveal() if self.refresh_token else None,
            "token_type": "Bearer",
            "expires_at": self.expires_at.isoformat() if self.expires_at else None,
            "token_endpoint": self.token_endpoint,
            "client_id": self.client_id,
            "resource": self.resource,
            "scope": self.scope,
            "server": {"mcp_url": self.server, "origin": self.origin} if self.server else None,
        }

    @classmethod
    def from_json(cls, document: object) -> TokenSet:
        """Raises ``ValueError`` naming the bad key, never showing a value."""
        if not isinstance(document, dict):
            raise ValueError("not a JSON object")
        access = document.get("access_token")
        if not isinstance(access, str) or not access:
            raise ValueError("access_token is missing")
        strings: dict[str, str | None] = {}
        for key in ("refresh_token", "token_endpoint", "client_id", "resource", "scope"):
            value = document.get(key)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{key} is not a string")
            strings[key] = value or None
        expires_at = document.get("expires_at")
        if expires_at is not None:
            if not isinstance(expires_at, str):
                raise ValueError("expires_at is not a string")
            expires_at = utc(datetime.fromisoformat(expires_at))
        refresh = strings["refresh_token"]
        return cls(
            access_token=Secret(access),
            refresh_token=Secret(refresh) if refresh else None,
            expires_at=expires_at,
            token_endpoint=strings["token_endpoint"],
            client_id=strings["client_id"],
            resource=strings["resource"],
            scope=strings["scope"],
            server=_server(document.get("server")),
        )


def _server(recorded: object) -> str | None:
    if recorded is None:
        return None
    if not isinstance(recorded, dict):
        raise ValueError("server is not an object")
    url, origin = recorded.get("mcp_url"), recorded.get("origin")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError("server.mcp_url is not an http(s) URL")
    if origin != origin_of(url):
        raise ValueError("server.origin is not the origin of server.mcp_url")
    return canonical_url(url)


def read_token_file(path: Path) -> TokenSet:
    """The token set in ``path``; ``LoginRequired`` if it is missing or unreadable."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise LoginRequired(f"no Robinhood tokens at {path}") from None
    except OSError as error:
        raise LoginRequired(f"the token file {path} cannot be read ({error.strerror})") from None
    try:
        return TokenSet.from_json(json.loads(text))
    except ValueError as error:
        # ``error`` names a key (from_json) or a JSON position, never a token value.
        raise LoginRequired(f"the token file {path} is damaged ({error})") from None


def write_token_file(path: Path, tokens: TokenSet) -> None:
    """Replace ``path`` with ``tokens`` atomically; the file is 0600 from its first byte."""
    write_private(path, json.dumps(tokens.to_json(), indent=2).encode() + b"\n")
