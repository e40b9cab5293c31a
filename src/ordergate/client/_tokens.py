"""The token set and the token file it lives in.

The file is JSON, mode 0600, in a directory created 0700. It is written atomically: a new
file is created beside it already at 0600 (``O_CREAT | O_EXCL``, so it is never readable by
anyone else, not even for an instant), filled, fsynced and renamed over the old one, so a
reader sees either the old set or the new one, never half of each.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ordergate.client._errors import LoginRequired
from ordergate.core import Secret, utc

__all__ = ["TokenSet", "read_token_file", "write_token_file"]

_FILE_MODE = 0o600
_DIR_MODE = 0o700


@dataclass(frozen=True, slots=True)
class TokenSet:
    """What a signed-in client holds. The tokens are ``Secret``: no repr ever shows them.

    ``expires_at`` is ``None`` when the lifetime is unknown (a token given by environment
    variable); ``token_endpoint`` and ``client_id`` are ``None`` when there is no way to
    refresh.
    """

    access_token: Secret
    refresh_token: Secret | None = None
    expires_at: datetime | None = None
    token_endpoint: str | None = None
    client_id: str | None = None
    resource: str | None = None
    scope: str | None = None

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
        )


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
    path.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
    data = json.dumps(tokens.to_json(), indent=2).encode() + b"\n"
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    # The rename is durable only once the directory entry is on disk.
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
